package group

import (
	"errors"
	"slices"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/twmb/franz-go/pkg/kerr"

	klog "github.com/karst-broker/karst/internal/log"
)

// Offsets committed inside a transaction (TxnOffsetCommit) are written to
// the group's __consumer_offsets partition at once, in a transactional
// batch of the producer, but stay pending: OffsetFetch does not see them
// until the transaction commits. The transaction coordinator writes the
// commit or abort marker into that partition and then calls
// CompleteTransaction, which makes them the group's offsets or drops
// them. Load does the same from the log: transactional records wait for
// their producer's marker.

// offsetState is the coordinator's part of the transactional offsets
// (and the offset expiry schedule, expiry.go).
type offsetState struct {
	mu sync.Mutex
	// openTxns maps a producer id to the groups holding offsets of its
	// open transaction. Lock order: a group's mu, then this mu.
	openTxns map[int64]map[string]struct{}
	// nextExpiry is when Tick next looks for expired offsets.
	nextExpiry time.Time
}

// groupTxnOffsets is a group's offsets of open transactions, by
// producer id; guarded by the group's mu.
type groupTxnOffsets struct {
	pending map[int64]*txnPending
}

type txnPending struct {
	epoch   int16
	offsets map[TopicPartition]pendingOffset
}

type pendingOffset struct {
	CommittedOffset
	// superseded: a plain commit of the partition came after this one,
	// so committing the transaction keeps the later, plain offset (as
	// Kafka keeps whichever record is last in the log).
	superseded bool
}

// TxnCommitRequest is a TxnOffsetCommit. Generation, MemberID and
// InstanceID come with v3+; older versions leave them -1, "" and nil.
type TxnCommitRequest struct {
	TransactionalID string
	GroupID         string
	ProducerID      int64
	ProducerEpoch   int16
	MemberID        string
	InstanceID      *string
	Generation      int32
	Offsets         []OffsetToCommit
}

