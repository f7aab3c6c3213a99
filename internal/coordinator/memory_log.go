package coordinator

import (
	"context"
	"errors"
	"fmt"
	"sync"
)

// MemoryLog is a PartitionLog in memory whose durability is in the
// caller's hands, for deterministic tests of coordinators: with Hold set,
// appended records wait (not durable) until Sync; Crash drops whatever is
// not durable, as a broker killed before its fsync loses it.
type MemoryLog struct {
	mu sync.Mutex
	// start is the log start offset: entries[0] is at start, the ones
	// before were deleted (DeleteRecordsBefore).
	start   int64
	entries []Entry
	// durable is how many entries are durable.
	durable              int
	hold                 bool
	batches              int
	failAppend, failSync error
	changed              chan struct{}
	maxBatchBytes        int
}

// SetMaxBatchBytes bounds the batches the runtime builds for this log, as
// a topic's max.message.bytes does; 0 leaves the runtime's bound.
func (l *MemoryLog) SetMaxBatchBytes(n int) {
	l.mu.Lock()
	l.maxBatchBytes = n
	l.mu.Unlock()
}

// MaxBatchBytes makes a MemoryLog a BatchLimiter.
func (l *MemoryLog) MaxBatchBytes() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.maxBatchBytes
}

// NewMemoryLog returns an empty log whose appends are durable at once.
func NewMemoryLog() *MemoryLog { return &MemoryLog{changed: make(chan struct{})} }

// Append adds b's records.
func (l *MemoryLog) Append(b Batch) (int64, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.failAppend != nil {
		return -1, l.failAppend
	}
	l.batches++
	for _, r := range b.Records {
		l.entries = append(l.entries, Entry{Record: r, Offset: l.start + int64(len(l.entries)), Producer: b.Producer, Transactional: b.Transactional})
	}
	if !l.hold {
		l.durable = len(l.entries)
	}
	l.signal()
	return l.start + int64(len(l.entries)) - 1, nil
}

// AppendMarker adds a transaction marker of producer, durable at once.
func (l *MemoryLog) AppendMarker(producer Producer, commit bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.entries = append(l.entries, Entry{Offset: l.start + int64(len(l.entries)), Producer: producer, Transactional: true, Marker: true, Commit: commit})
	l.durable = len(l.entries)
	l.signal()
}

func (l *MemoryLog) signal() {
	close(l.changed)
	l.changed = make(chan struct{})
}

// ErrLost answers a wait for a record that a Crash dropped.
var ErrLost = errors.New("coordinator: the record was lost in a crash")

// WaitDurable waits until offset is durable, or the sync fails, or a
// Crash has dropped it.
func (l *MemoryLog) WaitDurable(ctx context.Context, offset int64) error {
	for {
		l.mu.Lock()
		if l.failSync != nil {
			err := l.failSync
			l.mu.Unlock()
			return err
		}
		if l.start+int64(l.durable) > offset {
			l.mu.Unlock()
			return nil
		}
		if l.start+int64(len(l.entries)) <= offset {
			l.mu.Unlock()
			return ErrLost
		}
		changed := l.changed
		l.mu.Unlock()
		select {
		case <-changed:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// Replay hands the durable entries to fn.
func (l *MemoryLog) Replay(fn func(Entry) error) error {
	l.mu.Lock()
	entries := append([]Entry(nil), l.entries[:l.durable]...)
	l.mu.Unlock()
	for _, e := range entries {
		if err := fn(e); err != nil {
			return err
		}
	}
	return nil
}

// DeleteRecordsBefore makes offset the log start offset, dropping the
// entries before it, as DeleteRecords does a partition's; offsets past
// the durable ones are refused. It returns the log start offset.
func (l *MemoryLog) DeleteRecordsBefore(offset int64) (int64, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if offset > l.start+int64(l.durable) {
		return l.start, fmt.Errorf("coordinator: %d is past the durable end %d", offset, l.start+int64(l.durable))
	}
	if n := offset - l.start; n > 0 {
		l.entries = append([]Entry(nil), l.entries[n:]...)
		l.durable -= int(n)
		l.start = offset
	}
	return l.start, nil
}

// LogStartOffset is the offset of the first entry kept.
func (l *MemoryLog) LogStartOffset() int64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.start
}

// Hold makes later appends wait for Sync.
func (l *MemoryLog) Hold(hold bool) {
	l.mu.Lock()
	l.hold = hold
	l.mu.Unlock()
}

// Sync makes every appended record durable.
func (l *MemoryLog) Sync() {
	l.mu.Lock()
	l.durable = len(l.entries)
	l.signal()
	l.mu.Unlock()
}

// Crash drops the records that are not durable and returns how many.
func (l *MemoryLog) Crash() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	lost := len(l.entries) - l.durable
	l.entries = l.entries[:l.durable]
	l.signal()
	return lost
}

// FailAppends makes appends fail with err (nil: succeed again).
func (l *MemoryLog) FailAppends(err error) {
	l.mu.Lock()
	l.failAppend = err
	l.mu.Unlock()
}

// FailSyncs makes waits for durability fail with err (nil: succeed).
func (l *MemoryLog) FailSyncs(err error) {
	l.mu.Lock()
	l.failSync = err
	l.signal()
	l.mu.Unlock()
}

// Entries returns every entry appended, durable or not.
func (l *MemoryLog) Entries() []Entry {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]Entry(nil), l.entries...)
}

// Batches is how many batches were appended.
func (l *MemoryLog) Batches() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.batches
}

// Pending is how many entries are appended and not yet durable.
func (l *MemoryLog) Pending() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.entries) - l.durable
}

// MemoryLogs is Logs over MemoryLogs, made on first open.
type MemoryLogs struct {
	mu   sync.Mutex
	logs map[int32]*MemoryLog
	// unreadable partitions fail to replay with their error.
	unreadable map[int32]error
}

// NewMemoryLogs returns logs with no partition yet.
func NewMemoryLogs() *MemoryLogs {
	return &MemoryLogs{logs: map[int32]*MemoryLog{}, unreadable: map[int32]error{}}
}

// Open returns partition's log, making it if new.
func (m *MemoryLogs) Open(partition int32) (PartitionLog, error) {
	if err := m.unreadableErr(partition); err != nil {
		return unreadableLog{m.Partition(partition), err}, nil
	}
	return m.Partition(partition), nil
}

// unreadableLog is a log whose replay fails, as a corrupt one's does.
type unreadableLog struct {
	*MemoryLog
	err error
}

func (u unreadableLog) Replay(func(Entry) error) error { return u.err }

// Partition is partition's log, made if new.
func (m *MemoryLogs) Partition(partition int32) *MemoryLog {
	m.mu.Lock()
	defer m.mu.Unlock()
	l, ok := m.logs[partition]
	if !ok {
		l = NewMemoryLog()
		m.logs[partition] = l
	}
	return l
}

// SetUnreadable makes partition's replay fail with err (nil: readable).
func (m *MemoryLogs) SetUnreadable(partition int32, err error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if err == nil {
		delete(m.unreadable, partition)
		return
	}
	m.unreadable[partition] = err
}

func (m *MemoryLogs) unreadableErr(partition int32) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.unreadable[partition]
}

// Each calls fn with every partition's log.
func (m *MemoryLogs) Each(fn func(partition int32, l *MemoryLog)) {
	m.mu.Lock()
	logs := make(map[int32]*MemoryLog, len(m.logs))
	for p, l := range m.logs {
		logs[p] = l
	}
	m.mu.Unlock()
	for p, l := range logs {
		fn(p, l)
	}
}
