package share

import (
	"context"
	"testing"

	"github.com/karst-broker/karst/internal/group"
)

// TestInitializeGroupAsKafka: a state the group coordinator initializes
// has the group epoch as state epoch, start offset -1, and leader epoch
// and delivered count 0 as Kafka 4.4 answers; a later write makes the
// count unknown (-1), Karst's share-partitions not counting it.
func TestInitializeGroupAsKafka(t *testing.T) {
	c := NewCoordinator(CoordinatorOptions{})
	defer c.Close()
	id := [16]byte{15: 7}
	if err := c.InitializeGroup(context.Background(), "g", 3, []group.SharePartitionInit{{TopicID: id, Topic: "t", Partition: 1}}); err != nil {
		t.Fatal(err)
	}
	k := Key{Group: "g", TopicID: id, Partition: 1}
	st, ok, err := c.Lookup(k)
	if err != nil || !ok || st.StateEpoch != 3 || st.StartOffset != -1 || st.LeaderEpoch != 0 || st.DeliveryCompleteCount != 0 {
		t.Fatalf("initialized state %+v %v %v", st, ok, err)
	}
	if err := c.WriteState(k, Update{LeaderEpoch: 0, StartOffset: 5, DeliveryCompleteCount: 2}); err != nil {
		t.Fatal(err)
	}
	if st, _, _ := c.Lookup(k); st.StartOffset != 5 || st.DeliveryCompleteCount != 2 {
		t.Fatalf("after a write %+v", st)
	}
	// An initialization at an older state epoch is fenced.
	if err := c.InitializeGroup(context.Background(), "g", 2, []group.SharePartitionInit{{TopicID: id, Topic: "t", Partition: 1}}); err == nil {
		t.Fatal("initialized at a stale state epoch")
	}
}
