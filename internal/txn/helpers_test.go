package txn

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/karst-broker/karst/internal/coordinator"
)

// stateLogs is __transaction_state in memory; deleteTopic replaces it
// with an empty one, as deleting the topic does.
type stateLogs struct {
	mu         sync.Mutex
	cur        *coordinator.MemoryLogs
	partitions int32
}

func (l *stateLogs) Open(p int32) (coordinator.PartitionLog, error) { return l.logs().Open(p) }

func (l *stateLogs) logs() *coordinator.MemoryLogs {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.cur
}

func (l *stateLogs) deleteTopic() {
	l.mu.Lock()
	l.cur = coordinator.NewMemoryLogs()
	l.mu.Unlock()
}

// records are the records of every partition, partition by partition,
// in log order.
func (l *stateLogs) records() []coordinator.Record {
	var out []coordinator.Record
	for p := range l.partitions {
		for _, e := range l.logs().Partition(p).Entries() {
			out = append(out, e.Record)
		}
	}
	return out
}

// fail makes every append fail with err (nil: succeed again).
func (l *stateLogs) fail(err error) {
	for p := range l.partitions {
		l.logs().Partition(p).FailAppends(err)
	}
}

// append adds raw records to a partition, as a foreign writer would.
func (l *stateLogs) append(p int32, recs ...coordinator.Record) {
	if _, err := l.logs().Partition(p).Append(coordinator.Batch{Producer: coordinator.NoProducer, Records: recs}); err != nil {
		panic(err)
	}
}

// memMarkers records the markers written; gone names topics that were
// deleted, and fail makes every write fail.
type memMarkers struct {
	mu      sync.Mutex
	written []Marker
	gone    map[string]bool
	fenced  map[string]bool
	fail    error
	// blocked, while set, holds every write with a marker for
	// blockedTopic until it is closed; waiting counts the writes held.
	blocked      chan struct{}
	blockedTopic string
	waiting      atomic.Int64
}

// block makes marker writes for topic wait until unblock, as a partition
// leader that does not answer WriteTxnMarkers.
func (w *memMarkers) block(topic string) {
	w.mu.Lock()
	w.blocked, w.blockedTopic = make(chan struct{}), topic
	w.mu.Unlock()
}

// unblock lets the held writes go, and returns once they all have.
func (w *memMarkers) unblock() {
	w.mu.Lock()
	if w.blocked != nil {
		close(w.blocked)
		w.blocked = nil
	}
	w.mu.Unlock()
	for w.waiting.Load() > 0 {
		time.Sleep(time.Millisecond)
	}
}

func (w *memMarkers) WriteMarkers(_ context.Context, markers []Marker) []error {
	w.mu.Lock()
	if b := w.blocked; b != nil && slices.ContainsFunc(markers, func(m Marker) bool { return m.Topic == w.blockedTopic }) {
		w.mu.Unlock()
		w.waiting.Add(1)
		<-b
		w.waiting.Add(-1)
		w.mu.Lock()
	}
	defer w.mu.Unlock()
	errs := make([]error, len(markers))
	for i, m := range markers {
		switch {
		case w.gone[m.Topic]:
			errs[i] = ErrPartitionGone
		case w.fenced[m.Topic]:
			errs[i] = ErrMarkerFenced
		case w.fail != nil:
			errs[i] = w.fail
		default:
			w.written = append(w.written, m)
		}
	}
	return errs
}

func (w *memMarkers) take() []Marker {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := w.written
	w.written = nil
	return out
}

// queue holds background work back until the test runs it, so a test can
// stop a transaction between PrepareCommit and its markers.
type queue struct {
	mu   sync.Mutex
	work []func()
	hold bool
	// async runs the work on goroutines of its own (counted in running),
	// as the broker does, rather than inline.
	async   bool
	running atomic.Int64
}

func (q *queue) Go(f func()) {
	q.mu.Lock()
	if q.hold {
		q.work = append(q.work, f)
		q.mu.Unlock()
		return
	}
	if q.async {
		q.running.Add(1)
		q.mu.Unlock()
		go func() {
			defer q.running.Add(-1)
			f()
		}()
		return
	}
	q.mu.Unlock()
	f()
}

func (q *queue) isAsync() bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.async
}

func (q *queue) setAsync(async bool) {
	q.mu.Lock()
	q.async = async
	q.mu.Unlock()
}

// settleAsync waits until the work running on goroutines of its own is
// all held by blocked marker writes, and no partition has a write in
// progress.
func (f *fixture) settleAsync() {
	f.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for f.q.running.Load() != f.markers.waiting.Load() {
		if time.Now().After(deadline) {
			f.t.Fatalf("%d calls out running, %d of them held", f.q.running.Load(), f.markers.waiting.Load())
		}
		time.Sleep(time.Millisecond)
	}
	f.settle()
}

// drop forgets the held work, as a broker that dies loses it.
func (q *queue) drop() {
	q.mu.Lock()
	q.work = nil
	q.mu.Unlock()
}

// run runs the held work (and whatever it queues) to the end.
func (q *queue) run() {
	for {
		q.mu.Lock()
		work := q.work
		q.work = nil
		q.mu.Unlock()
		if len(work) == 0 {
			return
		}
		for _, f := range work {
			f()
		}
	}
}

