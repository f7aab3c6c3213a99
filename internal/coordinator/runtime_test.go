package coordinator

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"
)

// kvShard is a key-value state machine: each record sets (or, as a
// tombstone, deletes) its key.
type kvShard struct {
	ctx      *Context
	kv       map[string]string
	replayed int
	loaded   int
	unloaded int
	fired    []string
}

func (s *kvShard) Replay(e Entry) error {
	s.replayed++
	if e.Value == nil {
		delete(s.kv, string(e.Key))
		return nil
	}
	s.kv[string(e.Key)] = string(e.Value)
	return nil
}

func (s *kvShard) OnLoaded()   { s.loaded++ }
func (s *kvShard) OnUnloaded() { s.unloaded++ }

type kvFixture struct {
	t     *testing.T
	logs  *MemoryLogs
	clock *ManualClock
	rt    *Runtime[*kvShard]
}

func newKV(t *testing.T) *kvFixture {
	f := &kvFixture{t: t, logs: NewMemoryLogs(), clock: NewManualClock(time.UnixMilli(1_700_000_000_000))}
	f.start()
	return f
}

// start makes a new runtime over the fixture's logs, as a broker that
// restarts does, and loads partition 0.
func (f *kvFixture) start() {
	f.t.Helper()
	f.rt = New(Options[*kvShard]{Logs: f.logs, Clock: f.clock, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		NewShard: func(ctx *Context) *kvShard { return &kvShard{ctx: ctx, kv: map[string]string{}} }})
	if err := f.rt.Load(0); err != nil {
		f.t.Fatal(err)
	}
}

// set writes key=value unless a write of key is on its way.
func set(key, value string) func(*kvShard) (Result[string], error) {
	return func(s *kvShard) (Result[string], error) {
		if s.ctx.Writing([]byte(key)) {
			return Result[string]{}, errors.New("busy")
		}
		return Result[string]{Records: []Record{{Key: []byte(key), Value: []byte(value)}}, Response: "ok " + key}, nil
	}
}

func (f *kvFixture) get(key string) (string, bool) {
	f.t.Helper()
	type got struct {
		v  string
		ok bool
	}
	g, err := Read(f.rt, 0, func(s *kvShard) (got, error) { v, ok := s.kv[key]; return got{v, ok}, nil })
	if err != nil {
		f.t.Fatal(err)
	}
	return g.v, g.ok
}

// settle waits until every record written is replayed.
func (f *kvFixture) settle() {
	f.t.Helper()
	deadline := time.After(10 * time.Second)
	for f.rt.InFlight(0) > 0 {
		select {
		case <-f.rt.Settled(0):
		case <-time.After(time.Millisecond):
		case <-deadline:
			f.t.Fatal("writes never settled")
		}
	}
}

func wait(t *testing.T, done <-chan error) error {
	t.Helper()
	select {
	case err := <-done:
		return err
	case <-time.After(10 * time.Second):
		t.Fatal("write never answered")
		return nil
	}
}

func TestWriteIsAnsweredAndVisibleOnlyOnceDurable(t *testing.T) {
	f := newKV(t)
	log := f.logs.Partition(0)
	log.Hold(true)
	done, res, err := Submit(f.rt, 0, set("a", "1"))
	if err != nil || res.Response != "ok a" {
		t.Fatalf("submit: %v %+v", err, res)
	}
	if _, ok := f.get("a"); ok {
		t.Fatal("a read sees a record that is not durable")
	}
	if _, _, err := Submit(f.rt, 0, set("a", "2")); err == nil {
		t.Fatal("a second write of a key on its way was not told")
	}
	select {
	case <-done:
		t.Fatal("answered before durable")
	default:
	}
	log.Sync()
	if err := wait(t, done); err != nil {
		t.Fatal(err)
	}
	if v, _ := f.get("a"); v != "1" {
		t.Fatalf("after sync: %q", v)
	}
}

