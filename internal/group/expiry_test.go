package group

import (
	"bytes"
	"testing"
	"time"

	"github.com/karst-broker/karst/internal/config"
)

func expiryConfig() Config {
	cfg := testConfig()
	cfg.OffsetsRetention = time.Hour
	cfg.OffsetsRetentionCheckInterval = time.Minute
	return cfg
}

// tombstoned reports whether the store holds a tombstone for key.
func (s *memStore) tombstoned(key []byte) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, r := range s.recs {
		if r.Value == nil && bytes.Equal(r.Key, key) {
			return true
		}
	}
	return false
}

// runFor ticks the clock forward in steps of a check interval.
func (h *harness) runFor(d time.Duration) {
	step := h.c.cfg.OffsetsRetentionCheckInterval
	for end := h.clock.Now().Add(d); h.clock.Now().Before(end); {
		h.advance(step)
	}
}

// runBeating is runFor with a member heartbeating, so it stays.
func (h *harness) runBeating(d time.Duration, group, member string, gen int32) {
	h.t.Helper()
	for end := h.clock.Now().Add(d); h.clock.Now().Before(end); {
		h.advance(5 * time.Second)
		wantErr(h.t, h.c.Heartbeat(group, member, nil, gen), nil)
	}
}

func TestExpirySimpleGroupFromCommitTime(t *testing.T) {
	h := newHarness(t, expiryConfig())
	h.c.Tick() // schedules the first check
	h.c.CommitOffsets(commit("simple", "", -1, 1))
	h.runFor(30 * time.Minute)
	h.c.CommitOffsets(commit("simple", "", -1, 1, 2)) // t-0 committed again
	h.runFor(35 * time.Minute)
	// t-0 was committed 35 minutes ago: kept; nothing expired yet.
	wantOffsets(t, h.c, "simple", 1, 2)
	h.runFor(30 * time.Minute)
	wantOffsets(t, h.c, "simple", -1, -1)
	if !h.store.tombstoned(offsetCommitKey("simple", TopicPartition{"t", 0})) ||
		!h.store.tombstoned(offsetCommitKey("simple", TopicPartition{"t", 1})) {
		t.Fatal("no offset tombstones written")
	}
	if h.c.group("simple", false) != nil || !h.store.tombstoned(groupMetadataKey("simple")) {
		t.Fatal("the emptied group was not deleted")
	}
	// Reloading the log agrees.
	c2 := New(expiryConfig(), Options{Clock: h.clock})
	if _, err := c2.Load(replayRecords(h.store.recs)); err != nil {
		t.Fatal(err)
	}
	if c2.group("simple", false) != nil {
		t.Fatal("expired group came back on load")
	}
}

// TestExpiryCountsFromAClientCommitTimestamp: an OffsetCommit v1 commit
// timestamp is the offset's commit time, as Kafka 3.x kept it, so a
// simple group's offset committed "50 minutes ago" expires 10 minutes
// later, while its neighbour committed at the coordinator's time stays.
func TestExpiryCountsFromAClientCommitTimestamp(t *testing.T) {
	h := newHarness(t, expiryConfig())
	h.c.Tick() // schedules the first check
	req := commit("simple", "", -1, 1, 2)
	earlier := h.clock.Now().Add(-50 * time.Minute).UnixMilli()
	req.Offsets[0].CommitTimestamp = &earlier
	h.c.CommitOffsets(req)
	h.runFor(5 * time.Minute)
	wantOffsets(t, h.c, "simple", 1, 2)
	h.runFor(10 * time.Minute)
	wantOffsets(t, h.c, "simple", -1, 2)
	if !h.store.tombstoned(offsetCommitKey("simple", TopicPartition{"t", 0})) {
		t.Fatal("no tombstone for the offset committed with an earlier timestamp")
	}
}

func TestExpiryEmptyGroupCountsFromEmptying(t *testing.T) {
	h := newHarness(t, expiryConfig())
	h.c.Tick()
	ids, gen := h.stableGroup("g", 1)
	h.c.CommitOffsets(commit("g", ids[0], gen, 7))
	h.runBeating(2*time.Hour, "g", ids[0], gen) // a live group keeps its offsets however old
	wantOffsets(t, h.c, "g", 7)
	h.c.Leave("g", []MemberIdentity{{MemberID: ids[0]}})
	if h.state("g") != Empty {
		t.Fatalf("state %v", h.state("g"))
	}
	h.runFor(50 * time.Minute)
	wantOffsets(t, h.c, "g", 7) // the retention counts from the emptying
	h.runFor(15 * time.Minute)
	wantOffsets(t, h.c, "g", -1)
	if h.c.group("g", false) != nil {
		t.Fatal("the emptied group was not deleted")
	}
}

