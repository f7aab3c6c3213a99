package group

import (
	"sync"
	"testing"

	"github.com/twmb/franz-go/pkg/kerr"

	klog "github.com/karst-broker/karst/internal/log"
)

// txnLogStore is a fake __consumer_offsets that keeps batch context: the
// partition, the producer and transaction markers, and refuses a
// producer's older epoch per partition as the log does.
type txnLogStore struct {
	mu         sync.Mutex
	partitions int32
	recs       []StoredRecord
	epochs     map[int32]map[int64]int16
}

func newTxnLogStore() *txnLogStore {
	return &txnLogStore{partitions: 5, epochs: map[int32]map[int64]int16{}}
}

func (s *txnLogStore) Append(groupID string, recs []Record) (Durable, error) {
	return s.write(groupID, -1, -1, false, recs)
}

func (s *txnLogStore) AppendTxn(groupID string, pid int64, epoch int16, recs []Record) (Durable, error) {
	return s.write(groupID, pid, epoch, true, recs)
}

func (s *txnLogStore) write(groupID string, pid int64, epoch int16, txn bool, recs []Record) (Durable, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := PartitionFor(groupID, s.partitions)
	if err := s.checkEpoch(p, pid, epoch); err != nil {
		return nil, err
	}
	for _, r := range recs {
		s.recs = append(s.recs, StoredRecord{Key: r.Key, Value: r.Value, Partition: p, ProducerID: pid, ProducerEpoch: epoch, Transactional: txn})
	}
	return noWait, nil
}

func (s *txnLogStore) checkEpoch(p int32, pid int64, epoch int16) error {
	if pid < 0 {
		return nil
	}
	if s.epochs[p] == nil {
		s.epochs[p] = map[int64]int16{}
	}
	if last, ok := s.epochs[p][pid]; ok && epoch < last {
		return klog.ErrInvalidProducerEpoch
	}
	s.epochs[p][pid] = epoch
	return nil
}

// marker writes a transaction marker to the partitions of the groups.
func (s *txnLogStore) marker(t *testing.T, pid int64, epoch int16, commit bool, groups ...string) {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	done := map[int32]bool{}
	for _, g := range groups {
		p := PartitionFor(g, s.partitions)
		if done[p] {
			continue
		}
		done[p] = true
		if err := s.checkEpoch(p, pid, epoch); err != nil {
			t.Fatalf("marker: %v", err)
		}
		s.recs = append(s.recs, StoredRecord{Partition: p, ProducerID: pid, ProducerEpoch: epoch, Transactional: true, Marker: true, Commit: commit})
	}
}

// Replay hands the records over partition by partition, as OffsetsTopic.
func (s *txnLogStore) Replay(fn func(StoredRecord) error) error {
	s.mu.Lock()
	recs := append([]StoredRecord(nil), s.recs...)
	s.mu.Unlock()
	for p := int32(0); p < s.partitions; p++ {
		for _, r := range recs {
			if r.Partition != p {
				continue
			}
			if err := fn(r); err != nil {
				return err
			}
		}
	}
	return nil
}

func newTxnHarness(t *testing.T) (*harness, *txnLogStore) {
	h := newHarness(t, testConfig())
	s := newTxnLogStore()
	h.c.store = s
	return h, s
}

func txnCommit(group string, pid int64, epoch int16, offsets ...int64) TxnCommitRequest {
	req := TxnCommitRequest{TransactionalID: "tx", GroupID: group, ProducerID: pid, ProducerEpoch: epoch, Generation: -1}
	for i, o := range offsets {
		req.Offsets = append(req.Offsets, OffsetToCommit{TopicPartition: TopicPartition{"t", int32(i)}, Offset: o, LeaderEpoch: -1})
	}
	return req
}

func mustTxnCommit(t *testing.T, c *Coordinator, req TxnCommitRequest) {
	t.Helper()
	top, errs, _ := c.CommitTransactionalOffsets(req)
	if top != nil {
		t.Fatalf("txn commit: %v", top)
	}
	for _, err := range errs {
		if err != nil {
			t.Fatalf("txn commit: %v", errs)
		}
	}
}

// offsetsOf returns the visible offsets of partitions t-0..t-(n-1).
func offsetsOf(c *Coordinator, group string, n int) []int64 {
	tps := make([]TopicPartition, n)
	for i := range tps {
		tps[i] = TopicPartition{"t", int32(i)}
	}
	_, got := c.FetchOffsets(group, tps)
	out := make([]int64, n)
	for i, f := range got {
		out[i] = f.Offset
	}
	return out
}

