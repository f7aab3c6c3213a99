package group

import (
	"bytes"
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
)

type shareHarness struct {
	t        *testing.T
	clock    *fakeClock
	store    *memStore
	c        *Coordinator
	topics   fakeTopics
	mu       sync.Mutex
	released []string
	// inits are the share state initializations asked for ("group/epoch
	// topic-partition ..."); initErr fails them.
	inits   []string
	initErr error
	// backing, when set, is the store the coordinator appends to (it
	// writes through to store).
	backing Store
}

func newShareHarness(t *testing.T, topics fakeTopics) *shareHarness {
	h := &shareHarness{t: t, clock: &fakeClock{now: time.Unix(1_700_000_000, 0)}, store: &memStore{}, topics: topics}
	h.c = h.coordinator()
	return h
}

func (h *shareHarness) coordinator() *Coordinator {
	var store Store = h.store
	if h.backing != nil {
		store = h.backing
	}
	c := New(testConfig(), Options{Clock: h.clock, Store: store, Topics: h.topics})
	cfg := DefaultShareConfig()
	cfg.MaxSize = 3
	c.SetShareConfig(cfg)
	c.SetShareRelease(func(group, member string) error {
		h.mu.Lock()
		h.released = append(h.released, group+"/"+member)
		h.mu.Unlock()
		return nil
	})
	c.SetShareInitializer(func(_ context.Context, group string, epoch int32, parts []SharePartitionInit) error {
		h.mu.Lock()
		defer h.mu.Unlock()
		call := fmt.Sprintf("%s/%d", group, epoch)
		for _, p := range parts {
			call += fmt.Sprintf(" %s-%d", p.Topic, p.Partition)
		}
		h.inits = append(h.inits, call)
		return h.initErr
	})
	return c
}

// initCalls returns the initializations asked for so far.
func (h *shareHarness) initCalls() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.inits)
}

// settle waits until group sg has no partition initializing: the
// initializations its heartbeats asked for were answered.
func (h *shareHarness) settle() {
	h.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		holder := h.c.group("sg", false)
		n := 0
		if holder != nil {
			holder.mu.Lock()
			if g := h.c.shareGroupOf(holder, false); g != nil {
				n = len(g.initializing)
			}
			holder.mu.Unlock()
		}
		if n == 0 {
			return
		}
		if time.Now().After(deadline) {
			h.t.Fatal("share state still initializing")
		}
		time.Sleep(time.Millisecond)
	}
}

// shareStateOf is group sg's ShareGroupStatePartitionMetadataValue in c.
func shareStateOf(t *testing.T, c *Coordinator, ids TopicIDs) []byte {
	t.Helper()
	holder := c.group("sg", false)
	if holder == nil {
		t.Fatal("no group sg")
	}
	holder.mu.Lock()
	defer holder.mu.Unlock()
	g := c.shareGroupOf(holder, false)
	if g == nil {
		t.Fatal("sg is not a share group")
	}
	return g.stateValue(ids)
}

// stateRecords returns the ShareGroupStatePartitionMetadata values written.
func (h *shareHarness) stateRecords() []*shareStateValue {
	h.store.mu.Lock()
	defer h.store.mu.Unlock()
	var out []*shareStateValue
	for _, r := range h.store.recs {
		if rec, ok, err := decodeShareRecord(r.Key, r.Value); ok && err == nil && rec.Type == keyShareGroupStatePartitionMetadata && !rec.Tombstone {
			out = append(out, rec.State)
		}
	}
	return out
}

func (h *shareHarness) beat(member string, epoch int32, topics ...string) ShareHeartbeatResult {
	h.t.Helper()
	return h.c.ShareHeartbeat(ShareHeartbeat{GroupID: "sg", MemberID: member, MemberEpoch: epoch,
		SubscribedTopics: topics, Topics: h.topics})
}

func (h *shareHarness) ok(r ShareHeartbeatResult) ShareHeartbeatResult {
	h.t.Helper()
	if r.Err != nil {
		h.t.Fatalf("heartbeat: %v %s", r.Err, r.ErrMessage)
	}
	return r
}

