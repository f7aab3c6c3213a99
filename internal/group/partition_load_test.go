package group

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
)

// partitionedStore is a memStore that knows which __consumer_offsets
// partition each group's records go to.
type partitionedStore struct {
	mu         sync.Mutex
	partitions int32
	recs       []StoredRecord
}

func (s *partitionedStore) Append(groupID string, recs []Record) (Durable, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, r := range recs {
		s.recs = append(s.recs, StoredRecord{Key: r.Key, Value: r.Value, Partition: PartitionFor(groupID, s.partitions),
			ProducerID: -1, ProducerEpoch: -1})
	}
	return noWait, nil
}

func (s *partitionedStore) Replay(fn func(StoredRecord) error) error {
	s.mu.Lock()
	recs := append([]StoredRecord(nil), s.recs...)
	s.mu.Unlock()
	for _, r := range recs {
		if err := fn(r); err != nil {
			return err
		}
	}
	return nil
}

// groupIn is a group id, prefix-N, of the given partition.
func groupIn(partition, partitions int32, prefix string) string {
	for i := 0; ; i++ {
		if id := fmt.Sprintf("%s-%d", prefix, i); PartitionFor(id, partitions) == partition {
			return id
		}
	}
}

// TestUnloadAndLoadOnePartition: unloading one __consumer_offsets
// partition at run time and loading it again keeps every group and
// offset of it; its classic members carry on at their generation and its
// consumer-protocol members at their epoch, without a rebalance, while
// the other partitions' groups are served throughout.
func TestUnloadAndLoadOnePartition(t *testing.T) {
	const partitions = 3
	clock := &fakeClock{now: time.Unix(1_700_000_000, 0)}
	store := &partitionedStore{partitions: partitions}
	topics := fakeTopics{"t": 4}
	c := New(testConfig(), Options{Clock: clock, Store: store, Topics: topics})
	h := &harness{t: t, clock: clock, store: &memStore{}, c: c}
	p := PartitionFor("g", partitions)
	classic, consumer, other := "g", groupIn(p, partitions, "cg"), groupIn((p+1)%partitions, partitions, "other")

	ids, gen := h.stableGroup(classic, 2)
	if top, errs, _ := c.CommitOffsets(commit(classic, ids[0], gen, 5, 6)); top != nil || errs[0] != nil {
		t.Fatalf("commit: %v %v", top, errs)
	}
	c.CommitOffsets(commit(other, "", -1, 9))
	member := &cclient{id: "m", owned: MemberAssignment{}}
	member.apply(c.ConsumerHeartbeat(ConsumerHeartbeat{GroupID: consumer, MemberID: "m", SubscribedTopics: []string{"t"},
		RebalanceTimeout: time.Minute, OwnedSent: true, Topics: topics}))
	beat := func() ConsumerHeartbeatResult {
		r := c.ConsumerHeartbeat(ConsumerHeartbeat{GroupID: consumer, MemberID: member.id, MemberEpoch: member.epoch,
			Owned: partitionsOf(member.owned), OwnedSent: true, Topics: topics})
		member.apply(r)
		return r
	}
	beat()
	epoch, owned := member.epoch, partitionsOf(member.owned)
	if len(owned) != 4 {
		t.Fatalf("consumer member owns %v", owned)
	}

	c.UnloadPartition(p, partitions)
	if err := c.Heartbeat(classic, ids[0], nil, gen); err != kerr.NotCoordinator {
		t.Fatalf("classic heartbeat while unloaded: %v", err)
	}
	if r := beat(); r.Err != kerr.NotCoordinator {
		t.Fatalf("consumer heartbeat while unloaded: %+v", r)
	}
	if top, _ := c.FetchOffsets(classic, nil); top != kerr.NotCoordinator {
		t.Fatalf("fetch while unloaded: %v", top)
	}
	if top, got := c.FetchOffsets(other, nil); top != nil || len(got) != 1 || got[0].Offset != 9 {
		t.Fatalf("another partition's group while unloaded: %v %+v", top, got)
	}

	if skipped, err := c.LoadPartition(p, partitions, store); err != nil || skipped != 0 {
		t.Fatalf("load: skipped %d, %v", skipped, err)
	}
	for _, id := range ids {
		if err := c.Heartbeat(classic, id, nil, gen); err != nil {
			t.Fatalf("classic member %s after the reload: %v", id, err)
		}
	}
	if s := h.state(classic); s != Stable {
		t.Fatalf("classic group %v after the reload, want Stable", s)
	}
	if top, got := c.FetchOffsets(classic, nil); top != nil || len(got) != 2 || got[0].Offset != 5 || got[1].Offset != 6 {
		t.Fatalf("offsets after the reload: %v %+v", top, got)
	}
	if r := beat(); r.Err != nil || r.MemberEpoch != epoch || r.Assignment != nil {
		t.Fatalf("consumer member after the reload: %+v, want epoch %d and its assignment unchanged", r, epoch)
	}
	if d := c.DescribeConsumerGroups([]string{consumer})[0]; d.Err != nil || d.State != "Stable" || len(d.Members) != 1 {
		t.Fatalf("consumer group after the reload: %+v", d)
	}
	if top, got := c.FetchOffsets(other, nil); top != nil || len(got) != 1 || got[0].Offset != 9 {
		t.Fatalf("another partition's group after the reload: %v %+v", top, got)
	}
}