func wantOffsets(t *testing.T, c *Coordinator, group string, want ...int64) {
	t.Helper()
	got := offsetsOf(c, group, len(want))
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("%s offsets %v, want %v", group, got, want)
		}
	}
}

func unstable(c *Coordinator, group string, n int) []bool {
	tps := make([]TopicPartition, n)
	for i := range tps {
		tps[i] = TopicPartition{"t", int32(i)}
	}
	_, got := c.FetchStableOffsets(group, tps)
	out := make([]bool, n)
	for i, f := range got {
		out[i] = f.Err == kerr.UnstableOffsetCommit
		if out[i] && f.Offset != -1 {
			panic("unstable offset answered with an offset")
		}
	}
	return out
}

func TestTxnOffsetsPendingUntilCommit(t *testing.T) {
	h, s := newTxnHarness(t)
	h.c.CommitOffsets(commit("g", "", -1, 1, 2))
	mustTxnCommit(t, h.c, txnCommit("g", 7, 0, 10))
	wantOffsets(t, h.c, "g", 1, 2)
	if u := unstable(h.c, "g", 2); !u[0] || u[1] {
		t.Fatalf("unstable %v, want only t-0", u)
	}
	if ids := h.c.PendingTransactions(); len(ids) != 1 || ids[0] != 7 {
		t.Fatalf("pending transactions %v", ids)
	}
	last := s.recs[len(s.recs)-1]
	if !last.Transactional || last.ProducerID != 7 || last.ProducerEpoch != 0 {
		t.Fatalf("written as %+v", last)
	}
	// An unrelated producer's end changes nothing.
	h.c.CompleteTransaction(8, 0, true)
	wantOffsets(t, h.c, "g", 1, 2)

	s.marker(t, 7, 0, true, "g")
	h.c.CompleteTransaction(7, 0, true)
	wantOffsets(t, h.c, "g", 10, 2)
	if u := unstable(h.c, "g", 2); u[0] || u[1] {
		t.Fatalf("still unstable after commit: %v", u)
	}
	if ids := h.c.PendingTransactions(); len(ids) != 0 {
		t.Fatalf("pending transactions %v", ids)
	}
	// Completing again is a no-op.
	h.c.CompleteTransaction(7, 0, false)
	wantOffsets(t, h.c, "g", 10, 2)
}

func TestTxnOffsetsAbortDrops(t *testing.T) {
	h, s := newTxnHarness(t)
	h.c.CommitOffsets(commit("g", "", -1, 1))
	mustTxnCommit(t, h.c, txnCommit("g", 7, 0, 10, 20))
	mustTxnCommit(t, h.c, txnCommit("other", 7, 0, 30))
	s.marker(t, 7, 0, false, "g", "other")
	h.c.CompleteTransaction(7, 0, false)
	wantOffsets(t, h.c, "g", 1, -1)
	wantOffsets(t, h.c, "other", -1)
	if u := unstable(h.c, "g", 2); u[0] || u[1] {
		t.Fatalf("unstable after abort: %v", u)
	}
}

func TestTxnOffsetsLaterPlainCommitWins(t *testing.T) {
	h, _ := newTxnHarness(t)
	mustTxnCommit(t, h.c, txnCommit("g", 7, 0, 10, 20))
	h.c.CommitOffsets(commit("g", "", -1, 15)) // after the transactional one
	h.c.CompleteTransaction(7, 0, true)
	wantOffsets(t, h.c, "g", 15, 20)
}

func TestTxnOffsetsSpanGroupsAndFencing(t *testing.T) {
	h, s := newTxnHarness(t)
	mustTxnCommit(t, h.c, txnCommit("a", 7, 3, 1))
	mustTxnCommit(t, h.c, txnCommit("b", 7, 3, 2))
	s.marker(t, 7, 4, true, "a", "b") // transaction version 2 bumps the epoch
	h.c.CompleteTransaction(7, 4, true)
	wantOffsets(t, h.c, "a", 1)
	wantOffsets(t, h.c, "b", 2)
	// A zombie at the old epoch is refused by the log.
	top, _, _ := h.c.CommitTransactionalOffsets(txnCommit("a", 7, 3, 9))
	wantErr(t, top, kerr.InvalidProducerEpoch)
	wantOffsets(t, h.c, "a", 1)
	if u := unstable(h.c, "a", 1); u[0] {
		t.Fatal("a refused commit is pending")
	}
	// A marker older than the transaction's offsets leaves them pending.
	mustTxnCommit(t, h.c, txnCommit("a", 7, 5, 3))
	h.c.CompleteTransaction(7, 4, true)
	wantOffsets(t, h.c, "a", 1)
	h.c.CompleteTransaction(7, 5, true)
	wantOffsets(t, h.c, "a", 3)
}

