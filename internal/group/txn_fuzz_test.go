package group

import (
	"slices"
	"testing"

	"github.com/twmb/franz-go/pkg/kerr"
)

// FuzzTxnLoadMatchesLive drives plain commits, transactional commits,
// commit and abort markers and offset deletions through a coordinator,
// then loads a second one from what was written: both must show the same
// committed offsets, the same unstable partitions and the same open
// transactions. Each input byte is one step.
func FuzzTxnLoadMatchesLive(f *testing.F) {
	f.Add([]byte{1, 2, 0, 5, 6, 11, 3, 4, 9, 1})
	f.Add([]byte{1, 6, 11, 16, 2, 7, 0, 5, 3, 8, 4, 14, 1, 2})
	f.Add([]byte{0, 1, 4, 2, 1, 6, 3, 21, 26, 27, 28, 33})
	f.Fuzz(func(t *testing.T, steps []byte) {
		if len(steps) > 200 {
			steps = steps[:200]
		}
		h, s := newTxnHarness(t)
		groups := []string{"a", "b", "c"}
		epochs := map[int64]int16{7: 0, 8: 0}
		next := int64(0)
		for _, b := range steps {
			arg := int(b / 5)
			g, pid, tp := groups[arg%3], int64(7+(arg/3)%2), TopicPartition{"t", int32(arg % 2)}
			next++
			switch b % 5 {
			case 0:
				req := CommitRequest{GroupID: g, Generation: -1, Offsets: []OffsetToCommit{{TopicPartition: tp, Offset: next, LeaderEpoch: -1}}}
				if top, _, _ := h.c.CommitOffsets(req); top != nil {
					t.Fatal(top)
				}
			case 1:
				req := txnCommit(g, pid, epochs[pid])
				req.Offsets = []OffsetToCommit{{TopicPartition: tp, Offset: next, LeaderEpoch: -1}}
				mustTxnCommit(t, h.c, req)
			case 2, 3:
				h.c.offsetState.mu.Lock()
				var in []string
				for id := range h.c.offsetState.openTxns[pid] {
					in = append(in, id)
				}
				h.c.offsetState.mu.Unlock()
				slices.Sort(in)
				if len(in) == 0 {
					continue
				}
				epochs[pid]++ // transaction version 2: the marker bumps the epoch
				s.marker(t, pid, epochs[pid], b%5 == 2, in...)
				h.c.CompleteTransaction(pid, epochs[pid], b%5 == 2)
			case 4:
				if top, _, _ := h.c.DeleteOffsets(g, []TopicPartition{tp}); top != nil && top != kerr.GroupIDNotFound {
					t.Fatal(top)
				}
			}
		}
		c2 := New(testConfig(), Options{Clock: h.clock})
		if skipped, err := c2.Load(s); err != nil || skipped != 0 {
			t.Fatalf("load: %d skipped, %v", skipped, err)
		}
		tps := []TopicPartition{{"t", 0}, {"t", 1}}
		for _, g := range groups {
			_, live := h.c.FetchStableOffsets(g, tps)
			_, loaded := c2.FetchStableOffsets(g, tps)
			_, liveAll := h.c.FetchOffsets(g, tps)
			_, loadedAll := c2.FetchOffsets(g, tps)
			for i := range tps {
				if live[i].Offset != loaded[i].Offset || live[i].Err != loaded[i].Err ||
					liveAll[i].Offset != loadedAll[i].Offset {
					t.Fatalf("%s %v: live %+v / %+v, loaded %+v / %+v", g, tps[i], live[i], liveAll[i], loaded[i], loadedAll[i])
				}
				if live[i].Err == kerr.UnstableOffsetCommit && live[i].Offset != -1 {
					t.Fatalf("unstable partition with an offset: %+v", live[i])
				}
			}
		}
		if a, b := h.c.PendingTransactions(), c2.PendingTransactions(); !slices.Equal(a, b) {
			t.Fatalf("open transactions: live %v, loaded %v", a, b)
		}
	})
}
