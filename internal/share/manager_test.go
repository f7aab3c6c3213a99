package share

import (
	"errors"
	"testing"
	"time"

	"github.com/karst-broker/karst/internal/coordinator"
)

// TestManagerReleaseMember: the call the share group coordinator makes
// when a member leaves or is fenced releases its records in every
// share-partition of the group, and in no other group's.
func TestManagerReleaseMember(t *testing.T) {
	clock := coordinator.NewManualClock(time.Unix(1_700_000_000, 0))
	c := NewCoordinator(CoordinatorOptions{Partitions: 3, Clock: clock})
	m := NewManager(c, clock, 0, nil)
	cfg := func() Config {
		return Config{RecordLockDuration: time.Minute, DeliveryCountLimit: 5, MaxRecordLocks: 100}
	}
	zero := func() (int64, error) { return 0, nil }
	var parts []*Partition
	for _, k := range []Key{{"g", [16]byte{1}, 0}, {"g", [16]byte{2}, 3}, {"other", [16]byte{1}, 0}} {
		p, err := m.Partition(k, cfg, zero)
		if err != nil {
			t.Fatal(err)
		}
		if again, _ := m.Partition(k, cfg, zero); again != p {
			t.Fatal("a share-partition was loaded twice")
		}
		if got := p.Acquire("a", 0, []FetchedBatch{{0, 4, true}}, 0, 0, false); len(got) != 1 {
			t.Fatalf("acquired %v", got)
		}
		parts = append(parts, p)
	}
	if err := m.ReleaseMember("g", "a"); err != nil {
		t.Fatal(err)
	}
	for i, p := range parts {
		want := Available
		if i == 2 {
			want = Acquired
		}
		for _, r := range p.Snapshot().Records {
			if r.State != want {
				t.Fatalf("partition %d offset %d is %s, want %s", i, r.Offset, r.State, want)
			}
		}
	}
	// Released records were made durable with their delivery count.
	st, err := c.ReadState(Key{"g", [16]byte{2}, 3})
	if err != nil || len(st.Batches) != 1 || st.Batches[0] != (StateBatch{0, 4, Available, 1}) {
		t.Fatalf("durable state %+v %v", st, err)
	}
}

// TestManagerLoadFailure: a share-partition whose state cannot be read
// is not kept: the next fetch loads it again.
func TestManagerLoadFailure(t *testing.T) {
	p := &failingPersister{err: errors.New("unavailable")}
	m := NewManager(p, coordinator.NewManualClock(time.Unix(0, 0)), 0, nil)
	k := Key{"g", [16]byte{1}, 0}
	cfg := func() Config {
		return Config{RecordLockDuration: time.Minute, DeliveryCountLimit: 5, MaxRecordLocks: 100}
	}
	if _, err := m.Partition(k, cfg, func() (int64, error) { return 0, nil }); err == nil {
		t.Fatal("loaded over a failing persister")
	}
	p.err = nil
	if _, err := m.Partition(k, cfg, func() (int64, error) { return 7, nil }); err != nil {
		t.Fatal(err)
	}
}

type failingPersister struct{ err error }

func (f *failingPersister) ReadState(Key) (State, error) { return State{StartOffset: -1}, f.err }
func (f *failingPersister) WriteState(Key, Update) error { return f.err }

func TestSessionEpochs(t *testing.T) {
	s := NewSessions(1)
	k := SessionKey{"g", "m"}
	if _, err := s.Next(k, 1, nil, nil); !errors.Is(err, ErrSessionNotFound) {
		t.Fatalf("no session: %v", err)
	}
	if _, err := s.Open(k, "conn1", []TopicPartition{{Partition: 1}}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Open(SessionKey{"g", "other"}, "conn1", nil); !errors.Is(err, ErrSessionLimit) {
		t.Fatalf("second session with a limit of 1: %v", err)
	}
	if _, err := s.Next(k, 2, nil, nil); !errors.Is(err, ErrSessionEpoch) {
		t.Fatalf("epoch 2 before 1: %v", err)
	}
	got, err := s.Next(k, 1, []TopicPartition{{Partition: 0}}, []TopicPartition{{Partition: 1}})
	if err != nil || len(got) != 1 || got[0].Partition != 0 {
		t.Fatalf("after adding 0 and forgetting 1: %v %v", got, err)
	}
	if nextEpoch(1<<31-1) != 1 {
		t.Fatal("the epoch does not wrap to 1")
	}
	if _, err := s.Close(k); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Close(k); !errors.Is(err, ErrSessionNotFound) {
		t.Fatalf("closing twice: %v", err)
	}
}

// TestSessionOwner: a connection's close ends only the sessions it opened
// and that were not reopened since on another connection.
func TestSessionOwner(t *testing.T) {
	s := NewSessions(0)
	k := SessionKey{"g", "m"}
	if _, err := s.Open(k, "conn1", []TopicPartition{{Partition: 3}}); err != nil {
		t.Fatal(err)
	}
	if _, ok := s.CloseOwned(k, "conn2"); ok {
		t.Fatal("conn2 closed conn1's session")
	}
	if _, err := s.Open(k, "conn2", []TopicPartition{{Partition: 4}}); err != nil {
		t.Fatal(err)
	}
	if _, ok := s.CloseOwned(k, "conn1"); ok {
		t.Fatal("conn1's close ended the session conn2 reopened")
	}
	got, ok := s.CloseOwned(k, "conn2")
	if !ok || len(got) != 1 || got[0].Partition != 4 {
		t.Fatalf("conn2's close: %v %v", got, ok)
	}
	if s.Len() != 0 {
		t.Fatalf("%d sessions left", s.Len())
	}
	if _, ok := s.CloseOwned(k, "conn2"); ok {
		t.Fatal("closed twice")
	}
}
