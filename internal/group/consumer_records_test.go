package group

import (
	"bytes"
	"encoding/hex"
	"reflect"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
)

func TestConsumerRecordRoundTrips(t *testing.T) {
	id := [16]byte{0: 1, 15: 2}
	tps := []topicPartitions{{TopicID: id, Partitions: []int32{0, 3}}, {TopicID: [16]byte{9}, Partitions: []int32{1}}}
	mv := &memberMetadataValue{InstanceID: strp("i"), RackID: strp("r"), ClientID: "c", ClientHost: "/127.0.0.1",
		SubscribedTopics: []string{"a", "b"}, SubscribedRegex: strp("x.*"), RebalanceTimeout: 300000, ServerAssignor: strp("uniform")}
	mvNulls := &memberMetadataValue{ClientID: "c", ClientHost: "h", SubscribedTopics: []string{"a"}, RebalanceTimeout: -1}
	cv := &currentAssignmentValue{MemberEpoch: 5, PreviousMemberEpoch: 4, State: 1, Assigned: tps[:1], PendingRevocation: tps[1:]}
	cases := []struct {
		name       string
		key, value []byte
		want       consumerRecord
	}{
		{"epoch", consumerGroupMetadataKey("g"), consumerGroupMetadataValue(7, 0), consumerRecord{Type: 3, Group: "g", Epoch: 7}},
		{"epoch and hash", consumerGroupMetadataKey("g"), consumerGroupMetadataValue(7, -5), consumerRecord{Type: 3, Group: "g", Epoch: 7, MetadataHash: -5}},
		{"member", consumerKey(5, "g", "m"), mv.encode(), consumerRecord{Type: 5, Group: "g", Member: "m", Member5: mv}},
		{"member, nulls", consumerKey(5, "g", "m"), mvNulls.encode(), consumerRecord{Type: 5, Group: "g", Member: "m", Member5: mvNulls}},
		{"target epoch", consumerKey(6, "g"), targetMetadataValue(9), consumerRecord{Type: 6, Group: "g", Epoch: 9}},
		{"target member", consumerKey(7, "g", "m"), targetMemberValue(tps), consumerRecord{Type: 7, Group: "g", Member: "m", Target: tps}},
		{"current", consumerKey(8, "g", "m"), cv.encode(), consumerRecord{Type: 8, Group: "g", Member: "m", Current: cv}},
		{"epoch tombstone", consumerGroupMetadataKey("g"), nil, consumerRecord{Type: 3, Group: "g", Tombstone: true}},
		{"partition metadata tombstone", consumerKey(4, "g"), nil, consumerRecord{Type: 4, Group: "g", Tombstone: true}},
		{"member tombstone", consumerKey(5, "g", "m"), nil, consumerRecord{Type: 5, Group: "g", Member: "m", Tombstone: true}},
		{"target tombstone", consumerKey(7, "g", "m"), nil, consumerRecord{Type: 7, Group: "g", Member: "m", Tombstone: true}},
		{"current tombstone", consumerKey(8, "g", "m"), nil, consumerRecord{Type: 8, Group: "g", Member: "m", Tombstone: true}},
	}
	for _, tc := range cases {
		got, ok, err := decodeConsumerRecord(tc.key, tc.value)
		if !ok || err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: ok %v err %v\n got %+v\nwant %+v", tc.name, ok, err, got, tc.want)
		}
	}
	if _, ok, _ := decodeConsumerRecord(offsetCommitKey("g", TopicPartition{"t", 0}), nil); ok {
		t.Error("an offset commit key was taken for a consumer group record")
	}
}

