package coordinator

import (
	"time"
)

// Record is one record of a coordinator's partition; a nil Value is a
// tombstone.
type Record struct {
	Key   []byte
	Value []byte
}

// Producer is the producer of a transactional batch (a coordinator that
// writes on a producer's behalf, as TxnOffsetCommit does).
type Producer struct {
	ID    int64
	Epoch int16
}

// NoProducer is the producer of a coordinator's own batches.
var NoProducer = Producer{ID: -1, Epoch: -1}

// Entry is what a shard replays: one record and its batch's producer, or
// a transaction marker. Its Key and Value may be reused once Replay
// returns: a shard copies what it keeps.
type Entry struct {
	Record
	Offset        int64
	Producer      Producer
	Transactional bool
	// Marker is a transaction marker of Producer; Commit says which.
	Marker bool
	Commit bool
}

// Shard is the state machine of one partition. The runtime calls it with
// the shard's lock held, one call at a time.
type Shard interface {
	// Replay applies one durable entry: every record at load, and each
	// record the shard wrote once it is durable.
	Replay(e Entry) error
	// OnLoaded runs once the partition has been replayed, before any
	// operation; OnUnloaded when the runtime drops the shard.
	OnLoaded()
	OnUnloaded()
}

// Result is what an operation returns: records to write and the response
// to give once they are durable.
type Result[T any] struct {
	Records []Record
	// Producer, when set, makes the records one transactional batch of
	// its own.
	Producer *Producer
	Response T
}

// TimerOp is a timer's operation; the records it returns are written as
// any operation's.
type TimerOp func() ([]Record, error)

// Context is a shard's view of the runtime. Its methods are called from
// the shard's Replay, OnLoaded and operations, with the shard's lock held.
type Context struct {
	s *shardCore
}

// Partition is the shard's partition.
func (c *Context) Partition() int32 { return c.s.partition }

// Now is the runtime's clock.
func (c *Context) Now() time.Time { return c.s.clock.Now() }

// Loaded is false while the partition is being replayed at load.
func (c *Context) Loaded() bool { return c.s.status == active }

// Writing reports whether a record with key is on its way to the log (in
// the batch in flight or a queued one): its replay has not happened yet.
func (c *Context) Writing(key []byte) bool { return c.s.writing[string(key)] > 0 }

// Defer runs f once the shard's lock is released, before the responses of
// the batch being replayed are given: the way out of the state machine
// for calls to other components (markers, other coordinators).
func (c *Context) Defer(f func()) { c.s.deferred = append(c.s.deferred, f) }

// Schedule runs op on the shard after d, replacing the timer of the same
// key. Timers scheduled during load start once it is done.
func (c *Context) Schedule(key string, d time.Duration, op TimerOp) { c.s.schedule(key, d, op) }

// Cancel stops the timer of key, if any.
func (c *Context) Cancel(key string) { c.s.cancel(key) }

// Scheduled reports whether a timer of key is pending.
func (c *Context) Scheduled(key string) bool { _, ok := c.s.timers[key]; return ok }