func TestTxnOffsetsValidation(t *testing.T) {
	h, _ := newTxnHarness(t)
	req := txnCommit("", 7, 0, 1)
	top, _, _ := h.c.CommitTransactionalOffsets(req)
	wantErr(t, top, kerr.InvalidGroupID)

	req = txnCommit("missing", 7, 0, 1)
	req.Generation, req.MemberID = 3, "m"
	top, _, _ = h.c.CommitTransactionalOffsets(req)
	wantErr(t, top, kerr.IllegalGeneration)
	if h.c.group("missing", false) != nil {
		t.Fatal("group created by a refused commit")
	}
	// Generation -1 creates the group, empty.
	mustTxnCommit(t, h.c, txnCommit("created", 7, 0, 1))
	if h.state("created") != Empty {
		t.Fatalf("created group is %v", h.state("created"))
	}

	ids, gen := h.stableGroup("live", 2)
	check := func(member string, instance *string, gen int32, want *kerr.Error) {
		t.Helper()
		r := txnCommit("live", 9, 0, 5)
		r.MemberID, r.InstanceID, r.Generation = member, instance, gen
		top, _, _ := h.c.CommitTransactionalOffsets(r)
		wantErr(t, top, want)
	}
	check(ids[1], nil, gen, nil)
	check(ids[1], nil, gen+1, kerr.IllegalGeneration)
	check("stranger", nil, gen, kerr.UnknownMemberID)
	inst := "no-such-instance"
	check(ids[1], &inst, gen, kerr.UnknownMemberID)
	// Versions before 3 carry no member: accepted, as Kafka accepts them.
	check("", nil, -1, nil)

	// Metadata too large is refused per partition.
	big := make([]byte, h.c.cfg.OffsetMetadataMaxBytes+1)
	for i := range big {
		big[i] = 'x'
	}
	md := string(big)
	r := txnCommit("created", 7, 0, 1, 2)
	r.Offsets[1].Metadata = &md
	top, errs, _ := h.c.CommitTransactionalOffsets(r)
	if top != nil || errs[0] != nil || errs[1] != kerr.OffsetMetadataTooLarge {
		t.Fatalf("%v %v", top, errs)
	}
}

func TestTxnOffsetsStaticMemberFenced(t *testing.T) {
	h, _ := newTxnHarness(t)
	inst := "i1"
	req := joinReq("g", "")
	req.InstanceID = &inst
	r := settle(h, h.c.Join(req))
	wantErr(t, r.Err, nil)
	ready(t, h.c.Sync(SyncRequest{GroupID: "g", MemberID: r.MemberID, Generation: r.Generation,
		Assignments: []Assignment{{MemberID: r.MemberID}}}))
	c := txnCommit("g", 7, 0, 1)
	c.MemberID, c.InstanceID, c.Generation = "someone-else", &inst, r.Generation
	top, _, _ := h.c.CommitTransactionalOffsets(c)
	wantErr(t, top, kerr.FencedInstanceID)
	c.MemberID = r.MemberID
	top, _, _ = h.c.CommitTransactionalOffsets(c)
	wantErr(t, top, nil)
}

func TestTxnOffsetsWithoutTxnStore(t *testing.T) {
	h := newHarness(t, testConfig()) // memStore: no AppendTxn
	top, _, _ := h.c.CommitTransactionalOffsets(txnCommit("g", 7, 0, 1))
	wantErr(t, top, kerr.CoordinatorNotAvailable)
}

func TestDeleteGroupDropsPendingOffsets(t *testing.T) {
	h, s := newTxnHarness(t)
	h.c.CommitOffsets(commit("g", "", -1, 1))
	mustTxnCommit(t, h.c, txnCommit("g", 7, 0, 10, 20))
	n := len(s.recs)
	errs, _ := h.c.DeleteGroups([]string{"g"})
	wantErr(t, errs[0], nil)
	// Tombstones for t-0 (committed) and t-1 (only pending), then the
	// group's.
	if got := len(s.recs) - n; got != 3 {
		t.Fatalf("%d records written by the delete", got)
	}
	h.c.CompleteTransaction(7, 0, true)
	if h.c.group("g", false) != nil {
		t.Fatal("the transaction brought the deleted group back")
	}
	c2 := New(testConfig(), Options{Clock: h.clock})
	if _, err := c2.Load(s); err != nil {
		t.Fatal(err)
	}
	c2.CompleteTransaction(7, 0, true)
	wantOffsets(t, c2, "g", -1, -1)
}