// TestConsumerRecordBytes pins the encodings to Kafka's schemas, byte
// by byte.
func TestConsumerRecordBytes(t *testing.T) {
	id := [16]byte{15: 0xab}
	cases := []struct {
		name string
		got  []byte
		want string
	}{
		{"member key", consumerKey(5, "g", "m"), "0005" + "000167" + "00016d"},
		{"group epoch", consumerGroupMetadataValue(7, 0), "0000" + "00000007" + "00"},
		{"group epoch, hash", consumerGroupMetadataValue(7, 1), "0000" + "00000007" + "01" + "00" + "08" + "0000000000000001"},
		{"target epoch", targetMetadataValue(3), "0000" + "00000003" + "00"},
		{"member metadata", (&memberMetadataValue{RackID: strp("r"), ClientID: "c", ClientHost: "h",
			SubscribedTopics: []string{"t"}, RebalanceTimeout: 1000}).encode(),
			"0000" + "00" + "0272" + "0263" + "0268" + "02" + "0274" + "00" + "000003e8" + "00" + "00"},
		{"current assignment", (&currentAssignmentValue{MemberEpoch: 2, PreviousMemberEpoch: 1, State: 0,
			Assigned: []topicPartitions{{TopicID: id, Partitions: []int32{0, 1}}}}).encode(),
			"0000" + "00000002" + "00000001" + "00" + "02" + "000000000000000000000000000000ab" + "03" + "00000000" + "00000001" + "00" + "01" + "00"},
	}
	for _, tc := range cases {
		if got := hex.EncodeToString(tc.got); got != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.name, got, tc.want)
		}
	}
}

// restoredHarness runs a consumer group over a memStore, with topics
// that have ids.
func restoredHarness(t *testing.T, topics fakeTopics) (*consumerHarness, *memStore) {
	clock := &fakeClock{now: time.Unix(1_700_000_000, 0)}
	store := &memStore{}
	c := New(testConfig(), Options{Clock: clock, Store: store, Topics: topics})
	return &consumerHarness{t: t, clock: clock, c: c, topics: topics}, store
}

func (h *consumerHarness) restart(store *memStore) *Coordinator {
	h.t.Helper()
	halt(h.c)
	c2 := New(testConfig(), Options{Clock: h.clock, Store: &memStore{}, Topics: h.topics})
	if skipped, err := c2.Load(replayRecords(store.recs)); err != nil || skipped != 0 {
		h.t.Fatalf("load: skipped %d, %v", skipped, err)
	}
	return c2
}

func TestConsumerGroupRestoredFromRecords(t *testing.T) {
	h, store := restoredHarness(t, fakeTopics{"t": 6, "u": 3, "v": 2})
	a, _ := h.join("a", "t")
	b, _ := h.join("b", "t", "u")
	h.beat(a) // a gives up what b is to get
	h.beat(b)
	// A static member with a regex, a rack and an assignor of its own.
	s := &cclient{id: "s", owned: MemberAssignment{}}
	s.apply(h.c.ConsumerHeartbeat(ConsumerHeartbeat{GroupID: "g", MemberID: "s", InstanceID: strp("inst"), RackID: strp("rack"),
		SubscribedTopics: []string{}, SubscribedRegex: strp("v|u"), ServerAssignor: strp("range"), RebalanceTimeout: time.Minute,
		OwnedSent: true, Topics: h.topics, ClientID: "cid", ClientHost: "/10.0.0.1"}))
	h.beat(a) // a now has partitions to revoke: it is left mid-reconciliation
	h.beat(s)
	// A member that came and went leaves tombstones only.
	gone, _ := h.join("gone", "t")
	h.c.ConsumerHeartbeat(ConsumerHeartbeat{GroupID: "g", MemberID: gone.id, MemberEpoch: -1, Topics: h.topics})
	h.beat(b)
	h.checkExclusive()

	before := h.c.DescribeConsumerGroups([]string{"g"})[0]
	c2 := h.restart(store)
	after := c2.DescribeConsumerGroups([]string{"g"})[0]
	if !reflect.DeepEqual(before, after) {
		t.Fatalf("restored group differs:\nbefore %+v\nafter  %+v", before, after)
	}
	if len(after.Members) != 3 || after.Assignor != "range" {
		t.Fatalf("restored: %+v", after)
	}

	// The members carry on with their epochs on both coordinators alike,
	// without a new group epoch.
	for _, cl := range []*cclient{a, b, s, a, b} {
		req := ConsumerHeartbeat{GroupID: "g", MemberID: cl.id, MemberEpoch: cl.epoch,
			Owned: partitionsOf(cl.owned), OwnedSent: true, Topics: h.topics}
		r1, r2 := h.c.ConsumerHeartbeat(req), c2.ConsumerHeartbeat(req)
		r1.Wait, r2.Wait = nil, nil
		if r2.Err != nil || !reflect.DeepEqual(r1, r2) {
			t.Fatalf("heartbeat of %s after restart: %+v, want %+v", cl.id, r2, r1)
		}
		cl.apply(r2)
	}
	if d := c2.DescribeConsumerGroups([]string{"g"})[0]; d.Epoch != before.Epoch || !reflect.DeepEqual(d, h.c.DescribeConsumerGroups([]string{"g"})[0]) {
		t.Fatalf("after heartbeats: %+v", d)
	}

	// Session timers started again at load: a member that stays silent
	// is removed a session timeout later, the others stay.
	h.clock.advance(30 * time.Second)
	for _, cl := range []*cclient{a, b} {
		cl.apply(c2.ConsumerHeartbeat(ConsumerHeartbeat{GroupID: "g", MemberID: cl.id, MemberEpoch: cl.epoch,
			Owned: partitionsOf(cl.owned), OwnedSent: true, Topics: h.topics}))
	}
	h.clock.advance(20 * time.Second)
	c2.Tick()
	if d := c2.DescribeConsumerGroups([]string{"g"})[0]; len(d.Members) != 2 || d.Epoch != before.Epoch+1 {
		t.Fatalf("after s's session lapsed: %+v", d)
	}
}