func TestWritesWhileOneIsInFlightShareOneBatch(t *testing.T) {
	f := newKV(t)
	log := f.logs.Partition(0)
	log.Hold(true)
	first, _, _ := Submit(f.rt, 0, set("a", "1"))
	var rest []<-chan error
	for i := range 5 {
		d, _, err := Submit(f.rt, 0, set(fmt.Sprint("k", i), "v"))
		if err != nil {
			t.Fatal(err)
		}
		rest = append(rest, d)
	}
	if got := log.Batches(); got != 1 {
		t.Fatalf("%d batches appended while the first waits for the disk", got)
	}
	settled := f.rt.Settled(0)
	log.Sync() // the first is durable; the five go out together
	if err := wait(t, first); err != nil {
		t.Fatal(err)
	}
	<-settled
	deadline := time.After(10 * time.Second)
	for log.Batches() != 2 {
		select {
		case <-deadline:
			t.Fatalf("%d batches", log.Batches())
		case <-f.rt.Settled(0):
		case <-time.After(time.Millisecond):
		}
	}
	if n := log.Pending(); n != 5 {
		t.Fatalf("%d records in the second batch", n)
	}
	log.Sync()
	for _, d := range rest {
		if err := wait(t, d); err != nil {
			t.Fatal(err)
		}
	}
	if v, _ := f.get("k4"); v != "v" {
		t.Fatalf("k4 = %q", v)
	}
}

// A log that bounds its batches (a topic's max.message.bytes) splits the
// records queued behind a batch in flight, as Kafka's runtime starts a
// new batch when the next records would not fit.
func TestBatchesAreBoundedByTheLog(t *testing.T) {
	f := newKV(t)
	log := f.logs.Partition(0)
	log.Hold(true)
	first, _, _ := Submit(f.rt, 0, set("a", "1"))
	// Each record counts 2+1+16 bytes: two fit in 40.
	log.SetMaxBatchBytes(40)
	var rest []<-chan error
	for i := range 5 {
		d, _, err := Submit(f.rt, 0, set(fmt.Sprint("k", i), "v"))
		if err != nil {
			t.Fatal(err)
		}
		rest = append(rest, d)
	}
	log.Hold(false)
	log.Sync()
	for _, d := range append(rest, first) {
		if err := wait(t, d); err != nil {
			t.Fatal(err)
		}
	}
	if got := log.Batches(); got != 4 {
		t.Fatalf("%d batches, want 4: the first, then 2+2+1 records", got)
	}
}

