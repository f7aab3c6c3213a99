package group

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/karst-broker/karst/internal/coordinator"
	klog "github.com/karst-broker/karst/internal/log"
	"github.com/karst-broker/karst/internal/metadata"
	"github.com/karst-broker/karst/internal/storage"
)

// OffsetsTopic is the Store the broker uses: the partitions of
// __consumer_offsets on the coordinator runtime, one shard per partition,
// as the transaction coordinator runs __transaction_state. The runtime
// writes a group's records (the records of one partition's groups that
// arrive while a batch waits for the disk go out together in the next
// append), loads a partition by replaying it through the group
// coordinator's one replay (replayStored), and unloads it (its groups
// resigned, NOT_COORDINATOR until it is loaded again).
//
// A shard's groups and offsets are its groupShard, which its load fills
// and its unload drops; each group has its own lock, and replays its own
// writes once they are durable (catchUp), so a shard replays only at load.
type OffsetsTopic struct {
	meta *metadata.Store
	logs OffsetsLogs

	mu sync.Mutex
	c  *Coordinator
	rt *coordinator.Runtime[*offsetsShard]
}

// OffsetsLogs are the partitions of __consumer_offsets: the broker's
// coordinator.TopicLogs, or logs in memory in tests.
type OffsetsLogs interface {
	coordinator.Logs
	// Ensure creates the topic if it does not exist.
	Ensure() error
	// Partitions is the topic's partition count, 0 while it does not
	// exist.
	Partitions() int32
}

// NewOffsetsStore returns the store over logs, with no topic metadata
// (KIP-848 groups then read the topics from Options.Topics).
func NewOffsetsStore(logs OffsetsLogs) *OffsetsTopic { return &OffsetsTopic{logs: logs} }

// NewOffsetsTopic returns the store over the broker's metadata and logs;
// New attaches it to its coordinator.
func NewOffsetsTopic(meta *metadata.Store, logs *storage.Manager, partitions, segmentBytes int32) *OffsetsTopic {
	if partitions <= 0 {
		partitions = DefaultConfig().OffsetsTopicPartitions
	}
	return &OffsetsTopic{meta: meta, logs: coordinator.NewTopicLogs(meta, logs, coordinator.TopicSpec{
		Name: metadata.ConsumerOffsetsTopic, Partitions: partitions, Compression: "producer", SegmentBytes: segmentBytes})}
}

// attach runs the topic's partitions for c.
func (o *OffsetsTopic) attach(c *Coordinator) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.c = c
	// The shards' timers (the groups' deadlines, shard_timers.go) read the
	// coordinator's clock, which their deadlines are set in.
	o.rt = coordinator.New(coordinator.Options[*offsetsShard]{Logs: o.logs, Logger: c.logger, Clock: runtimeClock(c.clock),
		NewShard: func(ctx *coordinator.Context) *offsetsShard {
			l := newPartitionLoad(c.clock.Now(), ctx.Partition(), o.logs.Partitions())
			return &offsetsShard{c: c, ctx: ctx, partitions: l.partitions, load: l, groups: l.shard}
		}})
}

func (o *OffsetsTopic) runtime() *coordinator.Runtime[*offsetsShard] {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.rt
}

