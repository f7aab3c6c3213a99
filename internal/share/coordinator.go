package share

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"time"

	"github.com/karst-broker/karst/internal/config"
	"github.com/karst-broker/karst/internal/coordinator"
	"github.com/karst-broker/karst/internal/group"
	"github.com/karst-broker/karst/internal/metadata"
	"github.com/karst-broker/karst/internal/storage"
)

// DefaultUpdatesPerSnapshot is Kafka's
// share.coordinator.snapshot.update.records.per.snapshot.
const DefaultUpdatesPerSnapshot = 500

// ErrUnknownState answers a read or write of a share-partition the
// coordinator holds no state for where Kafka answers it so.
var ErrUnknownState = errors.New("share: no state for the share-partition")

// StateTopic is __share_group_state as Kafka creates it: with
// share.coordinator.state.topic.num.partitions partitions, cleanup.policy
// delete and retention.ms -1, not compacted: the share coordinator's
// pruning alone deletes what every share-partition has a later snapshot of.
func StateTopic(configs *config.LogConfigs) coordinator.TopicSpec {
	return coordinator.TopicSpec{Name: metadata.ShareGroupStateTopic, Compression: "uncompressed", Configs: configs,
		PartitionsKey: "share.coordinator.state.topic.num.partitions", SegmentBytesKey: "share.coordinator.state.topic.segment.bytes",
		TopicConfigs: map[string]string{"cleanup.policy": "delete", "retention.ms": "-1"}}
}

// NewStateLogs returns the broker's __share_group_state, created on first
// use.
func NewStateLogs(meta *metadata.Store, logs *storage.Manager, configs *config.LogConfigs) *coordinator.TopicLogs {
	return coordinator.NewTopicLogs(meta, logs, StateTopic(configs))
}

// CoordinatorOptions configure a Coordinator.
type CoordinatorOptions struct {
	// Logs are the partitions of __share_group_state; nil keeps them in
	// memory.
	Logs coordinator.Logs
	// Partitions is the partition count before the topic exists.
	Partitions int32
	// UpdatesPerSnapshot: every that many ShareUpdate records of a
	// share-partition, a ShareSnapshot is written instead (0: every write
	// is a snapshot; below 0: DefaultUpdatesPerSnapshot).
	UpdatesPerSnapshot int
	// PruneInterval is share.coordinator.state.topic.prune.interval.ms:
	// how often the records every share-partition has a later snapshot
	// of are deleted (0: never, as a test's coordinator does).
	PruneInterval time.Duration
	// ColdSnapshotInterval is
	// share.coordinator.cold.partition.snapshot.interval.ms: a
	// share-partition whose last snapshot is that old is snapshotted
	// again (cold.go; 0: never).
	ColdSnapshotInterval time.Duration
	Clock                coordinator.Clock
	Logger               *slog.Logger
}

// Coordinator is the share coordinator: the durable state of the
// share-partitions whose __share_group_state partitions are loaded here
// (with a single node, all of them).
type Coordinator struct {
	opts  CoordinatorOptions
	rt    *coordinator.Runtime[*stateShard]
	prune pruner
}

