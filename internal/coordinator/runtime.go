package coordinator

import (
	"fmt"
	"log/slog"
	"sort"
	"sync"
)

// DefaultMaxBatchBytes bounds the records of one batch the writer builds,
// as Kafka's runtime bounds a batch by the partition's max.message.bytes.
const DefaultMaxBatchBytes = 1 << 20

// Options configure a Runtime.
type Options[S Shard] struct {
	// Logs opens the partitions to load and write.
	Logs Logs
	// NewShard makes the empty state machine of a partition; ctx is its
	// view of the runtime, for it to keep.
	NewShard func(ctx *Context) S
	// Clock defaults to the wall clock.
	Clock  Clock
	Logger *slog.Logger
	// MaxBatchBytes defaults to DefaultMaxBatchBytes.
	MaxBatchBytes int
}

// Runtime runs the shards of the partitions loaded on this broker.
type Runtime[S Shard] struct {
	opts Options[S]

	mu     sync.RWMutex
	shards map[int32]*shard[S]
	// failed are the partitions whose load failed, with why.
	failed map[int32]error
}

type shard[S Shard] struct {
	*shardCore
	state S
}

// New returns a runtime with no partition loaded.
func New[S Shard](opts Options[S]) *Runtime[S] {
	if opts.Clock == nil {
		opts.Clock = SystemClock{}
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.MaxBatchBytes <= 0 {
		opts.MaxBatchBytes = DefaultMaxBatchBytes
	}
	return &Runtime[S]{opts: opts, shards: map[int32]*shard[S]{}, failed: map[int32]error{}}
}

// Load replays partition into a new shard and starts serving it; a
// partition already loaded is left as it is. When the partition's log
// cannot be read to its end, the partition is left failed (Failed; its
// operations answer ErrNotCoordinator) until it is unloaded.
func (r *Runtime[S]) Load(partition int32) error {
	r.mu.Lock()
	if _, ok := r.shards[partition]; ok {
		r.mu.Unlock()
		return nil
	}
	log, err := r.opts.Logs.Open(partition)
	if err != nil {
		// Not there yet (a topic being created) is not a failed load:
		// the next Load tries again.
		r.mu.Unlock()
		return err
	}
	core := newShardCore(partition, log, r.opts.Clock, r.opts.Logger, r.opts.MaxBatchBytes)
	s := &shard[S]{shardCore: core}
	s.state = r.opts.NewShard(&Context{s: core})
	core.state = s.state
	core.broken = func() { r.reload(partition, s) }
	delete(r.failed, partition)
	r.shards[partition] = s
	s.mu.Lock() // operations wait until the replay is done
	r.mu.Unlock()

	err = log.Replay(s.state.Replay)
	if err != nil {
		s.close()
		s.unlock()
		r.mu.Lock()
		if r.shards[partition] == s {
			delete(r.shards, partition)
			r.failed[partition] = err
		}
		r.mu.Unlock()
		return fmt.Errorf("loading partition %d: %w", partition, err)
	}
	s.status = active
	s.armAll()
	s.state.OnLoaded()
	s.unlock()
	return nil
}

// Unload stops serving partition: its shard's OnUnloaded runs and the
// shard is dropped. Queued writes fail with ErrNotCoordinator; a batch in
// flight still lands.
func (r *Runtime[S]) Unload(partition int32) {
	r.mu.Lock()
	s, ok := r.shards[partition]
	delete(r.shards, partition)
	delete(r.failed, partition)
	r.mu.Unlock()
	if !ok {
		return
	}
	s.mu.Lock()
	if s.status != closed {
		s.close()
		s.state.OnUnloaded()
	}
	s.unlock()
}

// UnloadAll unloads every partition, and forgets the failed ones.
func (r *Runtime[S]) UnloadAll() {
	for _, p := range r.Partitions() {
		r.Unload(p)
	}
	r.mu.Lock()
	r.failed = map[int32]error{}
	r.mu.Unlock()
}

// reload replaces a shard whose write failed with one replayed from the
// log, which is what is durable.
func (r *Runtime[S]) reload(partition int32, broken *shard[S]) {
	r.mu.RLock()
	current := r.shards[partition] == broken
	r.mu.RUnlock()
	if !current {
		return
	}
	r.opts.Logger.Warn("reloading a coordinator partition after a failed write", "partition", partition)
	r.Unload(partition)
	if err := r.Load(partition); err != nil {
		r.opts.Logger.Error("reloading a coordinator partition", "partition", partition, "err", err)
	}
}

// Partitions lists the loaded partitions, sorted.
func (r *Runtime[S]) Partitions() []int32 {
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := make([]int32, 0, len(r.shards))
	for p := range r.shards {
		out = append(out, p)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

// Loaded reports whether partition is loaded (or loading).
func (r *Runtime[S]) Loaded(partition int32) bool {
	r.mu.RLock()
	defer r.mu.RUnlock()
	_, ok := r.shards[partition]
	return ok
}

// Failed is why partition's load failed, or nil.
func (r *Runtime[S]) Failed(partition int32) error {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.failed[partition]
}

// Settled is closed the next time a batch of partition is replayed or
// fails; nil when the partition is not loaded.
func (r *Runtime[S]) Settled(partition int32) <-chan struct{} {
	s, err := r.lock(partition)
	if err != nil {
		return nil
	}
	defer s.unlock()
	return s.settled
}

// InFlight is how many records of partition are queued or in flight
// (written by an operation and not yet replayed), plus the deferred calls
// out of its state machine still running: zero when the partition is at
// rest.
func (r *Runtime[S]) InFlight(partition int32) int {
	r.mu.RLock()
	s, ok := r.shards[partition]
	r.mu.RUnlock()
	if !ok {
		return 0
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	n := int(s.callsOut.Load())
	if s.inFlight != nil {
		n += len(s.inFlight.Records)
	}
	for _, b := range s.queue {
		n += len(b.Records)
	}
	return n
}

// lock returns partition's shard, locked and serving.
func (r *Runtime[S]) lock(partition int32) (*shard[S], error) {
	r.mu.RLock()
	s, ok := r.shards[partition]
	r.mu.RUnlock()
	if !ok {
		return nil, ErrNotCoordinator
	}
	s.mu.Lock() // held by Load until the partition is replayed
	if s.status != active {
		s.unlock()
		return nil, ErrNotCoordinator
	}
	return s, nil
}

// Write runs op on partition's shard and, once the records it returns
// are durable and replayed, gives its response. An op's error is
// returned as it is, with nothing written.
func Write[S Shard, T any](r *Runtime[S], partition int32, op func(S) (Result[T], error)) (T, error) {
	done, res, err := Submit(r, partition, op)
	if err != nil || done == nil {
		return res.Response, err
	}
	// The records may land even if the caller has gone, so the wait
	// outlives any request's context.
	return res.Response, <-done
}

// Submit runs op as Write does but does not wait: done (nil when op wrote
// nothing) hears when its records are durable and replayed.
func Submit[S Shard, T any](r *Runtime[S], partition int32, op func(S) (Result[T], error)) (done <-chan error, res Result[T], err error) {
	s, err := r.lock(partition)
	if err != nil {
		return nil, res, err
	}
	defer s.unlock()
	res, err = op(s.state)
	if err != nil || len(res.Records) == 0 {
		return nil, res, err
	}
	ch := make(chan error, 1)
	s.enqueue(res.Records, res.Producer, ch)
	return ch, res, nil
}

// Read runs op on partition's shard, which holds only durable state.
func Read[S Shard, T any](r *Runtime[S], partition int32, op func(S) (T, error)) (T, error) {
	s, err := r.lock(partition)
	if err != nil {
		var zero T
		return zero, err
	}
	defer s.unlock()
	return op(s.state)
}