func TestCrashBeforeDurableLosesTheWriteAndItsAnswer(t *testing.T) {
	f := newKV(t)
	if _, err := Write(f.rt, 0, set("a", "1")); err != nil {
		t.Fatal(err)
	}
	log := f.logs.Partition(0)
	log.Hold(true)
	done, _, _ := Submit(f.rt, 0, set("b", "2"))
	if lost := log.Crash(); lost != 1 {
		t.Fatalf("lost %d", lost)
	}
	log.Hold(false)
	f.start()
	if v, _ := f.get("a"); v != "1" {
		t.Fatalf("a = %q after the crash", v)
	}
	if _, ok := f.get("b"); ok {
		t.Fatal("b survived the crash")
	}
	// The write's waiter wakes at the crash: it must hear that the write
	// was lost, never that it succeeded.
	select {
	case err := <-done:
		if !errors.Is(err, ErrLost) {
			t.Fatalf("the lost write was answered %v, want ErrLost", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the lost write's waiter was never answered")
	}
}

func TestFailedAppendIsAnErrorAndFreesTheKey(t *testing.T) {
	f := newKV(t)
	log := f.logs.Partition(0)
	log.FailAppends(errors.New("disk full"))
	if _, err := Write(f.rt, 0, set("a", "1")); err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Fatalf("write: %v", err)
	}
	log.FailAppends(nil)
	if _, err := Write(f.rt, 0, set("a", "2")); err != nil {
		t.Fatalf("write after the failure: %v", err)
	}
	if v, _ := f.get("a"); v != "2" {
		t.Fatalf("a = %q", v)
	}
}

func TestFailedSyncReloadsTheShardFromTheLog(t *testing.T) {
	f := newKV(t)
	if _, err := Write(f.rt, 0, set("a", "1")); err != nil {
		t.Fatal(err)
	}
	old, _ := Read(f.rt, 0, func(s *kvShard) (*kvShard, error) { return s, nil })
	log := f.logs.Partition(0)
	log.Hold(true)
	done, _, _ := Submit(f.rt, 0, set("b", "2"))
	log.FailSyncs(errors.New("fsync failed"))
	if err := wait(t, done); err == nil {
		t.Fatal("a failed sync was answered ok")
	}
	log.FailSyncs(nil)
	log.Hold(false)
	deadline := time.After(10 * time.Second)
	for {
		// The reload replays what the log holds durably: the log, not
		// memory, is the truth.
		s, err := Read(f.rt, 0, func(s *kvShard) (*kvShard, error) { return s, nil })
		if err == nil && s != old {
			if v, _ := f.get("a"); v != "1" {
				t.Fatalf("reloaded a = %q", v)
			}
			if _, ok := f.get("b"); ok {
				t.Fatal("the record that never became durable was replayed")
			}
			return
		}
		select {
		case <-deadline:
			t.Fatal("the shard was not reloaded")
		case <-time.After(time.Millisecond):
		}
	}
}

func TestTimersAreKeyedAndRunAsWrites(t *testing.T) {
	f := newKV(t)
	schedule := func(key string, d time.Duration, value string) {
		if _, err := Write(f.rt, 0, func(s *kvShard) (Result[struct{}], error) {
			s.ctx.Schedule(key, d, func() ([]Record, error) {
				s.fired = append(s.fired, key+"="+value)
				return []Record{{Key: []byte(key), Value: []byte(value)}}, nil
			})
			return Result[struct{}]{}, nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	schedule("x", time.Second, "first")
	schedule("x", 2*time.Second, "second") // replaces the first
	schedule("y", time.Second, "y")
	if _, err := Write(f.rt, 0, func(s *kvShard) (Result[struct{}], error) {
		s.ctx.Cancel("y")
		return Result[struct{}]{}, nil
	}); err != nil {
		t.Fatal(err)
	}
	f.clock.Advance(time.Second)
	f.settle()
	if _, ok := f.get("x"); ok {
		t.Fatal("the replaced timer ran")
	}
	f.clock.Advance(time.Second)
	f.settle()
	if v, _ := f.get("x"); v != "second" {
		t.Fatalf("x = %q", v)
	}
	if _, ok := f.get("y"); ok {
		t.Fatal("the cancelled timer ran")
	}
	if f.clock.Pending() != 0 {
		t.Fatalf("%d timers left", f.clock.Pending())
	}
}

func TestUnloadAndReloadKeepTheState(t *testing.T) {
	f := newKV(t)
	for i := range 10 {
		if _, err := Write(f.rt, 0, set(fmt.Sprint("k", i), fmt.Sprint(i))); err != nil {
			t.Fatal(err)
		}
	}
	var before *kvShard
	Read(f.rt, 0, func(s *kvShard) (struct{}, error) { before = s; return struct{}{}, nil })
	f.rt.Unload(0)
	if before.unloaded != 1 {
		t.Fatal("OnUnloaded not called")
	}
	if _, err := Write(f.rt, 0, set("z", "1")); !errors.Is(err, ErrNotCoordinator) {
		t.Fatalf("write to an unloaded partition: %v", err)
	}
	if err := f.rt.Load(0); err != nil {
		t.Fatal(err)
	}
	if v, _ := f.get("k7"); v != "7" {
		t.Fatalf("k7 = %q after reload", v)
	}
}

func TestFailedLoadLeavesThePartitionNotCoordinator(t *testing.T) {
	f := newKV(t)
	f.logs.SetUnreadable(1, errors.New("corrupt"))
	if err := f.rt.Load(1); err == nil {
		t.Fatal("load of an unreadable partition succeeded")
	}
	if f.rt.Failed(1) == nil {
		t.Fatal("not recorded as failed")
	}
	if _, err := Write(f.rt, 1, set("a", "1")); !errors.Is(err, ErrNotCoordinator) {
		t.Fatalf("write: %v", err)
	}
	if _, err := Write(f.rt, 0, set("a", "1")); err != nil {
		t.Fatalf("another partition: %v", err)
	}
}
