package group

import (
	"testing"
	"time"
)

func TestConsumerGroupEpochSurvivesRestart(t *testing.T) {
	clock := &fakeClock{now: time.Unix(1_700_000_000, 0)}
	store := &memStore{}
	c := New(testConfig(), Options{Clock: clock, Store: store})
	topics := fakeTopics{"t": 2}
	r := c.ConsumerHeartbeat(ConsumerHeartbeat{GroupID: "g", MemberID: "a", SubscribedTopics: []string{"t"}, OwnedSent: true, Topics: topics})
	c.ConsumerHeartbeat(ConsumerHeartbeat{GroupID: "g", MemberID: "b", SubscribedTopics: []string{"t"}, OwnedSent: true, Topics: topics})
	c.CommitOffsets(CommitRequest{GroupID: "g", MemberID: "a", Generation: r.MemberEpoch,
		Offsets: []OffsetToCommit{{TopicPartition: TopicPartition{"t", 0}, Offset: 9}}})

	c2 := New(testConfig(), Options{Clock: clock})
	if skipped, err := c2.Load(replayRecords(store.recs)); err != nil || skipped != 0 {
		t.Fatalf("load: skipped %d, %v", skipped, err)
	}
	if _, offs := c2.FetchOffsets("g", nil); len(offs) != 1 || offs[0].Offset != 9 {
		t.Fatalf("offsets after restart: %v", offs)
	}
	if d := c2.DescribeConsumerGroups([]string{"g"})[0]; d.Err != nil || d.Epoch != 2 || d.State != "Empty" {
		t.Fatalf("after restart: %+v", d)
	}
	// The old member is gone; joining again continues the epochs.
	if r := c2.ConsumerHeartbeat(ConsumerHeartbeat{GroupID: "g", MemberID: "a", MemberEpoch: 1, Topics: topics}); r.Err == nil {
		t.Fatal("a member from before the restart was accepted")
	}
	if r := c2.ConsumerHeartbeat(ConsumerHeartbeat{GroupID: "g", MemberID: "a", SubscribedTopics: []string{"t"}, OwnedSent: true, Topics: topics}); r.MemberEpoch != 3 {
		t.Fatalf("rejoin epoch %d", r.MemberEpoch)
	}
}

// FuzzDecodeConsumerGroupMetadata: consumer-group records from disk never
// panic the decoder.
func FuzzDecodeConsumerGroupMetadata(f *testing.F) {
	f.Add(consumerGroupMetadataKey("g"), consumerGroupMetadataValue(7), false)
	f.Add(consumerGroupMetadataKey("g"), []byte(nil), true)
	f.Add([]byte{0, 3, 0xff, 0xff}, []byte{0, 0, 0, 0, 0, 1, 0}, false)
	f.Fuzz(func(t *testing.T, key, value []byte, tombstone bool) {
		if tombstone {
			value = nil
		}
		g, e, _, ok := decodeConsumerGroupMetadata(key, value)
		if ok && value != nil {
			// What decodes re-encodes to the same key and leading bytes.
			if string(consumerGroupMetadataKey(g)) != string(key[:4+len(g)]) || string(consumerGroupMetadataValue(e)[:6]) != string(value[:6]) {
				t.Fatal("does not round-trip")
			}
		}
	})
}