func TestExpiryStableGroupUnsubscribedTopics(t *testing.T) {
	h := newHarness(t, expiryConfig())
	h.c.Tick()
	ids, gen := h.stableGroup("g", 1) // subscribed to "t"
	req := commit("g", ids[0], gen, 7)
	req.Offsets = append(req.Offsets, OffsetToCommit{TopicPartition: TopicPartition{"gone", 0}, Offset: 3, LeaderEpoch: -1})
	if top, errs, _ := h.c.CommitOffsets(req); top != nil || errs[0] != nil || errs[1] != nil {
		t.Fatal(top, errs)
	}
	h.runBeating(50*time.Minute, "g", ids[0], gen)
	if _, all := h.c.FetchOffsets("g", nil); len(all) != 2 {
		t.Fatalf("offsets %+v expired early", all)
	}
	h.runBeating(15*time.Minute, "g", ids[0], gen)
	_, all := h.c.FetchOffsets("g", nil)
	if len(all) != 1 || all[0].Topic != "t" {
		t.Fatalf("offsets %+v: want only the subscribed topic's", all)
	}
	if h.c.group("g", false) == nil {
		t.Fatal("a live group was deleted")
	}
}

func TestExpiryKeepsPendingTransactions(t *testing.T) {
	h, _ := newTxnHarness(t)
	h.c.cfg = expiryConfig()
	h.c.Tick()
	h.c.CommitOffsets(commit("g", "", -1, 1, 2))
	mustTxnCommit(t, h.c, txnCommit("g", 7, 0, 10))
	mustTxnCommit(t, h.c, txnCommit("only-pending", 8, 0, 10))
	h.runFor(2 * time.Hour)
	// t-0 has a pending transactional offset: kept, and the group too.
	wantOffsets(t, h.c, "g", 1, -1)
	if h.c.group("only-pending", false) == nil {
		t.Fatal("a group with an open transaction was deleted")
	}
	h.c.CompleteTransaction(7, 0, false)
	h.c.CompleteTransaction(8, 0, true)
	h.runFor(2 * time.Hour)
	wantOffsets(t, h.c, "g", -1, -1)
	if h.c.group("g", false) != nil {
		t.Fatal("group kept after its offsets expired")
	}
	wantOffsets(t, h.c, "only-pending", -1)
}

func TestExpiryConsumerGroupWithoutMembers(t *testing.T) {
	h := newConsumerHarness(t, fakeTopics{"a": 2, "b": 2})
	h.c.cfg = expiryConfig()
	h.c.Tick()
	cl, res := h.join("m1", "a")
	wantErr(t, res.Err, nil)
	for _, topic := range []string{"a", "b"} {
		req := CommitRequest{GroupID: "g", MemberID: "m1", Generation: cl.epoch,
			Offsets: []OffsetToCommit{{TopicPartition: TopicPartition{topic, 0}, Offset: 4, LeaderEpoch: -1}}}
		if top, errs, _ := h.c.CommitOffsets(req); top != nil || errs[0] != nil {
			t.Fatal(top, errs)
		}
	}
	tick := func(d time.Duration) {
		for end := h.clock.Now().Add(d); h.clock.Now().Before(end); {
			h.clock.advance(20 * time.Second)
			h.c.Tick()
			if r := h.beat(cl); r.Err != nil {
				t.Fatal(r.Err)
			}
		}
	}
	tick(2 * time.Hour)
	_, all := h.c.FetchOffsets("g", nil)
	if len(all) != 1 || all[0].Topic != "a" {
		t.Fatalf("offsets %+v: want only the subscribed topic's", all)
	}
	h.c.ConsumerHeartbeat(ConsumerHeartbeat{GroupID: "g", MemberID: "m1", MemberEpoch: -1})
	h.clock.advance(time.Minute)
	h.c.Tick()
	// Without members every offset counts from its commit: long past.
	if _, all = h.c.FetchOffsets("g", nil); len(all) != 0 {
		t.Fatalf("offsets %+v after the last member left", all)
	}
	if h.c.group("g", false) != nil {
		t.Fatal("empty consumer group kept")
	}
}

func TestRetentionSettings(t *testing.T) {
	b, _, err := config.Load("", []string{"offsets.retention.minutes=2", "offsets.retention.check.interval.ms=1500"})
	if err != nil {
		t.Fatal(err)
	}
	cfg := ConfigFrom(b)
	if cfg.OffsetsRetention != 2*time.Minute || cfg.OffsetsRetentionCheckInterval != 1500*time.Millisecond {
		t.Fatalf("%v %v", cfg.OffsetsRetention, cfg.OffsetsRetentionCheckInterval)
	}
	if d := DefaultConfig(); d.OffsetsRetention != 10080*time.Minute || d.OffsetsRetentionCheckInterval != 600000*time.Millisecond {
		t.Fatalf("defaults %v %v", d.OffsetsRetention, d.OffsetsRetentionCheckInterval)
	}
}