func countPartitions(a MemberAssignment) int { return len(partitionsOf(a)) }

func TestShareGroupJoinEpochsAndAssignment(t *testing.T) {
	h := newShareHarness(t, fakeTopics{"t": 6})
	// The join is answered before the partitions' share state is
	// initialized: an empty assignment; the next heartbeat assigns them
	// at a new epoch, as in Kafka 4.4.
	j := h.ok(h.beat("a", 0, "t"))
	if j.MemberEpoch != 2 || j.Assignment == nil || countPartitions(j.Assignment) != 0 {
		t.Fatalf("join: epoch %d, assignment %v", j.MemberEpoch, j.Assignment)
	}
	h.settle()
	if got := h.initCalls(); !slices.Equal(got, []string{"sg/2 t-0 t-1 t-2 t-3 t-4 t-5"}) {
		t.Fatalf("initializations %q", got)
	}
	a := h.ok(h.beat("a", 2))
	if a.MemberEpoch != 3 || countPartitions(a.Assignment) != 6 || a.HeartbeatInterval != 5*time.Second {
		t.Fatalf("after the initialization: epoch %d, assignment %v, interval %v", a.MemberEpoch, a.Assignment, a.HeartbeatInterval)
	}
	// The partitions are initialized: a second member is assigned at its
	// join, and nothing more is initialized.
	b := h.ok(h.beat("b", 0, "t"))
	if b.MemberEpoch != 4 || countPartitions(b.Assignment) != 3 || len(h.initCalls()) != 1 {
		t.Fatalf("second join: epoch %d, assignment %v, initializations %q", b.MemberEpoch, b.Assignment, h.initCalls())
	}
	// a moves to epoch 4 and keeps half of what it had (stickiness).
	a2 := h.ok(h.beat("a", 3))
	if a2.MemberEpoch != 4 || countPartitions(a2.Assignment) != 3 {
		t.Fatalf("a after b joined: epoch %d, assignment %v", a2.MemberEpoch, a2.Assignment)
	}
	for _, tp := range partitionsOf(a2.Assignment) {
		if !hasPartition(a.Assignment, tp) || hasPartition(b.Assignment, tp) {
			t.Fatalf("a got %v, had %v, b has %v", a2.Assignment, a.Assignment, b.Assignment)
		}
	}
	// Nothing changed: the answer carries no assignment, unless the
	// request is a full one (subscribed topics set).
	if r := h.ok(h.beat("a", 4)); r.Assignment != nil {
		t.Fatalf("unchanged heartbeat answered %v", r.Assignment)
	}
	if r := h.ok(h.beat("a", 4, "t")); countPartitions(r.Assignment) != 3 {
		t.Fatalf("full heartbeat answered %v", r.Assignment)
	}
	// The previous epoch is accepted (its answer was lost), older and
	// newer ones are fenced.
	h.ok(h.beat("a", 3))
	if r := h.beat("a", 2); !errors.Is(r.Err, kerr.FencedMemberEpoch) {
		t.Fatalf("epoch 2: %v", r.Err)
	}
	if r := h.beat("a", 9); !errors.Is(r.Err, kerr.FencedMemberEpoch) {
		t.Fatalf("epoch 9: %v", r.Err)
	}
	if r := h.beat("zz", 4); !errors.Is(r.Err, kerr.UnknownMemberID) {
		t.Fatalf("unknown member: %v", r.Err)
	}
}