// Ensure creates __consumer_offsets if it does not exist, and loads its
// partitions not loaded yet (a topic created anew after a deletion).
func (o *OffsetsTopic) Ensure() error {
	if err := o.logs.Ensure(); err != nil {
		return err
	}
	if rt := o.runtime(); rt != nil {
		for p := range o.logs.Partitions() {
			if !rt.Loaded(p) && rt.Failed(p) == nil {
				if _, err := o.loadPartition(rt, p); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// Append writes records to the group's partition (Store); they join the
// partition's next batch. The coordinator's own writes go through submit,
// with their group, and so do its transactional batches (TxnOffsetCommit),
// which the log refuses with ErrInvalidProducerEpoch when the producer's
// epoch is older than the last it saw in the partition.
func (o *OffsetsTopic) Append(groupID string, recs []Record) (Durable, error) {
	return o.submit(&classicGroup{id: groupID}, recs, nil)
}

// errResigned: the group's partition was unloaded since the request found
// the group.
var errResigned = errors.New("group: the group's partition was unloaded")

func (o *OffsetsTopic) submit(g *classicGroup, recs []Record, producer *coordinator.Producer) (Durable, error) {
	groupID := g.id
	rt := o.runtime()
	if rt == nil {
		return nil, errors.New("group: __consumer_offsets is not attached to a coordinator")
	}
	n := o.logs.Partitions()
	if n == 0 {
		// The first write creates the topic, as Kafka's first
		// FindCoordinator does, and loads its partitions, new and empty:
		// their load touches no group (the caller holds its group's
		// lock). A partition of a topic that exists is loaded at start
		// or by EnsureStorage, never here: its replay may take the
		// caller's group's lock.
		if err := o.Ensure(); err != nil {
			return nil, fmt.Errorf("group: %w", err)
		}
		n = o.logs.Partitions()
	}
	p := PartitionFor(groupID, n)
	done, _, err := coordinator.Submit(rt, p, func(*offsetsShard) (coordinator.Result[struct{}], error) {
		// Checked under the shard's lock: a group resigned by the unload
		// of this partition's shard before it was loaded again is not
		// written to the new one; one resigned by this shard's unload
		// later is, and that unload's next load replays it.
		if g.resigned.Load() {
			return coordinator.Result[struct{}]{}, errResigned
		}
		return coordinator.Result[struct{}]{Records: recs, Producer: producer}, nil
	})
	if err != nil {
		return nil, fmt.Errorf("group: %s-%d: %w", metadata.ConsumerOffsetsTopic, p, err)
	}
	wait := durableOf(done)
	// An append the log refused (a fenced producer epoch) is answered by
	// the time Submit returns when no batch was ahead of it.
	if err := wait(notWaiting); err != nil && !errors.Is(err, context.Canceled) {
		return nil, err
	}
	return wait, nil
}

// durableOf is a Durable over the runtime's answer to one write, which
// any number of callers may ask, waiting or not.
func durableOf(done <-chan error) Durable {
	ended := make(chan struct{})
	var once sync.Once
	var result error
	end := func(err error) error {
		once.Do(func() { result = fencedAppend(err); close(ended) })
		<-ended
		return result
	}
	return func(ctx context.Context) error {
		select {
		case <-ended:
			return result
		case err := <-done:
			return end(err)
		case <-ctx.Done():
			select { // an answer there already wins over a done ctx
			case <-ended:
				return result
			case err := <-done:
				return end(err)
			default:
				return ctx.Err()
			}
		}
	}
}

// fencedAppend keeps a log's refusal of a producer's batch recognisable
// through the runtime's wrapping, for TxnOffsetCommit to answer it.
func fencedAppend(err error) error {
	switch {
	case errors.Is(err, klog.ErrInvalidProducerEpoch), errors.Is(err, klog.ErrInvalidTxnState):
		return txnAppendError(err)
	}
	return err
}

// LoadAll loads every partition of __consumer_offsets, as a broker does at
// start. A partition that cannot be read to its end is left offline alone
// (its groups answer NOT_COORDINATOR, as Kafka's runtime leaves it
// FAILED) and is not an error.
func (o *OffsetsTopic) LoadAll() (skipped int, err error) {
	rt := o.runtime()
	if rt == nil {
		return 0, errors.New("group: __consumer_offsets is not attached to a coordinator")
	}
	n := o.logs.Partitions()
	var failed []*PartitionLoadError
	for p := range n {
		k, err := o.loadPartition(rt, p)
		if err != nil {
			failed = append(failed, &PartitionLoadError{Partition: p, Partitions: n, Err: err})
			continue
		}
		skipped += k
	}
	o.c.takeOffline(failed)
	return skipped, nil
}

// loadPartition loads one partition and says how many malformed records
// its replay skipped.
func (o *OffsetsTopic) loadPartition(rt *coordinator.Runtime[*offsetsShard], p int32) (int, error) {
	if err := rt.Load(p); err != nil {
		return 0, err
	}
	return coordinator.Read(rt, p, func(s *offsetsShard) (int, error) { return s.skipped, nil })
}

// Reload unloads one partition and loads it again from its log, as a move
// of its leadership away and back would.
func (o *OffsetsTopic) Reload(p int32) error {
	rt := o.runtime()
	if rt == nil {
		return errors.New("group: __consumer_offsets is not attached to a coordinator")
	}
	rt.Unload(p)
	_, err := o.loadPartition(rt, p)
	return err
}

// unloadAll unloads every partition (the topic was deleted).
func (o *OffsetsTopic) unloadAll() {
	if rt := o.runtime(); rt != nil {
		rt.UnloadAll()
	}
}

// offsetsShard is one loaded partition of __consumer_offsets.
type offsetsShard struct {
	c   *Coordinator
	ctx *coordinator.Context
	// partitions is the topic's partition count when the shard was made,
	// which its group ids hash over.
	partitions int32
	// groups is the partition's groups and offsets, filled by the
	// replay and served from OnLoaded until the unload drops them.
	groups *groupShard
	// load is the replay at load; nil once the partition is loaded.
	load    *partitionLoad
	skipped int
}

// Replay applies a record of the partition at load. A record the
// coordinator writes afterwards is replayed by its group once durable.
func (s *offsetsShard) Replay(e coordinator.Entry) error {
	if s.load == nil {
		return nil
	}
	s.c.replayStored(s.load, StoredRecord{Key: e.Key, Value: e.Value, Partition: s.ctx.Partition(),
		ProducerID: e.Producer.ID, ProducerEpoch: e.Producer.Epoch, Transactional: e.Transactional,
		Marker: e.Marker, Commit: e.Commit})
	return nil
}

// OnLoaded settles the groups the replay brought back and serves the
// partition again; it runs out of the shard's lock, since it takes the
// groups' locks, which writers hold while they wait for the shard's.
func (s *offsetsShard) OnLoaded() {
	l := s.load
	s.load, s.skipped = nil, l.skipped
	p := s.ctx.Partition()
	s.scheduleExpiry()
	s.ctx.Defer(func() {
		s.c.finishLoad(l)
		s.c.clearResigned(p, s.partitions)
		s.c.logger.Info("loaded a partition of the group coordinator", "partition", p, "groups", len(s.c.groupsOf(s.groups)), "skipped", l.skipped)
	})
}

// expiryKey is the key of a shard's offset expiry timer, Kafka's.
const expiryKey = "expire-group-metadata"

// scheduleExpiry sets the shard's offset expiry to run one
// offsets.retention.check.interval.ms from now, over the partition's
// groups, and then again every interval, as Kafka's shard schedules its
// cleanupGroupMetadata; the caller holds the shard's lock.
func (s *offsetsShard) scheduleExpiry() {
	s.ctx.Schedule(expiryKey, s.c.expiryInterval(), func() ([]coordinator.Record, error) {
		s.scheduleExpiry()
		// The groups' locks come before the shard's.
		s.ctx.Defer(func() {
			s.c.expireOffsetsOf(s.c.clock.Now(), s.c.groupsOf(s.groups))
		})
		return nil, nil
	})
}

// OnUnloaded resigns the partition's groups: they answer NOT_COORDINATOR
// until it is loaded again, and members waiting in a join or a sync are
// told so.
func (s *offsetsShard) OnUnloaded() {
	gone := s.c.resign(s.ctx.Partition(), s.partitions)
	s.ctx.Defer(func() {
		s.c.logger.Info("unloaded a partition of the group coordinator", "partition", s.ctx.Partition(), "groups", len(gone))
		s.c.retire(gone)
	})
}