func TestConsumerGroupRestoredStaticMemberThatLeft(t *testing.T) {
	h, store := restoredHarness(t, fakeTopics{"t": 4})
	a, _ := h.join("a", "t")
	s := &cclient{id: "s1", owned: MemberAssignment{}}
	s.apply(h.c.ConsumerHeartbeat(ConsumerHeartbeat{GroupID: "g", MemberID: "s1", InstanceID: strp("inst"),
		SubscribedTopics: []string{"t"}, OwnedSent: true, Topics: h.topics}))
	h.beat(a)
	h.beat(s)
	h.beat(a)
	h.beat(s)
	owned := cloneAssignment(s.owned)
	h.c.ConsumerHeartbeat(ConsumerHeartbeat{GroupID: "g", MemberID: "s1", InstanceID: strp("inst"), MemberEpoch: -2, Topics: h.topics})
	c2 := h.restart(store)
	if !reflect.DeepEqual(h.c.DescribeConsumerGroups([]string{"g"}), c2.DescribeConsumerGroups([]string{"g"})) {
		t.Fatal("restored group differs")
	}
	// Its next incarnation takes its place and partitions back.
	r := c2.ConsumerHeartbeat(ConsumerHeartbeat{GroupID: "g", MemberID: "s2", InstanceID: strp("inst"),
		SubscribedTopics: []string{"t"}, OwnedSent: true, Topics: h.topics})
	if r.Err != nil || !reflect.DeepEqual(r.Assignment, owned) || len(owned) == 0 {
		t.Fatalf("static member back: %+v, want %v", r, owned)
	}
}

func TestConsumerGroupTopicsChangedWhileDown(t *testing.T) {
	h, store := restoredHarness(t, fakeTopics{"t": 2})
	a, _ := h.join("a", "t")
	h.beat(a)
	epoch := h.c.DescribeConsumerGroups([]string{"g"})[0].Epoch
	h.topics = fakeTopics{"t": 4}
	c2 := h.restart(store)
	r := c2.ConsumerHeartbeat(ConsumerHeartbeat{GroupID: "g", MemberID: "a", MemberEpoch: a.epoch,
		Owned: partitionsOf(a.owned), OwnedSent: true, Topics: h.topics})
	if r.Err != nil || r.MemberEpoch != epoch+1 || len(r.Assignment["t"]) != 4 {
		t.Fatalf("after the topic grew: %+v", r)
	}
}