func TestShareGroupMoreMembersThanPartitionsShare(t *testing.T) {
	h := newShareHarness(t, fakeTopics{"t": 2})
	epochs := map[string]int32{}
	for _, m := range []string{"a", "b", "c"} {
		epochs[m] = h.ok(h.beat(m, 0, "t")).MemberEpoch
		h.settle()
	}
	holders := map[TopicPartition]int{}
	for _, m := range []string{"a", "b", "c"} {
		r := h.ok(h.beat(m, epochs[m]))
		d := h.c.DescribeShareGroups([]string{"sg"})[0]
		var mine MemberAssignment
		for _, dm := range d.Members {
			if dm.MemberID == m {
				mine = dm.Assignment
			}
		}
		if r.MemberEpoch != d.GroupEpoch || countPartitions(mine) == 0 {
			t.Fatalf("%s: epoch %d (group %d), assignment %v", m, r.MemberEpoch, d.GroupEpoch, mine)
		}
		for _, tp := range partitionsOf(mine) {
			holders[tp]++
		}
	}
	// 3 members, 2 partitions: each partition is shared by 2 members.
	if holders[TopicPartition{"t", 0}] != 2 || holders[TopicPartition{"t", 1}] != 2 {
		t.Fatalf("holders %v", holders)
	}
	// group.share.max.size (3 here).
	if r := h.beat("d", 0, "t"); !errors.Is(r.Err, kerr.GroupMaxSizeReached) {
		t.Fatalf("fourth member: %v", r.Err)
	}
}

func TestShareGroupValidation(t *testing.T) {
	h := newShareHarness(t, fakeTopics{"t": 1})
	empty := ""
	for _, tc := range []struct {
		req  ShareHeartbeat
		want string
	}{
		{ShareHeartbeat{GroupID: "sg", SubscribedTopics: []string{"t"}}, "MemberId can't be empty."},
		{ShareHeartbeat{MemberID: "m", SubscribedTopics: []string{"t"}}, "GroupId can't be empty."},
		{ShareHeartbeat{GroupID: "sg", MemberID: "m", RackID: &empty, SubscribedTopics: []string{"t"}}, "RackId can't be empty."},
		{ShareHeartbeat{GroupID: "sg", MemberID: "m"}, "SubscribedTopicNames must be set in first request."},
		{ShareHeartbeat{GroupID: "sg", MemberID: "m", MemberEpoch: -2}, "MemberEpoch is invalid."},
	} {
		r := h.c.ShareHeartbeat(tc.req)
		if !errors.Is(r.Err, kerr.InvalidRequest) || r.ErrMessage != tc.want {
			t.Errorf("%+v: %v %q, want INVALID_REQUEST %q", tc.req, r.Err, r.ErrMessage, tc.want)
		}
	}
	if r := h.beat("m", 1); !errors.Is(r.Err, kerr.GroupIDNotFound) || r.ErrMessage != "Share group sg not found." {
		t.Fatalf("heartbeat to no group: %v %q", r.Err, r.ErrMessage)
	}
	if r := h.beat("m", -1); !errors.Is(r.Err, kerr.GroupIDNotFound) {
		t.Fatalf("leave of no group: %v", r.Err)
	}
	if len(h.store.recs) != 0 {
		t.Fatalf("refused heartbeats wrote %d records", len(h.store.recs))
	}
	// A join whose records cannot be written leaves no group behind.
	h.store.fail = errors.New("log closed")
	if r := h.beat("m", 0, "t"); !errors.Is(r.Err, kerr.CoordinatorNotAvailable) {
		t.Fatalf("join with a failing log: %v", r.Err)
	}
	if ls := h.c.List(nil, nil); len(ls) != 0 {
		t.Fatalf("listed after a failed join: %+v", ls)
	}
	h.store.fail = nil
	if r := h.ok(h.beat("m", 0, "t")); r.MemberEpoch != 2 {
		t.Fatalf("join once the log works: %+v", r)
	}
}

