package integration

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"slices"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/karst-broker/karst/karsttest"
)

// shareHeartbeat sends a ShareGroupHeartbeat v1 for h's group.
func (h *shareHarness) shareHeartbeat(member string, epoch int32, topics ...string) *kmsg.ShareGroupHeartbeatResponse {
	h.t.Helper()
	req := kmsg.NewPtrShareGroupHeartbeatRequest()
	req.GroupID, req.MemberID, req.MemberEpoch = h.group, member, epoch
	if topics != nil {
		req.SubscribedTopicNames = topics
	}
	resp, err := req.RequestWith(h.ctx, h.cl)
	if err != nil {
		h.t.Fatal(err)
	}
	return resp
}

func (h *shareHarness) describeShareGroup() kmsg.ShareGroupDescribeResponseGroup {
	h.t.Helper()
	req := kmsg.NewPtrShareGroupDescribeRequest()
	req.GroupIDs = []string{h.group}
	resp, err := req.RequestWith(h.ctx, h.cl)
	if err != nil {
		h.t.Fatal(err)
	}
	if len(resp.Groups) != 1 {
		h.t.Fatalf("described %d groups", len(resp.Groups))
	}
	return resp.Groups[0]
}

// shareMember is a share consumer's side of the heartbeats: its epoch and
// the partitions it was last given.
type shareMember struct {
	id       string
	epoch    int32
	assigned []int32
}

func (h *shareHarness) beatMember(m *shareMember, topics ...string) {
	h.t.Helper()
	resp := h.shareHeartbeat(m.id, m.epoch, topics...)
	if resp.ErrorCode != 0 {
		h.t.Fatalf("%s heartbeat: %v", m.id, kerr.ErrorForCode(resp.ErrorCode))
	}
	m.epoch = resp.MemberEpoch
	if resp.Assignment != nil {
		m.assigned = nil
		for _, tp := range resp.Assignment.TopicPartitions {
			if tp.TopicID != h.id {
				h.t.Fatalf("%s assigned topic %x", m.id, tp.TopicID)
			}
			m.assigned = append(m.assigned, tp.Partitions...)
		}
		slices.Sort(m.assigned)
	}
}

// settle heartbeats every member until all are at the group's epoch
// with partitions assigned: the group assigns its partitions only once
// their share state is initialized, which follows the first heartbeat.
func (h *shareHarness) settle(members ...*shareMember) int32 {
	h.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		for _, m := range members {
			h.beatMember(m)
		}
		d := h.describeShareGroup()
		done := true
		for _, m := range members {
			done = done && m.epoch == d.GroupEpoch && len(m.assigned) > 0
		}
		if done {
			return d.GroupEpoch
		}
		time.Sleep(20 * time.Millisecond)
	}
	h.t.Fatalf("members did not reach the group epoch with an assignment: %+v", members)
	return 0
}

