package group

import (
	"testing"

	"github.com/twmb/franz-go/pkg/kerr"
)

// replayRecords replays what a memStore holds.
type replayRecords []Record

func (rs replayRecords) Replay(fn func(StoredRecord) error) error {
	for _, r := range rs {
		if err := fn(StoredRecord{Key: r.Key, Value: r.Value, ProducerID: -1, ProducerEpoch: -1}); err != nil {
			return err
		}
	}
	return nil
}

func TestLoadRebuildsOffsetsAndGenerations(t *testing.T) {
	h := newHarness(t, testConfig())
	ids, gen := h.stableGroup("g", 2)
	h.c.CommitOffsets(commit("g", ids[0], gen, 5, 6))
	h.c.CommitOffsets(commit("simple", "", -1, 1))
	h.c.CommitOffsets(commit("gone", "", -1, 1))
	h.c.DeleteGroups([]string{"gone"})
	h.c.CommitOffsets(commit("g", ids[0], gen, 7))
	h.c.DeleteOffsets("simple", []TopicPartition{{"t", 0}})
	h.c.CommitOffsets(commit("simple", "", -1, 3, 4))

	stored := append(replayRecords{}, h.store.recs...)
	stored = append(stored, Record{Key: []byte{0, 9, 1}, Value: []byte{1}}) // a consumer-group record type: skipped
	stored = append(stored, Record{Key: []byte{0}, Value: nil})             // malformed: counted
	c2 := New(testConfig(), Options{Clock: h.clock})
	skipped, err := c2.Load(stored)
	if err != nil || skipped != 1 {
		t.Fatalf("skipped %d, err %v", skipped, err)
	}
	_, got := c2.FetchOffsets("g", nil)
	if len(got) != 2 || got[0].Offset != 7 || got[1].Offset != 6 {
		t.Fatalf("g offsets %+v", got)
	}
	_, got = c2.FetchOffsets("simple", nil)
	if len(got) != 2 || got[0].Offset != 3 {
		t.Fatalf("simple offsets %+v", got)
	}
	if c2.group("gone", false) != nil {
		t.Fatal("deleted group came back")
	}
	d := c2.Describe([]string{"g"})[0]
	if d.State != "Stable" || d.ProtocolType != "consumer" || d.Protocol != "range" || len(d.Members) != 2 {
		t.Fatalf("%+v", d)
	}
	// A new member joining the restored group starts the next generation.
	h2 := &harness{t: t, clock: h.clock, store: &memStore{}, c: c2}
	_, ch := h2.joinNew("g")
	for _, id := range ids {
		wantErr(t, c2.Heartbeat("g", id, nil, gen), kerr.RebalanceInProgress)
		c2.Join(joinReq("g", id))
	}
	if r := settle(h2, ch); r.Generation != gen+1 {
		t.Fatalf("generation %d after restart, want %d", r.Generation, gen+1)
	}
}