// CommitTransactionalOffsets validates a TxnOffsetCommit and writes its
// offsets to the group's partition in a transactional batch of the
// producer; they stay pending until CompleteTransaction. The first result
// applies to every partition; otherwise one error per offset (nil for
// stored). The caller waits on the Durable before answering.
//
// A group that does not exist is created (empty) for generation -1, as
// Kafka does for simple consumers; the group's state is not checked
// beyond the member, since Kafka does not enforce it for transactions.
func (c *Coordinator) CommitTransactionalOffsets(req TxnCommitRequest) (*kerr.Error, []*kerr.Error, Durable) {
	if req.GroupID == "" {
		return kerr.InvalidGroupID, nil, noWait
	}
	if err := c.unavailable(req.GroupID); err != nil {
		return err, nil, noWait
	}
	g := c.group(req.GroupID, false)
	if g == nil {
		if req.Generation >= 0 {
			return kerr.IllegalGeneration, nil, noWait
		}
		g = c.group(req.GroupID, true)
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if err := g.validateTxnCommit(req); err != nil {
		return err, nil, noWait
	}
	now := c.clock.Now().UnixMilli()
	errs := make([]*kerr.Error, len(req.Offsets))
	var recs []Record
	for i, o := range req.Offsets {
		co := CommittedOffset{Offset: o.Offset, LeaderEpoch: o.LeaderEpoch, CommitTimestamp: now}
		if o.Metadata != nil {
			co.Metadata = *o.Metadata
		}
		if utf8.RuneCountInString(co.Metadata) > c.cfg.OffsetMetadataMaxBytes {
			errs[i] = kerr.OffsetMetadataTooLarge
			continue
		}
		recs = append(recs, Record{Key: offsetCommitKey(g.id, o.TopicPartition), Value: offsetCommitValue(co)})
	}
	if len(recs) == 0 {
		return nil, errs, noWait
	}
	// The offsets are pending once the batch is durable, replayed as a
	// load replays it.
	wait, err := g.appendWrite(recs, nil, &txnProducer{id: req.ProducerID, epoch: req.ProducerEpoch})
	if err != nil {
		c.logger.Warn("writing transactional offsets", "group", g.id, "producer", req.ProducerID, "err", err)
		return txnAppendError(err), nil, noWait
	}
	return nil, errs, wait
}

// txnAppendError is what a failed transactional write answers: the log
// refuses a batch of a fenced (older) producer epoch.
func txnAppendError(err error) *kerr.Error {
	var ke *kerr.Error
	switch {
	case errors.As(err, &ke):
		return ke
	case errors.Is(err, klog.ErrInvalidProducerEpoch):
		return kerr.InvalidProducerEpoch
	case errors.Is(err, klog.ErrInvalidTxnState):
		return kerr.InvalidTxnState
	}
	return kerr.CoordinatorNotAvailable
}

// validateTxnCommit is validateCommit for transactions, as Kafka's
// ClassicGroup.validateOffsetCommit with isTransactional: a request
// without a generation or member is accepted in any state, and a
// rebalance in progress does not refuse it. A consumer group's stale
// member epoch is ILLEGAL_GENERATION here.
func (g *classicGroup) validateTxnCommit(req TxnCommitRequest) *kerr.Error {
	if g.state == Dead {
		return kerr.CoordinatorNotAvailable
	}
	if cg := g.c.activeConsumerGroup(g); cg != nil {
		err := cg.validateCommit(CommitRequest{GroupID: req.GroupID, MemberID: req.MemberID,
			InstanceID: req.InstanceID, Generation: req.Generation})
		if err == kerr.StaleMemberEpoch {
			return kerr.IllegalGeneration
		}
		return err
	}
	if req.Generation < 0 && g.state == Empty {
		return nil
	}
	if req.Generation >= 0 || req.MemberID != "" || req.InstanceID != nil {
		if err := g.validateMember(req.MemberID, req.InstanceID); err != nil {
			return err
		}
		if req.Generation != g.generation {
			return kerr.IllegalGeneration
		}
	}
	return nil
}

// addPending records an offset of the producer's open transaction; the
// caller holds g.mu.
func (g *classicGroup) addPending(producerID int64, epoch int16, tp TopicPartition, o CommittedOffset) {
	if g.txn.pending == nil {
		g.txn.pending = map[int64]*txnPending{}
	}
	p := g.txn.pending[producerID]
	if p == nil {
		p = &txnPending{offsets: map[TopicPartition]pendingOffset{}}
		g.txn.pending[producerID] = p
		g.c.indexTxn(producerID, g.id)
	}
	p.epoch = max(p.epoch, epoch)
	p.offsets[tp] = pendingOffset{CommittedOffset: o}
}

// setOffset stores a plain (non-transactional) commit; the caller holds
// g.mu.
func (g *classicGroup) setOffset(tp TopicPartition, o CommittedOffset) {
	g.offsets[tp] = o
	for _, p := range g.txn.pending {
		if po, ok := p.offsets[tp]; ok {
			po.superseded = true
			p.offsets[tp] = po
		}
	}
}

// deleteOffset applies an offset tombstone: it removes the committed
// offset and the partition's pending ones, as Kafka's replay does.
func (g *classicGroup) deleteOffset(tp TopicPartition) {
	delete(g.offsets, tp)
	for _, p := range g.txn.pending {
		delete(p.offsets, tp)
	}
}

// offsetTombstones deletes every offset of the group, committed or
// pending (a partition only once), as Kafka's deleteAllOffsets.
func (g *classicGroup) offsetTombstones() []Record {
	seen := make(map[TopicPartition]bool, len(g.offsets))
	tps := make([]TopicPartition, 0, len(g.offsets))
	add := func(tp TopicPartition) {
		if !seen[tp] {
			seen[tp] = true
			tps = append(tps, tp)
		}
	}
	for tp := range g.offsets {
		add(tp)
	}
	for _, p := range g.txn.pending {
		for tp := range p.offsets {
			add(tp)
		}
	}
	for _, tp := range g.unappliedPartitions() {
		add(tp)
	}
	slices.SortFunc(tps, compareTP)
	recs := make([]Record, len(tps), len(tps)+1)
	for i, tp := range tps {
		recs[i] = Record{Key: offsetCommitKey(g.id, tp)}
	}
	return recs
}

// hasPending reports whether an open transaction holds an offset of tp.
func (g *classicGroup) hasPending(tp TopicPartition) bool {
	for _, p := range g.txn.pending {
		if _, ok := p.offsets[tp]; ok {
			return true
		}
	}
	return false
}

// completeTxn commits or aborts the producer's pending offsets in g; the
// caller holds g.mu. It reports false (and keeps them) when the marker's
// epoch is older than the transaction's, which a marker the log accepted
// cannot be.
func (g *classicGroup) completeTxn(producerID int64, epoch int16, commit bool) bool {
	// Plain commits appended before the marker and durable with it are
	// replayed first, so the log's order decides which offset stands.
	g.catchUp()
	p := g.txn.pending[producerID]
	if p == nil {
		return true
	}
	if epoch >= 0 && epoch < p.epoch {
		g.c.logger.Warn("transaction marker older than the transaction's offsets", "group", g.id,
			"producer", producerID, "marker epoch", epoch, "epoch", p.epoch)
		return false
	}
	delete(g.txn.pending, producerID)
	if !commit {
		return true
	}
	if g.state == Dead {
		g.state = Empty
	}
	for tp, o := range p.offsets {
		if !o.superseded {
			g.offsets[tp] = o.CommittedOffset
		}
	}
	return true
}

// indexTxn notes that group holds offsets of the producer's transaction.
func (c *Coordinator) indexTxn(producerID int64, groupID string) {
	s := &c.offsetState
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.openTxns == nil {
		s.openTxns = map[int64]map[string]struct{}{}
	}
	gs := s.openTxns[producerID]
	if gs == nil {
		gs = map[string]struct{}{}
		s.openTxns[producerID] = gs
	}
	gs[groupID] = struct{}{}
}

// unindexTxn forgets that group holds offsets of the producer's
// transaction (its only write of them was lost).
func (c *Coordinator) unindexTxn(producerID int64, groupID string) {
	s := &c.offsetState
	s.mu.Lock()
	defer s.mu.Unlock()
	if gs := s.openTxns[producerID]; gs != nil {
		delete(gs, groupID)
		if len(gs) == 0 {
			delete(s.openTxns, producerID)
		}
	}
}

// takeTxn removes and returns the groups holding offsets of the
// producer's transaction, ordered by id.
func (c *Coordinator) takeTxn(producerID int64) []string {
	s := &c.offsetState
	s.mu.Lock()
	defer s.mu.Unlock()
	gs := s.openTxns[producerID]
	delete(s.openTxns, producerID)
	out := make([]string, 0, len(gs))
	for id := range gs {
		out = append(out, id)
	}
	slices.Sort(out)
	return out
}

// CompleteTransaction ends the producer's transaction in every group it
// committed offsets to: commit makes its pending offsets the groups'
// committed offsets, abort drops them. The transaction coordinator calls
// it once the commit or abort marker (record.BuildMarker, with this
// producer id and epoch) is written to the groups' __consumer_offsets
// partitions, so that the log and memory agree after a restart. A
// producer with nothing pending is a no-op.
func (c *Coordinator) CompleteTransaction(producerID int64, producerEpoch int16, commit bool) {
	for _, id := range c.takeTxn(producerID) {
		g := c.group(id, false)
		if g == nil {
			continue // deleted since
		}
		g.mu.Lock()
		if !g.completeTxn(producerID, producerEpoch, commit) {
			c.indexTxn(producerID, id)
		}
		g.mu.Unlock()
	}
}

// PendingTransactions lists the producer ids with offsets of an open
// transaction in some group, ascending: the transaction coordinator can
// compare them with the transactions it knows after a restart.
func (c *Coordinator) PendingTransactions() []int64 {
	s := &c.offsetState
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]int64, 0, len(s.openTxns))
	for pid := range s.openTxns {
		out = append(out, pid)
	}
	slices.Sort(out)
	return out
}