func TestShareGroupLeaveAndSessionTimeoutRelease(t *testing.T) {
	h := newShareHarness(t, fakeTopics{"t": 4})
	a := h.ok(h.beat("a", 0, "t"))
	h.settle()
	b := h.ok(h.beat("b", 0, "t"))
	h.ok(h.beat("a", a.MemberEpoch))
	leave := h.ok(h.beat("b", -1))
	if leave.MemberEpoch != -1 || leave.MemberID != "b" {
		t.Fatalf("leave answered %+v", leave)
	}
	if !slices.Equal(h.released, []string{"sg/b"}) {
		t.Fatalf("released %v after b left", h.released)
	}
	if r := h.beat("b", b.MemberEpoch); !errors.Is(r.Err, kerr.UnknownMemberID) {
		t.Fatalf("b after leaving: %v", r.Err)
	}
	r := h.ok(h.beat("a", a.MemberEpoch+1))
	if countPartitions(r.Assignment) != 4 {
		t.Fatalf("a alone has %v", r.Assignment)
	}
	// The session lapses without heartbeats: a is fenced and its records
	// released; a heartbeat just before the timeout keeps it.
	h.clock.advance(44 * time.Second)
	h.c.Tick()
	h.ok(h.beat("a", r.MemberEpoch))
	h.clock.advance(44 * time.Second)
	h.c.Tick()
	if len(h.released) != 1 {
		t.Fatalf("released %v before the session lapsed", h.released)
	}
	h.clock.advance(2 * time.Second)
	h.c.Tick()
	if !slices.Equal(h.released, []string{"sg/b", "sg/a"}) {
		t.Fatalf("released %v after a's session lapsed", h.released)
	}
	if r := h.beat("a", r.MemberEpoch); !errors.Is(r.Err, kerr.UnknownMemberID) {
		t.Fatalf("a after fencing: %v", r.Err)
	}
	d := h.c.DescribeShareGroups([]string{"sg"})[0]
	if d.Err != nil || d.State != "Empty" || len(d.Members) != 0 {
		t.Fatalf("described %+v", d)
	}
}

func TestShareGroupSubscriptionChange(t *testing.T) {
	h := newShareHarness(t, fakeTopics{"t": 2, "u": 3})
	a := h.ok(h.beat("a", 0, "t"))
	h.settle()
	// A new topic is assigned once its share state is initialized: t's
	// partitions at the subscription's epoch, u's at the next.
	r := h.ok(h.beat("a", a.MemberEpoch, "t", "u"))
	if r.MemberEpoch != a.MemberEpoch+1 || len(r.Assignment["t"]) != 2 || len(r.Assignment["u"]) != 0 {
		t.Fatalf("after subscribing to u: %+v", r)
	}
	h.settle()
	r = h.ok(h.beat("a", r.MemberEpoch))
	if r.MemberEpoch != a.MemberEpoch+2 || countPartitions(r.Assignment) != 5 {
		t.Fatalf("after u was initialized: %+v", r)
	}
	r = h.ok(h.beat("a", r.MemberEpoch, "u"))
	if len(r.Assignment["t"]) != 0 || len(r.Assignment["u"]) != 3 {
		t.Fatalf("after dropping t: %v", r.Assignment)
	}
	// A topic growing bumps the epoch; its new partition is initialized,
	// then assigned.
	h.topics["u"] = 4
	r = h.ok(h.beat("a", r.MemberEpoch))
	if r.Assignment != nil {
		t.Fatalf("u grew, its new partition not initialized: %v", r.Assignment)
	}
	h.settle()
	r = h.ok(h.beat("a", r.MemberEpoch))
	if len(r.Assignment["u"]) != 4 {
		t.Fatalf("after u grew: %v", r.Assignment)
	}
	want := []string{"sg/2 t-0 t-1", "sg/3 u-0 u-1 u-2", "sg/6 u-3"}
	if got := h.initCalls(); !slices.Equal(got, want) {
		t.Fatalf("initializations %q, want %q", got, want)
	}
}

