package group

import (
	"context"
	"errors"
	"slices"
	"time"
	"unicode/utf8"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// OffsetToCommit is one partition of an OffsetCommit.
type OffsetToCommit struct {
	TopicPartition
	Offset      int64
	LeaderEpoch int32
	Metadata    *string
	// CommitTimestamp is OffsetCommit v1's client-given commit time (ms),
	// which Kafka 3.x stored as the offset's commit time, so that expiry
	// counts from it; nil (or v1's -1) takes the coordinator's clock.
	CommitTimestamp *int64
}

// CommitRequest is an OffsetCommit. Generation -1 with no member id is a
// "simple" commit from outside group management, accepted when the group
// is empty.
type CommitRequest struct {
	GroupID    string
	MemberID   string
	InstanceID *string
	Generation int32
	Offsets    []OffsetToCommit
	// UnknownGroupNotFound answers a commit with a generation to a group
	// that does not exist with GROUP_ID_NOT_FOUND (OffsetCommit v9+)
	// rather than ILLEGAL_GENERATION.
	UnknownGroupNotFound bool
}

// CommitOffsets validates and stores a commit. The first result applies
// to every partition; otherwise the slice holds one error per offset
// (nil for stored). The caller waits on the Durable before answering.
func (c *Coordinator) CommitOffsets(req CommitRequest) (*kerr.Error, []*kerr.Error, Durable) {
	if req.GroupID == "" {
		return kerr.InvalidGroupID, nil, noWait
	}
	if err := c.unavailable(req.GroupID); err != nil {
		return err, nil, noWait
	}
	g := c.group(req.GroupID, false)
	if g == nil {
		switch {
		case req.Generation < 0:
			g = c.group(req.GroupID, true)
		case req.UnknownGroupNotFound:
			return kerr.GroupIDNotFound, nil, noWait
		default:
			return kerr.IllegalGeneration, nil, noWait
		}
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if c.isShareGroup(g) {
		// A share group keeps no offsets here: Kafka's ShareGroup answers
		// "is not a consumer group".
		return kerr.GroupIDNotFound, nil, noWait
	}
	if err := g.validateCommit(req); err != nil {
		return err, nil, noWait
	}
	now := c.clock.Now()
	errs := make([]*kerr.Error, len(req.Offsets))
	var recs []Record
	var stored []int
	for i, o := range req.Offsets {
		md := ""
		if o.Metadata != nil {
			md = *o.Metadata
		}
		if utf8.RuneCountInString(md) > c.cfg.OffsetMetadataMaxBytes {
			errs[i] = kerr.OffsetMetadataTooLarge
			continue
		}
		co := CommittedOffset{Offset: o.Offset, LeaderEpoch: o.LeaderEpoch, Metadata: md, CommitTimestamp: now.UnixMilli()}
		if o.CommitTimestamp != nil {
			co.CommitTimestamp = *o.CommitTimestamp
		}
		recs = append(recs, Record{Key: offsetCommitKey(g.id, o.TopicPartition), Value: offsetCommitValue(co)})
		stored = append(stored, i)
	}
	wait, err := g.appendRecords(recs)
	if err != nil {
		c.logger.Warn("writing offsets", "group", g.id, "err", err)
		for _, i := range stored {
			errs[i] = kerr.CoordinatorNotAvailable
		}
		return nil, errs, noWait
	}
	return nil, errs, wait
}

func (g *classicGroup) validateCommit(req CommitRequest) *kerr.Error {
	if g.state == Dead {
		return kerr.CoordinatorNotAvailable
	}
	if cg := g.c.activeConsumerGroup(g); cg != nil {
		return cg.validateCommit(req)
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
	} else if g.state != Empty {
		return kerr.UnknownMemberID
	}
	if g.state == CompletingRebalance {
		return kerr.RebalanceInProgress
	}
	return nil
}

// FetchedOffset is a committed offset as OffsetFetch returns it; Offset
// -1 means none. Err is UNSTABLE_OFFSET_COMMIT for a partition an open
// transaction committed to, when stable offsets were asked for.
type FetchedOffset struct {
	TopicPartition
	CommittedOffset
	Err *kerr.Error
}

// FetchOffsets returns a group's committed offsets: of the given
// partitions (those without a commit get offset -1), or of every
// partition when partitions is nil. Offsets of open transactions are
// not visible.
func (c *Coordinator) FetchOffsets(groupID string, partitions []TopicPartition) (*kerr.Error, []FetchedOffset) {
	return c.fetchOffsets(groupID, partitions, false)
}

// FetchStableOffsets is FetchOffsets with require_stable (OffsetFetch
// v7+, KIP-447): a partition with an offset of an open transaction
// answers UNSTABLE_OFFSET_COMMIT and offset -1, so the client asks again
// once the transaction ended.
func (c *Coordinator) FetchStableOffsets(groupID string, partitions []TopicPartition) (*kerr.Error, []FetchedOffset) {
	return c.fetchOffsets(groupID, partitions, true)
}

func (c *Coordinator) fetchOffsets(groupID string, partitions []TopicPartition, stable bool) (*kerr.Error, []FetchedOffset) {
	if err := c.unavailable(groupID); err != nil {
		return err, nil
	}
	g := c.group(groupID, false)
	if g == nil {
		return nil, unknownOffsets(partitions)
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.state == Dead || c.isShareGroup(g) {
		return kerr.GroupIDNotFound, nil
	}
	g.catchUp()
	var out []FetchedOffset
	if partitions == nil {
		out = make([]FetchedOffset, 0, len(g.offsets))
		for tp, o := range g.offsets {
			out = append(out, FetchedOffset{TopicPartition: tp, CommittedOffset: o})
		}
		slices.SortFunc(out, func(a, b FetchedOffset) int { return compareTP(a.TopicPartition, b.TopicPartition) })
	} else {
		out = unknownOffsets(partitions)
		for i := range out {
			if o, ok := g.offsets[out[i].TopicPartition]; ok {
				out[i].CommittedOffset = o
			}
		}
	}
	if stable && (len(g.txn.pending) > 0 || g.unappliedTxn(-1)) {
		for i := range out {
			// A transactional batch not durable yet is an open
			// transaction too: Kafka's require_stable fetch reads the
			// latest state once it is durable, so it sees it pending.
			if tp := out[i].TopicPartition; g.hasPending(tp) || g.unappliedTxnCommit(tp) {
				out[i].CommittedOffset = CommittedOffset{Offset: -1, LeaderEpoch: -1}
				out[i].Err = kerr.UnstableOffsetCommit
			}
		}
	}
	return nil, out
}

func unknownOffsets(partitions []TopicPartition) []FetchedOffset {
	out := make([]FetchedOffset, len(partitions))
	for i, tp := range partitions {
		out[i] = FetchedOffset{TopicPartition: tp, CommittedOffset: CommittedOffset{Offset: -1, LeaderEpoch: -1}}
	}
	return out
}

func compareTP(a, b TopicPartition) int {
	switch {
	case a.Topic < b.Topic:
		return -1
	case a.Topic > b.Topic:
		return 1
	}
	return int(a.Partition) - int(b.Partition)
}

// DeleteOffsets removes committed offsets (OffsetDelete). A group with
// members may only lose offsets of topics it is not subscribed to, and
// only if it uses the consumer protocol.
func (c *Coordinator) DeleteOffsets(groupID string, partitions []TopicPartition) (*kerr.Error, []*kerr.Error, Durable) {
	if err := c.unavailable(groupID); err != nil {
		return err, nil, noWait
	}
	g := c.group(groupID, false)
	if g == nil {
		return kerr.GroupIDNotFound, nil, noWait
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if c.isShareGroup(g) {
		return kerr.GroupIDNotFound, nil, noWait
	}
	switch g.state {
	case Dead:
		return kerr.GroupIDNotFound, nil, noWait
	case Stable, PreparingRebalance, CompletingRebalance:
		if g.protocolType != "consumer" {
			return kerr.NonEmptyGroup, nil, noWait
		}
	}
	g.catchUp()
	subscribed := g.subscribedTopics()
	errs := make([]*kerr.Error, len(partitions))
	var recs []Record
	for i, tp := range partitions {
		if g.state != Empty && (subscribed == nil || subscribed[tp.Topic]) {
			errs[i] = kerr.GroupSubscribedToTopic
			continue
		}
		// Kafka also writes the tombstone for an offset that is only
		// pending in a transaction, which drops it.
		if _, ok := g.offsets[tp]; ok || g.hasPending(tp) || g.unappliedCommit(tp) {
			recs = append(recs, Record{Key: offsetCommitKey(g.id, tp)})
		}
	}
	wait, err := g.appendRecords(recs)
	if err != nil {
		return kerr.CoordinatorNotAvailable, nil, noWait
	}
	return nil, errs, wait
}

// subscribedTopics reads the members' consumer-protocol subscriptions;
// nil when one cannot be read.
func (g *classicGroup) subscribedTopics() map[string]bool {
	out := map[string]bool{}
	for _, m := range g.members {
		meta := m.metadataFor(g.protocol)
		if g.protocol == "" && len(m.protocols) > 0 {
			meta = m.protocols[0].Metadata
		}
		var s kmsg.ConsumerMemberMetadata
		if err := s.ReadFrom(meta); err != nil {
			return nil
		}
		for _, t := range s.Topics {
			out[t] = true
		}
	}
	return out
}

// DeleteGroups deletes empty groups and their offsets; one error (nil:
// deleted) per group id.
func (c *Coordinator) DeleteGroups(ids []string) ([]*kerr.Error, Durable) {
	errs := make([]*kerr.Error, len(ids))
	var waits []Durable
	for i, id := range ids {
		if errs[i] = c.unavailable(id); errs[i] != nil {
			continue
		}
		g := c.group(id, false)
		if g == nil {
			errs[i] = kerr.GroupIDNotFound
			continue
		}
		g.mu.Lock()
		if sg := c.shareGroupOf(g, false); sg != nil {
			if err, wait := c.deleteShareGroup(g, sg); err != nil {
				errs[i] = err
			} else {
				waits = append(waits, wait)
			}
			g.mu.Unlock()
			continue
		}
		if c.activeConsumerGroup(g) != nil {
			errs[i] = kerr.NonEmptyGroup
			g.mu.Unlock()
			continue
		}
		switch g.state {
		case Dead:
			errs[i] = kerr.GroupIDNotFound
		case Stable, PreparingRebalance, CompletingRebalance:
			errs[i] = kerr.NonEmptyGroup
		default:
			g.catchUp()
			recs := append(g.offsetTombstones(), g.groupTombstones(c.consumerGroupOf(g, false))...)
			wait, err := g.appendRecords(recs)
			if err != nil {
				errs[i] = kerr.CoordinatorNotAvailable
				break
			}
			waits = append(waits, wait)
			g.transition(Dead, c.clock.Now())
			g.offsets = map[TopicPartition]CommittedOffset{}
			g.txn = groupTxnOffsets{}
			g.pending = map[string]time.Time{}
			c.dropConsumerGroup(g)
			c.drop(g)
		}
		g.mu.Unlock()
	}
	return errs, func(ctx context.Context) error {
		var errs []error
		for _, w := range waits {
			errs = append(errs, w(ctx))
		}
		return errors.Join(errs...)
	}
}