func TestConsumerGroupRecordsWritten(t *testing.T) {
	h, store := restoredHarness(t, fakeTopics{"t": 2})
	a, _ := h.join("a", "t")
	types := func() []int16 {
		var out []int16
		for _, r := range store.recs {
			rec, ok, err := decodeConsumerRecord(r.Key, r.Value)
			if err != nil {
				t.Fatalf("record %x: %v", r.Key, err)
			}
			if !ok {
				continue // the classic group's and offsets' records
			}
			if rec.Tombstone {
				out = append(out, -rec.Type)
			} else {
				out = append(out, rec.Type)
			}
		}
		store.recs = nil
		return out
	}
	// A join: member, epoch, target, target epoch, current assignment.
	if got := types(); !reflect.DeepEqual(got, []int16{5, 3, 7, 6, 8}) {
		t.Fatalf("join wrote %v", got)
	}
	// A heartbeat that changes nothing writes nothing.
	h.beat(a)
	if got := types(); len(got) != 0 {
		t.Fatalf("steady heartbeat wrote %v", got)
	}
	// A leave: the member's tombstones, the epoch, the target epoch.
	r := h.c.ConsumerHeartbeat(ConsumerHeartbeat{GroupID: "g", MemberID: "a", MemberEpoch: -1, Topics: h.topics})
	if r.Err != nil {
		t.Fatal(r.Err)
	}
	if got := types(); !reflect.DeepEqual(got, []int16{-8, -7, -5, 3, 6}) {
		t.Fatalf("leave wrote %v", got)
	}
	// Deleting the empty group tombstones its group-level records.
	if errs, _ := h.c.DeleteGroups([]string{"g"}); errs[0] != nil {
		t.Fatal(errs[0])
	}
	got := types()
	for _, want := range []int16{-6, -4, -3} {
		found := false
		for _, g := range got {
			found = found || g == want
		}
		if !found {
			t.Fatalf("delete wrote %v, missing %d", got, want)
		}
	}
}

func TestConsumerGroupDeletedStaysDeleted(t *testing.T) {
	h, store := restoredHarness(t, fakeTopics{"t": 2})
	a, _ := h.join("a", "t")
	h.c.CommitOffsets(CommitRequest{GroupID: "g", MemberID: "a", Generation: a.epoch,
		Offsets: []OffsetToCommit{{TopicPartition: TopicPartition{"t", 0}, Offset: 9}}})
	h.c.ConsumerHeartbeat(ConsumerHeartbeat{GroupID: "g", MemberID: "a", MemberEpoch: -1, Topics: h.topics})
	if errs, _ := h.c.DeleteGroups([]string{"g"}); errs[0] != nil {
		t.Fatal(errs[0])
	}
	c2 := h.restart(store)
	if d := c2.DescribeConsumerGroups([]string{"g"})[0]; d.Err != kerr.GroupIDNotFound {
		t.Fatalf("deleted group came back: %+v", d)
	}
	if l := c2.List(nil, nil); len(l) != 0 {
		t.Fatalf("listed after delete: %+v", l)
	}
}

func TestDescribeGroupsOfConsumerGroup(t *testing.T) {
	h, _ := restoredHarness(t, fakeTopics{"t": 2})
	h.join("a", "t")
	d := h.c.Describe([]string{"g"})[0]
	if d.Err != kerr.GroupIDNotFound || d.ErrMessage != "Group g is not a classic group." || d.State != "Dead" || len(d.Members) != 0 {
		t.Fatalf("DescribeGroups of a consumer group: %+v", d)
	}
	if l := h.c.List(nil, []string{"consumer"}); len(l) != 1 || l[0].Type != "consumer" || l[0].ProtocolType != "consumer" {
		t.Fatalf("ListGroups: %+v", l)
	}
}

func TestConsumerMemberAndClassicGroups(t *testing.T) {
	ch := newHarness(t, testConfig())
	store := ch.store
	topics := fakeTopics{"t": 2}
	ch.c.topicsView = topics
	ids, _ := ch.stableGroup("g", 1)

	// A non-empty classic group is not converted: Kafka's answer with
	// group.consumer.migration.policy=disabled.
	r := ch.c.ConsumerHeartbeat(ConsumerHeartbeat{GroupID: "g", MemberID: "x", SubscribedTopics: []string{"t"}, OwnedSent: true, Topics: topics})
	if r.Err != kerr.GroupIDNotFound || r.ErrMessage != "Cannot upgrade classic group g to consumer group because online upgrade is disabled." {
		t.Fatalf("consumer member into a classic group: %+v", r)
	}

	// Once empty, it becomes a consumer group; its classic metadata is
	// deleted first.
	if err, _ := ch.c.Leave("g", []MemberIdentity{{MemberID: ids[0]}}); err != nil {
		t.Fatal(err)
	}
	store.recs = nil
	r = ch.c.ConsumerHeartbeat(ConsumerHeartbeat{GroupID: "g", MemberID: "x", SubscribedTopics: []string{"t"}, OwnedSent: true, Topics: topics})
	if r.Err != nil || r.MemberEpoch != 2 || len(r.Assignment["t"]) != 2 {
		t.Fatalf("consumer member into an empty classic group: %+v", r)
	}
	if len(store.recs) == 0 || !bytes.Equal(store.recs[0].Key, groupMetadataKey("g")) || store.recs[0].Value != nil {
		t.Fatalf("first record written: %+v", store.recs[0])
	}
	if l := ch.c.List(nil, nil); len(l) != 1 || l[0].Type != "consumer" {
		t.Fatalf("ListGroups: %+v", l)
	}

	// Empty again, a classic member takes the id back; the consumer
	// group's records are tombstoned, so a restart keeps it classic.
	ch.c.ConsumerHeartbeat(ConsumerHeartbeat{GroupID: "g", MemberID: "x", MemberEpoch: -1, Topics: topics})
	ch.stableGroup("g", 1)
	c2 := New(testConfig(), Options{Clock: ch.clock, Topics: topics})
	if _, err := c2.Load(replayRecords(store.recs)); err != nil {
		t.Fatal(err)
	}
	if d := c2.DescribeConsumerGroups([]string{"g"})[0]; d.Err != kerr.GroupIDNotFound {
		t.Fatalf("the consumer group came back: %+v", d)
	}
	if l := c2.List(nil, nil); len(l) != 1 || l[0].Type != "classic" {
		t.Fatalf("ListGroups after restart: %+v", l)
	}
}