// TestShareGroupRestartReplays loads the records a group wrote into a
// new coordinator: the group, its members, epochs and assignments come
// back, and a member carries on with its epoch.
func TestShareGroupRestartReplays(t *testing.T) {
	h := newShareHarness(t, fakeTopics{"t": 4})
	a := h.ok(h.beat("a", 0, "t"))
	h.settle()
	b := h.ok(h.beat("b", 0, "t"))
	a2 := h.ok(h.beat("a", a.MemberEpoch))
	before := h.c.DescribeShareGroups([]string{"sg"})[0]

	c2 := h.coordinator()
	if skipped, err := c2.Load(replayRecords(h.store.recs)); err != nil || skipped != 0 {
		t.Fatalf("load: skipped %d, %v", skipped, err)
	}
	if got, want := shareStateOf(t, c2, h.topics), shareStateOf(t, h.c, h.topics); !bytes.Equal(got, want) || len(h.stateRecords()) != 2 {
		t.Fatalf("share state after restart %x, before %x (%d records)", got, want, len(h.stateRecords()))
	}
	h.c = c2
	after := c2.DescribeShareGroups([]string{"sg"})[0]
	if fmt.Sprint(before) != fmt.Sprint(after) {
		t.Fatalf("after restart\n%+v\nbefore\n%+v", after, before)
	}
	if r := h.ok(h.beat("a", a2.MemberEpoch)); r.MemberEpoch != a2.MemberEpoch || r.Assignment != nil {
		t.Fatalf("a after restart: %+v", r)
	}
	if r := h.ok(h.beat("b", b.MemberEpoch)); r.MemberEpoch != b.MemberEpoch {
		t.Fatalf("b after restart: %+v", r)
	}
	ls := c2.List(nil, []string{"share"})
	if len(ls) != 1 || ls[0].GroupID != "sg" || ls[0].Type != "share" || ls[0].State != "Stable" || ls[0].ProtocolType != "share" {
		t.Fatalf("listed %+v", ls)
	}
	if ls := c2.List(nil, []string{"classic", "consumer"}); len(ls) != 0 {
		t.Fatalf("listed as other types: %+v", ls)
	}
	// Sessions start again at load: a member that never comes back is
	// fenced a session after the load.
	h.clock.advance(46 * time.Second)
	c2.Tick()
	if d := c2.DescribeShareGroups([]string{"sg"})[0]; len(d.Members) != 0 {
		t.Fatalf("members left after their sessions lapsed: %+v", d.Members)
	}
}

func TestShareGroupIDIsOneType(t *testing.T) {
	h := newShareHarness(t, fakeTopics{"t": 1})
	h.ok(h.beat("a", 0, "t"))
	if r := h.c.ConsumerHeartbeat(ConsumerHeartbeat{GroupID: "sg", MemberID: "c", SubscribedTopics: []string{"t"},
		RebalanceTimeout: time.Minute, OwnedSent: true, Topics: h.topics}); !errors.Is(r.Err, kerr.GroupIDNotFound) ||
		r.ErrMessage != "Group sg is not a consumer group." {
		t.Fatalf("consumer heartbeat to a share group: %v %q", r.Err, r.ErrMessage)
	}
	j := ready(t, h.c.Join(joinReq("sg", "")))
	if !errors.Is(j.Err, kerr.InconsistentGroupProtocol) {
		t.Fatalf("classic join to a share group: %v", j.Err)
	}
	if d := h.c.Describe([]string{"sg"})[0]; !errors.Is(d.Err, kerr.GroupIDNotFound) || d.ErrMessage != "Group sg is not a classic group." {
		t.Fatalf("DescribeGroups of a share group: %v %q", d.Err, d.ErrMessage)
	}
	if d := h.c.DescribeConsumerGroups([]string{"sg"})[0]; !errors.Is(d.Err, kerr.GroupIDNotFound) || d.ErrMessage != "Group sg is not a consumer group." {
		t.Fatalf("ConsumerGroupDescribe of a share group: %v %q", d.Err, d.ErrMessage)
	}
	tp := TopicPartition{"t", 0}
	if err, _, _ := h.c.CommitOffsets(CommitRequest{GroupID: "sg", Generation: -1, Offsets: []OffsetToCommit{{TopicPartition: tp, Offset: 1}}}); !errors.Is(err, kerr.GroupIDNotFound) {
		t.Fatalf("OffsetCommit to a share group: %v", err)
	}
	if err, _ := h.c.FetchOffsets("sg", []TopicPartition{tp}); !errors.Is(err, kerr.GroupIDNotFound) {
		t.Fatalf("OffsetFetch of a share group: %v", err)
	}
	if err, _, _ := h.c.DeleteOffsets("sg", []TopicPartition{tp}); !errors.Is(err, kerr.GroupIDNotFound) {
		t.Fatalf("OffsetDelete of a share group: %v", err)
	}
	// The reverse: a consumer group's id is not a share group.
	if r := h.c.ConsumerHeartbeat(ConsumerHeartbeat{GroupID: "cg", MemberID: "c", SubscribedTopics: []string{"t"},
		RebalanceTimeout: time.Minute, OwnedSent: true, Topics: h.topics}); r.Err != nil {
		t.Fatalf("consumer join: %v", r.Err)
	}
	r := h.c.ShareHeartbeat(ShareHeartbeat{GroupID: "cg", MemberID: "s", SubscribedTopics: []string{"t"}, Topics: h.topics})
	if !errors.Is(r.Err, kerr.GroupIDNotFound) || r.ErrMessage != "Group cg is not a share group." {
		t.Fatalf("share heartbeat to a consumer group: %v %q", r.Err, r.ErrMessage)
	}
	if d := h.c.DescribeShareGroups([]string{"cg", "nope"}); !errors.Is(d[0].Err, kerr.GroupIDNotFound) ||
		d[0].ErrMessage != "Group cg is not a share group." || !errors.Is(d[1].Err, kerr.GroupIDNotFound) {
		t.Fatalf("ShareGroupDescribe of other ids: %+v", d)
	}
}

