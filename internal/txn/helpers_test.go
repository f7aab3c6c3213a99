package txn

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"sync"
	"testing"
	"time"
)

// fakeClock is a clock tests move by hand.
type fakeClock struct{ now time.Time }

func (c *fakeClock) Now() time.Time          { return c.now }
func (c *fakeClock) advance(d time.Duration) { c.now = c.now.Add(d) }

// memStore keeps __transaction_state in memory, in append order. While
// held is set, writes are accepted but not durable until release.
type memStore struct {
	mu      sync.Mutex
	records []Record
	fail    error
}

func (s *memStore) Append(_ string, recs []Record) (Durable, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.fail != nil {
		return nil, s.fail
	}
	s.records = append(s.records, recs...)
	return noWait, nil
}

func (s *memStore) Replay(fn func(Record) error) error {
	s.mu.Lock()
	recs := append([]Record(nil), s.records...)
	s.mu.Unlock()
	for _, r := range recs {
		if err := fn(r); err != nil {
			return err
		}
	}
	return nil
}

// memMarkers records the markers written; gone names topics that were
// deleted, and fail makes every write fail.
type memMarkers struct {
	mu      sync.Mutex
	written []Marker
	gone    map[string]bool
	fenced  map[string]bool
	fail    error
}

func (w *memMarkers) WriteMarker(m Marker) (Durable, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.gone[m.Topic] {
		return nil, ErrPartitionGone
	}
	if w.fenced[m.Topic] {
		return nil, ErrMarkerFenced
	}
	if w.fail != nil {
		return nil, w.fail
	}
	w.written = append(w.written, m)
	return noWait, nil
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
}

func (q *queue) Go(f func()) {
	q.mu.Lock()
	if q.hold {
		q.work = append(q.work, f)
		q.mu.Unlock()
		return
	}
	q.mu.Unlock()
	f()
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
	clock   *fakeClock
	store   *memStore
	markers *memMarkers
	q       *queue
	nextPID int64
	offsets []completed
	cfg     Config
}

func newFixture(t *testing.T) *fixture {
	f := &fixture{t: t, clock: &fakeClock{now: time.UnixMilli(1_700_000_000_000)}, store: &memStore{},
		markers: &memMarkers{gone: map[string]bool{}, fenced: map[string]bool{}}, q: &queue{}, nextPID: 1000, cfg: DefaultConfig()}
	f.cfg.AddPartitionsWait = -1 // held-back completions would make adds wait
	f.c = f.newCoordinator()
	return f
}

// newCoordinator is a coordinator over the fixture's store and markers,
// as a restarted broker would have.
func (f *fixture) newCoordinator() *Coordinator {
	return New(f.cfg, Options{Clock: f.clock, Store: f.store, Markers: f.markers,
		ProducerIDs: NewProducerIDs(func() (int64, error) {
			first := f.nextPID
			f.nextPID += ProducerIDBlockSize
			return first, nil
		}),
		CompleteOffsets: func(pid int64, epoch int16, commit bool) {
			f.offsets = append(f.offsets, completed{pid, epoch, commit})
		},
		Go:     f.q.Go,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
	})
}

// restart loads a new coordinator from the store, as after a crash.
func (f *fixture) restart() {
	f.t.Helper()
	f.c = f.newCoordinator()
	if skipped, err := f.c.Load(f.store); err != nil || skipped != 0 {
		f.t.Fatalf("load: %d skipped, %v", skipped, err)
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