// NewCoordinator returns a coordinator; its partitions load on first use
// (or with Load at start).
func NewCoordinator(opts CoordinatorOptions) *Coordinator {
	if opts.Logs == nil {
		opts.Logs = coordinator.NewMemoryLogs()
	}
	if opts.Partitions <= 0 {
		opts.Partitions = 50
	}
	if opts.UpdatesPerSnapshot < 0 {
		opts.UpdatesPerSnapshot = DefaultUpdatesPerSnapshot
	}
	if opts.Clock == nil {
		opts.Clock = coordinator.SystemClock{}
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	c := &Coordinator{opts: opts, prune: pruner{pruned: map[int32]int64{}}}
	c.rt = coordinator.New(coordinator.Options[*stateShard]{Logs: opts.Logs, Clock: opts.Clock, Logger: opts.Logger,
		NewShard: func(ctx *coordinator.Context) *stateShard {
			return &stateShard{ctx: ctx, every: opts.UpdatesPerSnapshot, coldEvery: opts.ColdSnapshotInterval, states: map[Key]*entry{}}
		}})
	c.schedulePrune()
	return c
}

func (c *Coordinator) partitions() int32 {
	if p, ok := c.opts.Logs.(interface{ Partitions() int32 }); ok {
		if n := p.Partitions(); n > 0 {
			return n
		}
	}
	return c.opts.Partitions
}

// PartitionFor is the __share_group_state partition of k: Kafka's
// abs(hashCode) of "group:topicId:partition" modulo the partition count.
func (c *Coordinator) PartitionFor(k Key) int32 {
	return group.PartitionFor(k.Group+":"+metadata.UUID(k.TopicID).String()+":"+strconv.Itoa(int(k.Partition)), c.partitions())
}

// Load creates the topic if the logs know how and loads every partition
// of it that is not loaded yet.
func (c *Coordinator) Load() error {
	if e, ok := c.opts.Logs.(interface{ Ensure() error }); ok {
		if err := e.Ensure(); err != nil {
			return err
		}
	}
	var errs []error
	for p := range c.partitions() {
		if c.rt.Loaded(p) {
			continue
		}
		if err := c.rt.Load(p); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// Close stops the prune job and unloads every partition.
func (c *Coordinator) Close() {
	c.stopPrune()
	c.rt.UnloadAll()
}

// shardOf loads k's partition if need be.
func (c *Coordinator) shardOf(k Key) (int32, error) {
	p := c.PartitionFor(k)
	if !c.rt.Loaded(p) {
		if err := c.Load(); err != nil && !c.rt.Loaded(p) {
			return p, err
		}
	}
	return p, nil
}

// ReadState returns k's state, StartOffset -1 when it has none.
func (c *Coordinator) ReadState(k Key) (State, error) {
	st, ok, err := c.Lookup(k)
	if err == nil && !ok {
		st = State{StartOffset: -1, LeaderEpoch: -1, DeliveryCompleteCount: -1}
	}
	return st, err
}

// Lookup returns k's state and whether it has one.
func (c *Coordinator) Lookup(k Key) (State, bool, error) {
	p, err := c.shardOf(k)
	if err != nil {
		return State{}, false, err
	}
	type found struct {
		st State
		ok bool
	}
	f, err := coordinator.Read(c.rt, p, func(s *stateShard) (found, error) {
		e, ok := s.states[k]
		if !ok {
			return found{}, nil
		}
		st := e.state
		st.Batches = append([]StateBatch(nil), st.Batches...)
		return found{st, true}, nil
	})
	return f.st, f.ok, err
}

// WriteState makes u durable: a ShareUpdate record, or a ShareSnapshot of
// the merged state every UpdatesPerSnapshot updates (and for a
// share-partition that has none yet).
func (c *Coordinator) WriteState(k Key, u Update) error {
	return c.WriteStateEpoch(k, -1, u)
}

// WriteStateEpoch is WriteState for a writer that names the state epoch
// it read (WriteShareGroupState); -1 names none. A stale epoch is
// FENCED_STATE_EPOCH.
func (c *Coordinator) WriteStateEpoch(k Key, stateEpoch int32, u Update) error {
	return c.write(k, func(s *stateShard, now int64) ([]coordinator.Record, error) {
		e, ok := s.states[k]
		if ok && stateEpoch >= 0 && stateEpoch < e.state.StateEpoch {
			return nil, ErrFencedStateEpoch
		}
		if ok && u.LeaderEpoch >= 0 && u.LeaderEpoch < e.state.LeaderEpoch {
			return nil, ErrFencedLeaderEpoch
		}
		if !ok || e.updates >= s.every {
			base := State{StartOffset: -1}
			snapEpoch := int32(0)
			if ok {
				base, snapEpoch = e.state, e.snapshotEpoch+1
			}
			st := base.apply(u)
			// Created and written now, as Kafka 4.4 writes a snapshot of a
			// write: only a cold snapshot keeps the create timestamp.
			v := snapshotValue{SnapshotEpoch: snapEpoch, StateEpoch: st.StateEpoch, LeaderEpoch: st.LeaderEpoch,
				StartOffset: st.StartOffset, CreateTimestamp: now, WriteTimestamp: now, Batches: st.Batches,
				DeliveryCompleteCount: completeCount(base, ok, u)}
			return []coordinator.Record{{Key: encodeKey(recordSnapshot, k), Value: v.encode()}}, nil
		}
		v := updateValue{SnapshotEpoch: e.snapshotEpoch, LeaderEpoch: u.LeaderEpoch, StartOffset: u.StartOffset,
			Batches: u.Batches, DeliveryCompleteCount: completeCount(e.state, true, u)}
		return []coordinator.Record{{Key: encodeKey(recordUpdate, k), Value: v.encode()}}, nil
	})
}

// write runs op on k's shard and waits until the records it returns are
// durable and replayed.
func (c *Coordinator) write(k Key, op func(s *stateShard, now int64) ([]coordinator.Record, error)) error {
	p, err := c.shardOf(k)
	if err != nil {
		return err
	}
	now := c.opts.Clock.Now().UnixMilli()
	_, err = coordinator.Write(c.rt, p, func(s *stateShard) (coordinator.Result[struct{}], error) {
		recs, err := op(s, now)
		return coordinator.Result[struct{}]{Records: recs}, err
	})
	return err
}

// ErrFencedStateEpoch is Kafka's FENCED_STATE_EPOCH, ErrFencedLeaderEpoch
// its FENCED_LEADER_EPOCH.
var (
	ErrFencedStateEpoch  = errors.New("share: the state epoch is stale")
	ErrFencedLeaderEpoch = errors.New("share: the leader epoch is stale")
)

// Initialize writes k's state anew (InitializeShareGroupState): a
// snapshot with stateEpoch and startOffset and no batches. A state epoch
// below the one held is FENCED_STATE_EPOCH.
func (c *Coordinator) Initialize(k Key, stateEpoch int32, startOffset int64) error {
	return c.write(k, func(s *stateShard, now int64) ([]coordinator.Record, error) {
		snapEpoch := int32(0)
		if e, ok := s.states[k]; ok {
			if stateEpoch < e.state.StateEpoch {
				return nil, ErrFencedStateEpoch
			}
			snapEpoch = e.snapshotEpoch + 1
		}
		// Leader epoch and delivered count 0, as Kafka 4.4's share
		// coordinator initializes a state.
		v := snapshotValue{SnapshotEpoch: snapEpoch, StateEpoch: stateEpoch, LeaderEpoch: 0, StartOffset: startOffset,
			CreateTimestamp: now, WriteTimestamp: now, DeliveryCompleteCount: 0}
		return []coordinator.Record{{Key: encodeKey(recordSnapshot, k), Value: v.encode()}}, nil
	})
}

// InitializeGroup initializes the state of a share group's partitions
// with stateEpoch and start offset -1 (the group coordinator's persister
// call when a share group subscribes to them); the first error ends it.
func (c *Coordinator) InitializeGroup(ctx context.Context, groupID string, stateEpoch int32, parts []group.SharePartitionInit) error {
	for _, p := range parts {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := c.Initialize(Key{Group: groupID, TopicID: p.TopicID, Partition: p.Partition}, stateEpoch, -1); err != nil {
			return fmt.Errorf("share-partition %s-%d: %w", p.Topic, p.Partition, err)
		}
	}
	return nil
}

// Delete removes k's state (DeleteShareGroupState): tombstones of both
// its keys, which compaction then drops.
func (c *Coordinator) Delete(k Key) error {
	return c.write(k, func(s *stateShard, _ int64) ([]coordinator.Record, error) {
		if _, ok := s.states[k]; !ok {
			return nil, nil
		}
		return []coordinator.Record{{Key: encodeKey(recordSnapshot, k)}, {Key: encodeKey(recordUpdate, k)}}, nil
	})
}

type entry struct {
	state         State
	snapshotEpoch int32
	// created and written are the create and write timestamps (ms) of
	// the latest snapshot.
	created, written int64
	// updates are the ShareUpdate records since the last snapshot.
	updates int
}

// stateShard is one partition of __share_group_state.
type stateShard struct {
	ctx       *coordinator.Context
	every     int
	coldEvery time.Duration
	states    map[Key]*entry
	// coldCount counts the states whose latest snapshot is a cold
	// one.
	coldCount int
	// skipped counts malformed records passed over at load.
	skipped    int
	redundancy redundancy
}

func (s *stateShard) Replay(e coordinator.Entry) error {
	typ, k, err := decodeKey(e.Key)
	if err != nil {
		s.skipped++
		return nil
	}
	if e.Value == nil {
		if typ == recordSnapshot {
			s.setState(k, nil)
			s.redundancy.snapshot(k, e.Offset, true)
		}
		return nil
	}
	switch typ {
	case recordSnapshot:
		v, err := decodeSnapshotValue(e.Value)
		if err != nil {
			s.skipped++
			return nil
		}
		s.redundancy.snapshot(k, e.Offset, false)
		s.setState(k, &entry{snapshotEpoch: v.SnapshotEpoch, created: v.CreateTimestamp, written: v.WriteTimestamp,
			state: State{StateEpoch: v.StateEpoch, LeaderEpoch: v.LeaderEpoch, StartOffset: v.StartOffset, Batches: merge(nil, v.Batches, v.StartOffset),
				DeliveryCompleteCount: v.DeliveryCompleteCount}})
	case recordUpdate:
		v, err := decodeUpdateValue(e.Value)
		if err != nil {
			s.skipped++
			return nil
		}
		st, ok := s.states[k]
		if !ok {
			// An update with no snapshot before it (compacted away with
			// a deleted state) has nothing to apply to.
			return nil
		}
		st.state = st.state.apply(Update{LeaderEpoch: v.LeaderEpoch, StartOffset: v.StartOffset, Batches: v.Batches})
		// An update carries the settled count, not a change of it.
		st.state.DeliveryCompleteCount = v.DeliveryCompleteCount
		st.updates++
	default:
		return fmt.Errorf("share: record type %d", typ)
	}
	return nil
}

func (s *stateShard) OnLoaded()   {}
func (s *stateShard) OnUnloaded() {}