func TestShareGroupDelete(t *testing.T) {
	h := newShareHarness(t, fakeTopics{"t": 1})
	a := h.ok(h.beat("a", 0, "t"))
	errs, _ := h.c.DeleteGroups([]string{"sg"})
	if !errors.Is(errs[0], kerr.NonEmptyGroup) {
		t.Fatalf("deleting a group with a member: %v", errs[0])
	}
	h.ok(h.beat("a", -1))
	_ = a
	errs, _ = h.c.DeleteGroups([]string{"sg"})
	if errs[0] != nil {
		t.Fatalf("deleting the empty group: %v", errs[0])
	}
	if ls := h.c.List(nil, nil); len(ls) != 0 {
		t.Fatalf("listed after delete: %+v", ls)
	}
	c2 := h.coordinator()
	if _, err := c2.Load(replayRecords(h.store.recs)); err != nil {
		t.Fatal(err)
	}
	if ls := c2.List(nil, nil); len(ls) != 0 {
		t.Fatalf("listed after delete and restart: %+v", ls)
	}
	// The id is free for a new group of any type.
	h.c = c2
	if r := h.ok(h.beat("b", 0, "t")); r.MemberEpoch != 2 {
		t.Fatalf("new group after delete: %+v", r)
	}
}

// TestShareGroupRecordBytes pins the values against the layouts of
// Kafka 4.4's message JSONs.
func TestShareGroupRecordBytes(t *testing.T) {
	rack := "r"
	id := [16]byte{15: 1}
	for _, tc := range []struct {
		name string
		got  []byte
		want string
	}{
		{"ShareGroupMetadataValue", shareGroupMetadataValue(3, 0x0102030405060708), "0000" + "00000003" + "0102030405060708" + "00"},
		{"ShareGroupMemberMetadataValue", (&shareMemberValue{RackID: &rack, ClientID: "c", ClientHost: "/h", SubscribedTopics: []string{"t"}}).encode(),
			"0000" + "0272" + "0263" + "032f68" + "02" + "0274" + "00"},
		{"ShareGroupCurrentMemberAssignmentValue", (&shareCurrentValue{MemberEpoch: 5, PreviousMemberEpoch: 4, Assigned: []topicPartitions{{TopicID: id, Partitions: []int32{2}}}}).encode(),
			"0000" + "00000005" + "00000004" + "00" + "02" + hex.EncodeToString(id[:]) + "02" + "00000002" + "00" + "00"},
		{"ShareGroupStatePartitionMetadataValue", (&shareStateValue{Initialized: []shareStateTopic{{TopicID: id, TopicName: "t", Partitions: []int32{0}}}}).encode(),
			"0000" + "01" + "02" + hex.EncodeToString(id[:]) + "0274" + "02" + "00000000" + "00" + "01" + "00"},
	} {
		if got := hex.EncodeToString(tc.got); got != tc.want {
			t.Errorf("%s: %s, want %s", tc.name, got, tc.want)
		}
	}
	key := consumerKey(keyShareGroupMemberMetadata, "g", "m")
	if !bytes.Equal(key, []byte{0, 10, 0, 1, 'g', 0, 1, 'm'}) {
		t.Errorf("member key %x", key)
	}
	// Round trips, and truncated values are refused.
	v := (&shareStateValue{Initialized: []shareStateTopic{{TopicID: id, TopicName: "t", Partitions: []int32{0, 1}}}}).encode()
	rec, ok, err := decodeShareRecord(consumerKey(keyShareGroupStatePartitionMetadata, "g"), v)
	if !ok || err != nil || len(rec.State.Initialized) != 1 || !slices.Equal(rec.State.Initialized[0].Partitions, []int32{0, 1}) {
		t.Fatalf("decoded %+v %v %v", rec, ok, err)
	}
	for i := range v {
		if _, _, err := decodeShareRecord(consumerKey(keyShareGroupStatePartitionMetadata, "g"), v[:i]); err == nil {
			t.Fatalf("decoded %d of %d bytes", i, len(v))
		}
	}
}