func (q *queue) setHold(h bool) {
	q.mu.Lock()
	q.hold = h
	q.mu.Unlock()
}

// completed is one CompleteOffsets call.
type completed struct {
	pid    int64
	epoch  int16
	commit bool
}

// fixture is a coordinator over in-memory collaborators.
type fixture struct {
	t       *testing.T
	c       *Coordinator
	clock   *coordinator.ManualClock
	store   *stateLogs
	markers *memMarkers
	q       *queue
	nextPID int64
	mu      sync.Mutex
	offsets []completed
	cfg     Config
}

func newFixture(t *testing.T) *fixture {
	f := &fixture{t: t, clock: coordinator.NewManualClock(scriptStart),
		markers: &memMarkers{gone: map[string]bool{}, fenced: map[string]bool{}}, q: &queue{}, nextPID: 1000, cfg: DefaultConfig()}
	f.cfg.AddPartitionsWait = -1 // held-back completions would make adds wait
	f.store = &stateLogs{cur: coordinator.NewMemoryLogs(), partitions: f.cfg.StatePartitions}
	f.c = f.newCoordinator()
	f.load()
	return f
}

// newCoordinator is a coordinator over the fixture's store and markers,
// as a restarted broker would have.
func (f *fixture) newCoordinator() *Coordinator {
	return New(f.cfg, Options{Clock: f.clock, Logs: f.store, Markers: f.markers,
		ProducerIDs: NewProducerIDs(func() (int64, error) {
			first := f.nextPID
			f.nextPID += ProducerIDBlockSize
			return first, nil
		}),
		CompleteOffsets: func(pid int64, epoch int16, commit bool) {
			f.mu.Lock() // completions of two partitions may run at once
			f.offsets = append(f.offsets, completed{pid, epoch, commit})
			f.mu.Unlock()
		},
		Go:     f.q.Go,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
	})
}

// restart loads a new coordinator from the store, as after a crash.
func (f *fixture) restart() {
	f.t.Helper()
	f.c.Unload() // the dead broker's timers die with it
	f.c = f.newCoordinator()
	f.load()
}

func (f *fixture) load() {
	f.t.Helper()
	if skipped, err := f.c.Load(); err != nil || skipped != 0 {
		f.t.Fatalf("load: %d skipped, %v", skipped, err)
	}
	f.settle()
}

// advance moves the clock, runs the timers that come due and waits for
// what they write.
func (f *fixture) advance(d time.Duration) {
	f.t.Helper()
	f.clock.Advance(d)
	f.settle()
}

// settle waits until no partition has a write or a call out in progress.
func (f *fixture) settle() {
	f.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for _, p := range f.c.rt.Partitions() {
		for f.c.rt.InFlight(p) > 0 {
			if time.Now().After(deadline) {
				f.t.Fatalf("partition %d never settled", p)
			}
			select {
			case <-f.c.rt.Settled(p):
			case <-time.After(time.Millisecond):
			}
		}
	}
}

var ctx = context.Background()

func (f *fixture) init(id string, timeoutMs int32) ProducerIDAndEpoch {
	f.t.Helper()
	pe, err := f.c.InitProducerID(ctx, InitRequest{TransactionalID: id, TimeoutMs: timeoutMs, ProducerID: -1, ProducerEpoch: -1})
	if err != nil {
		f.t.Fatalf("init %s: %v", id, err)
	}
	return pe
}

func (f *fixture) add(id string, pe ProducerIDAndEpoch, tps ...TopicPartition) {
	f.t.Helper()
	if err := f.c.AddPartitions(ctx, id, pe.ProducerID, pe.ProducerEpoch, tps); err != nil {
		f.t.Fatalf("add %s: %v", id, err)
	}
}

func (f *fixture) end(id string, pe ProducerIDAndEpoch, commit bool) {
	f.t.Helper()
	if err := f.c.EndTxn(ctx, id, pe.ProducerID, pe.ProducerEpoch, commit); err != nil {
		f.t.Fatalf("end %s: %v", id, err)
	}
}

func (f *fixture) state(id string) Description {
	f.t.Helper()
	d, err := f.c.Describe(id)
	if err != nil {
		f.t.Fatalf("describe %s: %v", id, err)
	}
	return d
}

func wantErr(t *testing.T, what string, got, want error) {
	t.Helper()
	if !errors.Is(got, want) {
		t.Fatalf("%s: got %v, want %v", what, got, want)
	}
}

func tp(topic string, p int32) TopicPartition { return TopicPartition{Topic: topic, Partition: p} }

// setEpoch puts a transactional id's epoch where a test needs it, behind
// the state machine's back (reaching an exhausted epoch by bumps would
// take 32,766 of them).
func (f *fixture) setEpoch(id string, epoch int16) {
	f.t.Helper()
	p := f.c.PartitionFor(id)
	if _, err := coordinator.Read(f.c.rt, p, func(s *stateShard) (struct{}, error) {
		s.txns[id].epoch = epoch
		return struct{}{}, nil
	}); err != nil {
		f.t.Fatal(err)
	}
}