func TestLoadHonoursTransactions(t *testing.T) {
	h, s := newTxnHarness(t)
	h.c.CommitOffsets(commit("committed", "", -1, 1))
	h.c.CommitOffsets(commit("aborted", "", -1, 1))
	mustTxnCommit(t, h.c, txnCommit("committed", 7, 0, 10))
	mustTxnCommit(t, h.c, txnCommit("aborted", 8, 0, 10))
	mustTxnCommit(t, h.c, txnCommit("open", 9, 0, 10))
	s.marker(t, 7, 0, true, "committed")
	s.marker(t, 8, 0, false, "aborted")

	c2 := New(testConfig(), Options{Clock: h.clock})
	if skipped, err := c2.Load(s); err != nil || skipped != 0 {
		t.Fatalf("load: %d skipped, %v", skipped, err)
	}
	wantOffsets(t, c2, "committed", 10)
	wantOffsets(t, c2, "aborted", 1)
	wantOffsets(t, c2, "open", -1)
	if u := unstable(c2, "open", 1); !u[0] {
		t.Fatal("the open transaction's offset is not pending after load")
	}
	if ids := c2.PendingTransactions(); len(ids) != 1 || ids[0] != 9 {
		t.Fatalf("pending after load %v", ids)
	}
	// The transaction coordinator completes it after the restart.
	c2.CompleteTransaction(9, 0, true)
	wantOffsets(t, c2, "open", 10)
}

// A marker ends the transaction only in its own partition: a producer's
// later transaction in another partition stays open whatever the replay
// order.
func TestLoadMarkerIsPerPartition(t *testing.T) {
	h, s := newTxnHarness(t)
	a, b := "a", "b"
	for PartitionFor(b, s.partitions) == PartitionFor(a, s.partitions) {
		b += "x"
	}
	mustTxnCommit(t, h.c, txnCommit(a, 7, 0, 1))
	mustTxnCommit(t, h.c, txnCommit(b, 7, 0, 1))
	s.marker(t, 7, 0, true, a, b)
	h.c.CompleteTransaction(7, 0, true)
	mustTxnCommit(t, h.c, txnCommit(b, 7, 0, 2)) // the next transaction, b only

	c2 := New(testConfig(), Options{Clock: h.clock})
	if _, err := c2.Load(s); err != nil {
		t.Fatal(err)
	}
	wantOffsets(t, c2, a, 1)
	wantOffsets(t, c2, b, 1)
	if u := unstable(c2, b, 1); !u[0] {
		t.Fatal("b's open transaction was ended by a's marker")
	}
}

func TestLoadTombstoneDropsPendingOffset(t *testing.T) {
	h, s := newTxnHarness(t)
	h.c.CommitOffsets(commit("g", "", -1, 1))
	mustTxnCommit(t, h.c, txnCommit("g", 7, 0, 10))
	if top, _, _ := h.c.DeleteOffsets("g", []TopicPartition{{"t", 0}}); top != nil {
		t.Fatal(top)
	}
	s.marker(t, 7, 0, true, "g")
	h.c.CompleteTransaction(7, 0, true)
	wantOffsets(t, h.c, "g", -1)
	c2 := New(testConfig(), Options{Clock: h.clock})
	if _, err := c2.Load(s); err != nil {
		t.Fatal(err)
	}
	wantOffsets(t, c2, "g", -1)
}

func TestTxnOffsetCommitDuringRebalance(t *testing.T) {
	h, _ := newTxnHarness(t)
	ids, gen := h.stableGroup("g", 1)
	// A second member starts a rebalance; the first member's
	// transactional commit at the old generation still goes through, as
	// Kafka does not check the state for transactions.
	_, _ = h.joinNew("g")
	r := txnCommit("g", 7, 0, 4)
	r.MemberID, r.Generation = ids[0], gen
	if h.state("g") != PreparingRebalance {
		t.Fatalf("state %v", h.state("g"))
	}
	mustTxnCommit(t, h.c, r)
	if u := unstable(h.c, "g", 1); !u[0] {
		t.Fatal("offset not pending")
	}
}

func TestDeleteOffsetsDropsPendingOnlyOffset(t *testing.T) {
	h, _ := newTxnHarness(t)
	mustTxnCommit(t, h.c, txnCommit("g", 7, 0, 10))
	top, errs, _ := h.c.DeleteOffsets("g", []TopicPartition{{"t", 0}})
	if top != nil || errs[0] != nil {
		t.Fatal(top, errs)
	}
	if u := unstable(h.c, "g", 1); u[0] {
		t.Fatal("deleted offset still pending")
	}
	h.c.CompleteTransaction(7, 0, true)
	wantOffsets(t, h.c, "g", -1)
}