func TestShareAssignorBalance(t *testing.T) {
	for _, tc := range []struct{ members, partitions int }{{1, 6}, {3, 6}, {4, 6}, {6, 6}, {7, 6}, {10, 3}, {5, 1}} {
		var ms []shareAssignMember
		for i := range tc.members {
			ms = append(ms, shareAssignMember{ID: fmt.Sprintf("m%02d", i), Topics: []string{"t"}})
		}
		out := assignShare(ms, map[string]int32{"t": int32(tc.partitions)}, nil)
		sharing := (tc.members + tc.partitions - 1) / tc.partitions
		holders := map[int32]int{}
		lo, hi := 1<<30, 0
		for _, a := range out {
			lo, hi = min(lo, len(a["t"])), max(hi, len(a["t"]))
			for _, p := range a["t"] {
				holders[p]++
			}
		}
		if hi-lo > 1 || lo == 0 {
			t.Errorf("%+v: member counts %d..%d", tc, lo, hi)
		}
		for p := range int32(tc.partitions) {
			if holders[p] != sharing {
				t.Errorf("%+v: partition %d held by %d, want %d", tc, p, holders[p], sharing)
			}
		}
	}
}

// TestShareGroupPartitionReload: while the group's partition is
// unloaded its id answers NOT_COORDINATOR, and loading it again brings the
// group back from its records, its member carrying on with its epoch.
func TestShareGroupPartitionReload(t *testing.T) {
	const partitions = 3
	h := newShareHarness(t, fakeTopics{"t": 2})
	store := &partitionedStore{partitions: partitions}
	h.c = New(testConfig(), Options{Clock: h.clock, Store: store, Topics: h.topics})
	a := h.ok(h.beat("a", 0, "t"))
	p := PartitionFor("sg", partitions)
	h.c.UnloadPartition(p, partitions)
	if r := h.beat("a", a.MemberEpoch); !errors.Is(r.Err, kerr.NotCoordinator) {
		t.Fatalf("heartbeat while unloaded: %v", r.Err)
	}
	if _, err := h.c.LoadPartition(p, partitions, store); err != nil {
		t.Fatal(err)
	}
	if r := h.ok(h.beat("a", a.MemberEpoch)); r.MemberEpoch != a.MemberEpoch || r.Assignment != nil {
		t.Fatalf("after the reload: %+v", r)
	}
}