// TestShareGroupMembership: three members of a share group on a topic
// of six partitions get two partitions each, the group is described and
// listed as a share group and answers the other group types' requests
// as Kafka does; a member that leaves gives its acquired records back at
// once, and the emptied group is deleted.
func TestShareGroupMembership(t *testing.T) {
	b := karsttest.Start(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	h := newShareHarness(t, ctx, b.Addr(), "sg-six", 6, 0)
	// The harness's client partitions by key: these ten go to partition 0.
	pc, err := kgo.NewClient(kgo.SeedBrokers(b.Addr()), kgo.DefaultProduceTopic(h.topic), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	if err != nil {
		t.Fatal(err)
	}
	defer pc.Close()
	for i := range 10 {
		if err := pc.ProduceSync(ctx, &kgo.Record{Partition: 0, Value: []byte(fmt.Sprintf("r%03d", i))}).FirstErr(); err != nil {
			t.Fatal(err)
		}
	}
	members := []*shareMember{{id: "member-1"}, {id: "member-2"}, {id: "member-3"}}
	for _, m := range members {
		h.beatMember(m, h.topic)
	}
	epoch := h.settle(members...)
	seen := map[int32]string{}
	for _, m := range members {
		if len(m.assigned) != 2 {
			t.Fatalf("%s is assigned %v", m.id, m.assigned)
		}
		for _, p := range m.assigned {
			if other, dup := seen[p]; dup {
				t.Fatalf("partition %d assigned to %s and %s", p, other, m.id)
			}
			seen[p] = m.id
		}
	}
	d := h.describeShareGroup()
	if d.ErrorCode != 0 || d.GroupState != "Stable" || d.GroupEpoch != epoch || d.AssignmentEpoch != epoch ||
		d.Assignor != "simple" || len(d.Members) != 3 {
		t.Fatalf("described %+v", d)
	}
	for _, dm := range d.Members {
		if len(dm.Assignment.TopicPartitions) != 1 || dm.Assignment.TopicPartitions[0].Topic != h.topic ||
			len(dm.Assignment.TopicPartitions[0].Partitions) != 2 || !slices.Equal(dm.SubscribedTopicNames, []string{h.topic}) {
			t.Fatalf("described member %+v", dm)
		}
	}

	list := kmsg.NewPtrListGroupsRequest()
	list.TypesFilter = []string{"share"}
	lr, err := list.RequestWith(ctx, h.cl)
	if err != nil {
		t.Fatal(err)
	}
	if len(lr.Groups) != 1 || lr.Groups[0].Group != h.group || lr.Groups[0].GroupType != "share" ||
		lr.Groups[0].GroupState != "Stable" || lr.Groups[0].ProtocolType != "share" {
		t.Fatalf("ListGroups share: %+v", lr.Groups)
	}
	list.TypesFilter = []string{"consumer", "classic"}
	if lr, err = list.RequestWith(ctx, h.cl); err != nil || len(lr.Groups) != 0 {
		t.Fatalf("ListGroups consumer, classic: %+v %v", lr, err)
	}

	// One id, one group type.
	chb := kmsg.NewPtrConsumerGroupHeartbeatRequest()
	chb.Group, chb.MemberID, chb.RebalanceTimeoutMillis = h.group, "consumer-1", 30000
	chb.SubscribedTopicNames, chb.Topics = []string{h.topic}, []kmsg.ConsumerGroupHeartbeatRequestTopic{}
	if cr, err := chb.RequestWith(ctx, h.cl); err != nil || cr.ErrorCode != kerr.GroupIDNotFound.Code {
		t.Fatalf("ConsumerGroupHeartbeat to a share group: %+v %v", cr, err)
	}
	join := kmsg.NewPtrJoinGroupRequest()
	join.Group, join.ProtocolType, join.SessionTimeoutMillis, join.RebalanceTimeoutMillis = h.group, "consumer", 30000, 30000
	join.Protocols = []kmsg.JoinGroupRequestProtocol{{Name: "range"}}
	if jr, err := join.RequestWith(ctx, h.cl); err != nil || jr.ErrorCode != kerr.InconsistentGroupProtocol.Code {
		t.Fatalf("JoinGroup to a share group: %+v %v", jr, err)
	}
	dg := kmsg.NewPtrDescribeGroupsRequest()
	dg.Groups = []string{h.group}
	if dr, err := dg.RequestWith(ctx, h.cl); err != nil || dr.Groups[0].ErrorCode != kerr.GroupIDNotFound.Code {
		t.Fatalf("DescribeGroups of a share group: %+v %v", dr, err)
	}

	// member-1 acquires every record of partition 0 and leaves: they are
	// released at once (the acquisition lock is 30 s), and the next
	// member takes them at their second delivery.
	if got := acquired(t, h.fetch("member-1", 0, 5*time.Second)); !sameStrings(got, []string{"0-9:1"}) {
		t.Fatalf("member-1 acquired %v", got)
	}
	leave := h.shareHeartbeat("member-1", -1)
	if leave.ErrorCode != 0 || leave.MemberEpoch != -1 {
		t.Fatalf("leave: %+v", leave)
	}
	if got := acquired(t, h.fetch("member-2", 0, 0)); !sameStrings(got, []string{"0-9:2"}) {
		t.Fatalf("member-2 acquired %v after member-1 left", got)
	}
	// A partition answered without records (here: with the result of its
	// acknowledgement) carries empty records, not null: Kafka's schema does
	// not allow null, and its Java client fails the whole response on one.
	acked := h.fetch("member-2", 1, 0, fetchAck(0, 9, ackAccept))
	if len(acked.Topics) != 1 || len(acked.Topics[0].Partitions) != 1 || acked.Topics[0].Partitions[0].Records == nil ||
		acked.Topics[0].Partitions[0].AcknowledgeErrorCode != 0 {
		t.Fatalf("fetch with acknowledgements: %+v", acked.Topics)
	}
	// The two left share the six partitions.
	h.settle(members[1:]...)
	if n := len(members[1].assigned) + len(members[2].assigned); n != 6 {
		t.Fatalf("after the leave: %v and %v", members[1].assigned, members[2].assigned)
	}

	del := kmsg.NewPtrDeleteGroupsRequest()
	del.Groups = []string{h.group}
	if r, err := del.RequestWith(ctx, h.cl); err != nil || r.Groups[0].ErrorCode != kerr.NonEmptyGroup.Code {
		t.Fatalf("DeleteGroups of a group with members: %+v %v", r, err)
	}
	for _, m := range members[1:] {
		if r := h.shareHeartbeat(m.id, -1); r.ErrorCode != 0 {
			t.Fatalf("%s leave: %v", m.id, kerr.ErrorForCode(r.ErrorCode))
		}
	}
	if d := h.describeShareGroup(); d.ErrorCode != 0 || d.GroupState != "Empty" || len(d.Members) != 0 {
		t.Fatalf("described the emptied group: %+v", d)
	}
	if r, err := del.RequestWith(ctx, h.cl); err != nil || r.Groups[0].ErrorCode != 0 {
		t.Fatalf("DeleteGroups of the empty group: %+v %v", r, err)
	}
	if d := h.describeShareGroup(); d.ErrorCode != kerr.GroupIDNotFound.Code {
		t.Fatalf("described the deleted group: %+v", d)
	}
}

// TestShareGroupSessionTimeoutReleases: a member that stops heartbeating
// is fenced when its session lapses (the group's own
// share.session.timeout.ms, 1.5 s, over the broker's 45 s), and what it
// had acquired goes to another member then, long before its acquisition
// lock (60 s) would expire.
func TestShareGroupSessionTimeoutReleases(t *testing.T) {
	b := karsttest.Start(t,
		karsttest.WithConfig("group.share.min.session.timeout.ms", "1000"),
		karsttest.WithConfig("group.share.min.heartbeat.interval.ms", "100"),
		karsttest.WithConfig("group.share.record.lock.duration.ms", "60000"),
		karsttest.WithConfig("group.share.max.record.lock.duration.ms", "60000"))
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	h := newShareHarness(t, ctx, b.Addr(), "sg-timeout", 1, 10)
	// The interval first: each must stay below the session timeout.
	h.setGroupConfig("share.heartbeat.interval.ms", "500")
	h.setGroupConfig("share.session.timeout.ms", "1500")
	m1 := &shareMember{id: "member-1"}
	h.beatMember(m1, h.topic)
	if r := h.shareHeartbeat("member-1", m1.epoch); r.HeartbeatIntervalMillis != 500 {
		t.Fatalf("heartbeat interval %d", r.HeartbeatIntervalMillis)
	}
	resp := h.fetch("member-1", 0, 5*time.Second)
	if got := acquired(t, resp); !sameStrings(got, []string{"0-9:1"}) || resp.AcquisitionLockTimeoutMillis != 60000 {
		t.Fatalf("member-1 acquired %v, lock %d ms", got, resp.AcquisitionLockTimeoutMillis)
	}
	fetched := time.Now()
	deadline := time.Now().Add(20 * time.Second)
	for len(h.describeShareGroup().Members) != 0 {
		if time.Now().After(deadline) {
			t.Fatal("member-1 was not fenced within 20 s of a 1.5 s session")
		}
		time.Sleep(50 * time.Millisecond) // polling a condition, with a deadline
	}
	if got := acquired(t, h.fetch("member-2", 0, 0)); !sameStrings(got, []string{"0-9:2"}) {
		t.Fatalf("member-2 acquired %v after member-1 was fenced", got)
	}
	if since := time.Since(fetched); since >= time.Minute {
		t.Fatalf("released after %v, the lock's duration", since)
	}
	if r := h.shareHeartbeat("member-1", m1.epoch); r.ErrorCode != kerr.UnknownMemberID.Code {
		t.Fatalf("the fenced member's heartbeat: %v", kerr.ErrorForCode(r.ErrorCode))
	}
}

// TestShareGroupSurvivesRestart: the group's records in
// __consumer_offsets bring it back after a restart with its members,
// epochs and assignments, and its members carry on with their epochs.
func TestShareGroupSurvivesRestart(t *testing.T) {
	dir := t.TempDir()
	b := karsttest.Start(t, karsttest.WithConfig("log.dirs", dir))
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	h := newShareHarness(t, ctx, b.Addr(), "sg-restart", 4, 1)
	members := []*shareMember{{id: "member-1"}, {id: "member-2"}}
	for _, m := range members {
		h.beatMember(m, h.topic)
	}
	h.settle(members...)
	before := h.describeShareGroup()
	h.cl.Close()
	if err := b.Stop(); err != nil {
		t.Fatal(err)
	}
	b = karsttest.Start(t, karsttest.WithConfig("log.dirs", dir))
	h2 := newShareClient(t, ctx, b.Addr(), h)
	after := h2.describeShareGroup()
	if fmt.Sprint(before) != fmt.Sprint(after) {
		t.Fatalf("after the restart\n%+v\nbefore\n%+v", after, before)
	}
	for _, m := range members {
		was := slices.Clone(m.assigned)
		r := h2.shareHeartbeat(m.id, m.epoch)
		if r.ErrorCode != 0 || r.MemberEpoch != m.epoch || r.Assignment != nil {
			t.Fatalf("%s after the restart: %+v (had %v)", m.id, r, was)
		}
	}
}

// newShareClient is h again over a new client of addr (a restarted
// broker).
func newShareClient(t *testing.T, ctx context.Context, addr string, h *shareHarness) *shareHarness {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(addr), kgo.DefaultProduceTopic(h.topic))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	return &shareHarness{t: t, ctx: ctx, cl: cl, group: h.group, topic: h.topic, id: h.id}
}

// seedShareHeartbeatRequest is the seed's 25-byte ShareGroupHeartbeat v0
// request (../shared/seeds/000_14047b3e87f9b530.txt), byte for byte:
// request header v2 (api key 76, version 0, correlation id 0, client id
// "", no tags), then GroupId "", MemberId "", MemberEpoch 0, RackId "",
// SubscribedTopicNames [""] and no tags.
var seedShareHeartbeatRequest = []byte{
	0x00, 0x00, 0x00, 0x15, // size 21
	0x00, 0x4c, // api key 76
	0x00, 0x00, // version 0
	0x00, 0x00, 0x00, 0x00, // correlation id
	0x00, 0x00, // client id ""
	0x00,                   // header tags
	0x01,                   // GroupId ""
	0x01,                   // MemberId ""
	0x00, 0x00, 0x00, 0x00, // MemberEpoch 0
	0x01,       // RackId ""
	0x02, 0x01, // SubscribedTopicNames [""]
	0x00, // tags
}

// readFrame reads one size-prefixed response.
func readFrame(t *testing.T, c net.Conn) []byte {
	t.Helper()
	var size [4]byte
	if _, err := io.ReadFull(c, size[:]); err != nil {
		t.Fatal(err)
	}
	n := binary.BigEndian.Uint32(size[:])
	if n > 1<<20 {
		t.Fatalf("response of %d bytes", n)
	}
	body := make([]byte, n)
	if _, err := io.ReadFull(c, body); err != nil {
		t.Fatal(err)
	}
	return body
}

// TestShareGroupHeartbeatSeedBytes sends the seed's request bytes over a
// socket. Its member id is empty, which Kafka's KafkaApis answers
// INVALID_REQUEST "Invalid member id in the request." before it looks at
// the group; the answer is a well-formed v0 response with response
// header v1 (correlation id, then a tagged-field count), every byte
// accounted for. Then a v0 heartbeat with a member id joins the group.
func TestShareGroupHeartbeatSeedBytes(t *testing.T) {
	b := karsttest.Start(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	h := newShareHarness(t, ctx, b.Addr(), "sg-seed", 1, 1)
	c, err := net.DialTimeout("tcp", b.Addr(), 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(30 * time.Second))
	if len(seedShareHeartbeatRequest) != 25 {
		t.Fatalf("seed request of %d bytes", len(seedShareHeartbeatRequest))
	}
	if _, err := c.Write(seedShareHeartbeatRequest); err != nil {
		t.Fatal(err)
	}
	frame := readFrame(t, c)
	msg := "Invalid member id in the request."
	var want []byte
	want = binary.BigEndian.AppendUint32(want, 0)                                // correlation id
	want = append(want, 0)                                                       // header v1 tags
	want = binary.BigEndian.AppendUint32(want, 0)                                // ThrottleTimeMs
	want = binary.BigEndian.AppendUint16(want, uint16(kerr.InvalidRequest.Code)) // ErrorCode 42
	want = append(want, byte(len(msg)+1))                                        // ErrorMessage
	want = append(want, msg...)
	want = append(want, 0)                        // MemberId null
	want = binary.BigEndian.AppendUint32(want, 0) // MemberEpoch
	want = binary.BigEndian.AppendUint32(want, 0) // HeartbeatIntervalMs
	want = append(want, 0xff)                     // Assignment null
	want = append(want, 0)                        // tags
	if !bytes.Equal(frame, want) {
		t.Fatalf("answer to the seed's request\n got %x\nwant %x", frame, want)
	}
	resp := kmsg.NewPtrShareGroupHeartbeatResponse()
	resp.Version = 0
	if err := resp.ReadFrom(frame[5:]); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(resp.AppendTo(nil), frame[5:]) || resp.ErrorMessage == nil || *resp.ErrorMessage != msg {
		t.Fatalf("decoded %+v", resp)
	}

	// The seed's request with a member id and the topic: a v0 join.
	join := kmsg.NewPtrShareGroupHeartbeatRequest()
	join.Version, join.GroupID, join.MemberID, join.SubscribedTopicNames = 0, h.group, "seed-member", []string{h.topic}
	body := join.AppendTo(nil)
	var req []byte
	req = binary.BigEndian.AppendUint32(req, uint32(2+2+4+2+1+len(body)))
	req = binary.BigEndian.AppendUint16(req, 76)
	req = binary.BigEndian.AppendUint16(req, 0)
	req = binary.BigEndian.AppendUint32(req, 7)
	req = binary.BigEndian.AppendUint16(req, 0)
	req = append(req, 0)
	req = append(req, body...)
	if _, err := c.Write(req); err != nil {
		t.Fatal(err)
	}
	frame = readFrame(t, c)
	if binary.BigEndian.Uint32(frame) != 7 || frame[4] != 0 {
		t.Fatalf("response header %x", frame[:5])
	}
	resp = kmsg.NewPtrShareGroupHeartbeatResponse()
	resp.Version = 0
	if err := resp.ReadFrom(frame[5:]); err != nil {
		t.Fatal(err)
	}
	// The join comes before the share state's initialization: an empty
	// assignment, as Kafka 4.4 answers.
	if resp.ErrorCode != 0 || resp.MemberID == nil || *resp.MemberID != "seed-member" || resp.MemberEpoch != 2 ||
		resp.Assignment == nil || len(resp.Assignment.TopicPartitions) != 0 {
		t.Fatalf("v0 join: %+v", resp)
	}
}