// FuzzDecodeConsumerRecord: consumer-group records from disk never panic
// the decoder, and what decodes encodes back to the same bytes.
func FuzzDecodeConsumerRecord(f *testing.F) {
	tps := []topicPartitions{{TopicID: [16]byte{1}, Partitions: []int32{0, 2}}}
	f.Add(consumerGroupMetadataKey("g"), consumerGroupMetadataValue(7, 3), false)
	f.Add(consumerGroupMetadataKey("g"), []byte(nil), true)
	f.Add(consumerKey(5, "g", "m"), (&memberMetadataValue{ClientID: "c", SubscribedTopics: []string{"t"}, SubscribedRegex: strp("x")}).encode(), false)
	f.Add(consumerKey(6, "g"), targetMetadataValue(2), false)
	f.Add(consumerKey(7, "g", "m"), targetMemberValue(tps), false)
	f.Add(consumerKey(8, "g", "m"), (&currentAssignmentValue{MemberEpoch: 1, Assigned: tps, PendingRevocation: tps}).encode(), false)
	f.Add(consumerKey(4, "g"), []byte{0, 0, 1, 0}, false)
	f.Add([]byte{0, 8, 0xff, 0xff}, []byte{0, 0, 0xff, 0xff, 0xff, 0xff, 0x0f}, false)
	f.Fuzz(func(t *testing.T, key, value []byte, tombstone bool) {
		if tombstone {
			value = nil
		}
		rec, ok, err := decodeConsumerRecord(key, value)
		if !ok || err != nil || rec.Tombstone {
			return
		}
		var again []byte
		switch rec.Type {
		case keyConsumerGroupMemberMetadata:
			again = rec.Member5.encode()
		case keyConsumerGroupTargetMember:
			again = targetMemberValue(rec.Target)
		case keyConsumerGroupCurrentAssignment:
			again = rec.Current.encode()
		default:
			return
		}
		if rec2, ok, err := decodeConsumerRecord(key, again); !ok || err != nil || !reflect.DeepEqual(rec, rec2) {
			t.Fatalf("does not round-trip: %+v vs %+v (%v)", rec, rec2, err)
		}
	})
}

// TestConsumerGroupTombstonesAlone: a group deleted with the consumer
// group's tombstones only (as Kafka writes them, with no classic group
// record) does not come back as an empty classic group.
func TestConsumerGroupTombstonesAlone(t *testing.T) {
	h, store := restoredHarness(t, fakeTopics{"t": 2})
	h.join("a", "t")
	h.c.ConsumerHeartbeat(ConsumerHeartbeat{GroupID: "g", MemberID: "a", MemberEpoch: -1, Topics: h.topics})
	holder := h.c.group("g", false)
	holder.mu.Lock()
	store.recs = append(store.recs, h.c.consumerGroupOf(holder, false).tombstones()...)
	holder.mu.Unlock()
	c2 := h.restart(store)
	if l := c2.List(nil, nil); len(l) != 0 {
		t.Fatalf("listed after the tombstones: %+v", l)
	}
}