// FuzzDecodeShareRecord: a share group record from disk never panics the
// decoder, and one it accepts replays without panicking either.
func FuzzDecodeShareRecord(f *testing.F) {
	id := [16]byte{15: 1}
	rack := "r"
	f.Add(consumerKey(keyShareGroupMetadata, "g"), shareGroupMetadataValue(3, 9))
	f.Add(consumerKey(keyShareGroupMemberMetadata, "g", "m"), (&shareMemberValue{RackID: &rack, ClientID: "c", SubscribedTopics: []string{"t"}}).encode())
	f.Add(consumerKey(keyShareGroupTargetMember, "g", "m"), targetMemberValue([]topicPartitions{{TopicID: id, Partitions: []int32{1}}}))
	f.Add(consumerKey(keyShareGroupTargetMetadata, "g"), targetMetadataValue(4))
	f.Add(consumerKey(keyShareGroupCurrentAssignment, "g", "m"), (&shareCurrentValue{MemberEpoch: 2, Assigned: []topicPartitions{{TopicID: id, Partitions: []int32{0}}}}).encode())
	f.Add(consumerKey(keyShareGroupStatePartitionMetadata, "g"), (&shareStateValue{Initialized: []shareStateTopic{{TopicID: id, TopicName: "t", Partitions: []int32{0}}}}).encode())
	topics := fakeTopics{"t": 2}
	f.Fuzz(func(t *testing.T, key, value []byte) {
		rec, ok, err := decodeShareRecord(key, value)
		if !ok || err != nil {
			return
		}
		c := New(testConfig(), Options{Topics: topics})
		g := newShareGroup(newClassicGroup(c, rec.Group, time.Unix(0, 0)))
		g.replay(rec, topics, DefaultShareConfig(), time.Unix(0, 0))
	})
}

// TestShareGroupStateLifecycle: the share state records of Kafka 4.4
// (initializing at the heartbeat, initialized once the share coordinator
// answered), a failed initialization leaving the partitions
// uninitialized and asked for again, and an initialization left
// unanswered asked for again after group.share.initialize.retry.interval.ms.
func TestShareGroupStateLifecycle(t *testing.T) {
	h := newShareHarness(t, fakeTopics{"t": 2})
	h.initErr = errors.New("no share coordinator")
	a := h.ok(h.beat("a", 0, "t"))
	h.settle()
	st := h.stateRecords()
	if len(st) != 2 || len(st[0].Initializing) != 1 || !slices.Equal(st[0].Initializing[0].Partitions, []int32{0, 1}) ||
		len(st[0].Initialized) != 0 || len(st[1].Initializing) != 0 || len(st[1].Initialized) != 0 {
		t.Fatalf("state records after a failed initialization: %+v", st)
	}
	r := h.ok(h.beat("a", a.MemberEpoch))
	if countPartitions(r.Assignment) != 0 && r.Assignment != nil {
		t.Fatalf("assigned uninitialized partitions: %v", r.Assignment)
	}
	h.mu.Lock()
	h.initErr = nil
	h.mu.Unlock()
	h.settle()
	if got := h.initCalls(); len(got) != 2 || got[1] != "sg/2 t-0 t-1" {
		t.Fatalf("initializations %q", got)
	}
	st = h.stateRecords()
	if last := st[len(st)-1]; len(last.Initializing) != 0 || len(last.Initialized) != 1 || !slices.Equal(last.Initialized[0].Partitions, []int32{0, 1}) {
		t.Fatalf("state record after the initialization: %+v", last)
	}
	r = h.ok(h.beat("a", r.MemberEpoch))
	if r.MemberEpoch != 3 || countPartitions(r.Assignment) != 2 {
		t.Fatalf("after the initialization: %+v", r)
	}

	// Without an initializer the partitions stay initializing; a
	// heartbeat within the retry interval does not ask again, one after
	// it does.
	h2 := newShareHarness(t, fakeTopics{"t": 1})
	h2.c.SetShareInitializer(nil)
	b := h2.ok(h2.beat("b", 0, "t"))
	h2.clock.advance(29 * time.Second)
	h2.ok(h2.beat("b", b.MemberEpoch))
	if n := len(h2.stateRecords()); n != 1 {
		t.Fatalf("%d state records within the retry interval", n)
	}
	h2.clock.advance(2 * time.Second)
	h2.ok(h2.beat("b", b.MemberEpoch))
	if st := h2.stateRecords(); len(st) != 2 || len(st[1].Initializing) != 1 {
		t.Fatalf("state records after the retry interval: %+v", st)
	}
}
