package group

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"
)

// heldStore is a memStore whose appends, while held, become durable (or
// fail) only when the test says, as a log whose fsync is slow.
type heldStore struct {
	*memStore
	mu      sync.Mutex
	held    bool
	from    int // records in memStore when the hold began
	pending []*heldBatch
}

type heldBatch struct {
	done chan struct{}
	err  error
}

func (s *heldStore) Append(p string, recs []Record) (Durable, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	wait, err := s.memStore.Append(p, recs)
	if err != nil || !s.held {
		return wait, err
	}
	b := &heldBatch{done: make(chan struct{})}
	s.pending = append(s.pending, b)
	return func(ctx context.Context) error {
		// Done first: a caller asking without waiting (a done context)
		// is told the outcome once there is one.
		select {
		case <-b.done:
			return b.err
		default:
		}
		select {
		case <-b.done:
			return b.err
		case <-ctx.Done():
			return ctx.Err()
		}
	}, nil
}

func (s *heldStore) hold() {
	s.mu.Lock()
	s.memStore.mu.Lock()
	s.held, s.from = true, len(s.memStore.recs)
	s.memStore.mu.Unlock()
	s.mu.Unlock()
}

// release ends the held appends with err; failed ones leave the log, as
// a log truncates to its durable end.
func (s *heldStore) release(err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err != nil {
		s.memStore.mu.Lock()
		s.memStore.recs = s.memStore.recs[:s.from]
		s.memStore.mu.Unlock()
	}
	for _, b := range s.pending {
		b.err = err
		close(b.done)
	}
	s.pending, s.held = nil, false
}

func newHeldShareHarness(t *testing.T, topics fakeTopics) (*shareHarness, *heldStore) {
	h := &shareHarness{t: t, clock: &fakeClock{now: time.Unix(1_700_000_000, 0)}, store: &memStore{}, topics: topics}
	held := &heldStore{memStore: h.store}
	h.backing = held
	h.c = h.coordinator()
	return h, held
}

func (h *shareHarness) describe(id string) ShareGroupDescription {
	h.t.Helper()
	return h.c.DescribeShareGroups([]string{id})[0]
}

func describedMembers(d ShareGroupDescription) []string {
	var ids []string
	for _, m := range d.Members {
		ids = append(ids, m.MemberID)
	}
	return ids
}

func (h *shareHarness) listed(id string) *Listing {
	for _, l := range h.c.List(nil, nil) {
		if l.GroupID == id {
			return &l
		}
	}
	return nil
}

// ShareGroupDescribe, ListGroups and DescribeShareGroupOffsets' group
// side read a share group as its durable records make it: a join whose
// records are not durable yet is not seen (the heartbeats, Kafka's latest
// state, see it), and once that write fails the group is as before it,
// for reads and writes alike.
func TestShareGroupReadsAreDurable(t *testing.T) {
	h, store := newHeldShareHarness(t, fakeTopics{"t": 4})
	h.ok(h.beat("a", 0, "t"))
	h.settle()
	a := h.ok(h.beat("a", 2))
	if a.MemberEpoch != 3 || countPartitions(a.Assignment) != 4 {
		t.Fatalf("a: epoch %d, assignment %v", a.MemberEpoch, a.Assignment)
	}
	before := h.describe("sg")
	if before.Err != nil || before.GroupEpoch != 3 || before.Assignor != "simple" || !slices.Equal(describedMembers(before), []string{"a"}) {
		t.Fatalf("durable group %+v", before)
	}

	store.hold()
	b := h.ok(h.beat("b", 0, "t"))
	if b.Wait == nil || b.MemberEpoch != 4 {
		t.Fatalf("b's join %+v", b)
	}
	// A new group none of whose records is durable is not found.
	h.c.ShareHeartbeat(ShareHeartbeat{GroupID: "fresh", MemberID: "x", MemberEpoch: 0, SubscribedTopics: []string{"t"}, Topics: h.topics})
	if d := h.describe("fresh"); d.Err == nil || d.ErrMessage != "Group fresh not found." {
		t.Fatalf("undurable group described %+v", d)
	}
	if l := h.listed("fresh"); l != nil {
		t.Fatalf("undurable group listed %+v", l)
	}
	d := h.describe("sg")
	if d.GroupEpoch != before.GroupEpoch || !slices.Equal(describedMembers(d), []string{"a"}) {
		t.Fatalf("during b's join: %+v, want %+v", d, before)
	}
	if l := h.listed("sg"); l == nil || l.State != "Stable" || l.Type != "share" {
		t.Fatalf("listed %+v", l)
	}
	// The live group has b: a's heartbeat sees the new epoch.
	if r := h.ok(h.beat("a", 3)); r.MemberEpoch != 4 {
		t.Fatalf("a during b's join: epoch %d", r.MemberEpoch)
	}

	store.release(errDisk)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := b.Wait(ctx); !errors.Is(err, errDisk) {
		t.Fatalf("b's join: %v, want %v", err, errDisk)
	}
	if d := h.describe("sg"); d.GroupEpoch != before.GroupEpoch || !slices.Equal(describedMembers(d), []string{"a"}) {
		t.Fatalf("after the failed write: %+v, want %+v", d, before)
	}
	// The live group is the durable one again: b is unknown, a is back at
	// epoch 3 and gets its whole assignment.
	if r := h.beat("b", 4); r.Err == nil {
		t.Fatalf("b after its lost join: %+v", r)
	}
	if r := h.ok(h.beat("a", 3, "t")); r.MemberEpoch != 3 || countPartitions(r.Assignment) != 4 {
		t.Fatalf("a after the lost write: epoch %d, assignment %v", r.MemberEpoch, r.Assignment)
	}
	if d := h.describe("fresh"); d.ErrMessage != "Group fresh not found." {
		t.Fatalf("lost group described %+v", d)
	}
	if h.c.group("fresh", false) != nil {
		t.Fatal("the lost group's id is still held")
	}

	// The partitions with share state (DescribeShareGroupOffsets with no
	// topics) are the durable ones too.
	h.ok(h.beat("a", -1))
	store.hold()
	wait, e := h.c.SetShareStatePartitions("sg", MemberAssignment{"u": {0}}, nil, fakeTopics{"t": 4, "u": 1})
	if e != nil {
		t.Fatal(e.Message)
	}
	if got, _ := h.c.ShareStatePartitions("sg"); countPartitions(got) != 4 || got["u"] != nil {
		t.Fatalf("while the state record is written: %v", got)
	}
	store.release(nil)
	if err := wait(ctx); err != nil {
		t.Fatal(err)
	}
	if got, _ := h.c.ShareStatePartitions("sg"); countPartitions(got) != 5 || !slices.Equal(got["u"], []int32{0}) {
		t.Fatalf("once written: %v", got)
	}
	// A restart loads what is durable, the lost join not among it, into
	// the durable view and the live group alike.
	c2 := h.coordinator()
	if skipped, err := c2.Load(replayRecords(h.store.recs)); err != nil || skipped != 0 {
		t.Fatalf("load: %v, %d skipped", err, skipped)
	}
	if got, _ := c2.ShareStatePartitions("sg"); countPartitions(got) != 5 {
		t.Fatalf("after a restart: %v", got)
	}
	if d := c2.DescribeShareGroups([]string{"sg"})[0]; d.Err != nil || d.State != "Empty" || d.GroupEpoch != 4 || len(d.Members) != 0 {
		t.Fatalf("after a restart: %+v", d)
	}
}
