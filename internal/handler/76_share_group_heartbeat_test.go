package handler

import (
	"bytes"
	"encoding/binary"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/karst-broker/karst/internal/share"
)

// seedShareHeartbeatResponse is the 50-byte ShareGroupHeartbeatResponse v0
// of this project's seed (../shared/seeds/000_14047b3e87f9b530.txt, the
// "smallest legal instance": zero numbers, empty strings, one element in
// every array), written out field by field at the offsets of the seed's
// object tree.
func seedShareHeartbeatResponse() []byte {
	var b []byte
	b = binary.BigEndian.AppendUint32(b, 46) // 0x00 Frame size
	b = binary.BigEndian.AppendUint32(b, 0)  // 0x04 correlation_id
	b = append(b, 0)                         // 0x08 header tagged_fields (response header v1)
	b = binary.BigEndian.AppendUint32(b, 0)  // 0x09 ThrottleTimeMs
	b = binary.BigEndian.AppendUint16(b, 0)  // 0x0d ErrorCode
	b = append(b, 1)                         // 0x0f ErrorMessage ""
	b = append(b, 1)                         // 0x10 MemberId ""
	b = binary.BigEndian.AppendUint32(b, 0)  // 0x11 MemberEpoch
	b = binary.BigEndian.AppendUint32(b, 0)  // 0x15 HeartbeatIntervalMs
	b = append(b, 2)                         // 0x19 Assignment.TopicPartitions: 1 element
	b = append(b, make([]byte, 16)...)       // 0x1a TopicId
	b = append(b, 2)                         // 0x2a Partitions: 1 element
	b = binary.BigEndian.AppendUint32(b, 0)  // 0x2b partition 0
	b = append(b, 0)                         // 0x2f TopicPartitions[0] tagged_fields
	b = append(b, 0)                         // 0x30 Assignment tagged_fields
	b = append(b, 0)                         // 0x31 response tagged_fields
	return b
}

// TestSeedShareHeartbeatResponseLayout decodes the seed's 50-byte response
// and checks it field by field against Karst's encoding of the same
// response. Every field boundary of the seed is Karst's (and Kafka's),
// with one exception the test pins: Kafka's generated code writes a
// presence byte (1, or -1 for null) before a nullable struct, here the
// Assignment (ShareGroupHeartbeatResponseData.write, Kafka 4.4), and the
// seed's layout leaves it out. So Karst's encoding of the seed's instance
// is 51 bytes, the seed's with 0x01 inserted at 0x19, and the seed's
// fields from the Assignment on lie one byte later on the wire.
func TestSeedShareHeartbeatResponseLayout(t *testing.T) {
	seed := seedShareHeartbeatResponse()
	if len(seed) != 50 || int(binary.BigEndian.Uint32(seed)) != len(seed)-4 {
		t.Fatalf("the seed's response is %d bytes, size field %d", len(seed), binary.BigEndian.Uint32(seed))
	}

	empty := ""
	resp := kmsg.NewPtrShareGroupHeartbeatResponse()
	resp.Version = 0
	resp.ErrorMessage, resp.MemberID = &empty, &empty
	a := kmsg.NewShareGroupHeartbeatResponseAssignment()
	tp := kmsg.NewShareGroupHeartbeatResponseAssignmentTopicPartition()
	tp.Partitions = []int32{0}
	a.TopicPartitions = append(a.TopicPartitions, tp)
	resp.Assignment = &a
	body := resp.AppendTo(nil)
	wire := binary.BigEndian.AppendUint32(nil, uint32(4+1+len(body)))
	wire = binary.BigEndian.AppendUint32(wire, 0) // correlation_id
	wire = append(wire, 0)                        // header v1 tags
	wire = append(wire, body...)

	const assignmentAt = 0x19
	if len(wire) != 51 {
		t.Fatalf("Karst encodes the seed's instance in %d bytes", len(wire))
	}
	if !bytes.Equal(seed[4:assignmentAt], wire[4:assignmentAt]) {
		t.Fatalf("header and fields before the Assignment differ:\nseed  %x\nkarst %x", seed[4:assignmentAt], wire[4:assignmentAt])
	}
	if wire[assignmentAt] != 1 {
		t.Fatalf("presence byte of the Assignment: %#x", wire[assignmentAt])
	}
	if !bytes.Equal(seed[assignmentAt:], wire[assignmentAt+1:]) {
		t.Fatalf("the Assignment and after differ:\nseed  %x\nkarst %x", seed[assignmentAt:], wire[assignmentAt+1:])
	}

	// The seed's bytes, with the presence byte Kafka writes, decode as the
	// seed's object tree says, and nothing is left over.
	fixed := append(append(bytes.Clone(seed[9:assignmentAt]), 1), seed[assignmentAt:]...)
	got := kmsg.NewPtrShareGroupHeartbeatResponse()
	got.Version = 0
	if err := got.ReadFrom(fixed); err != nil {
		t.Fatalf("decoding the seed's body: %v", err)
	}
	if got.ThrottleMillis != 0 || got.ErrorCode != 0 || got.ErrorMessage == nil || *got.ErrorMessage != "" ||
		got.MemberID == nil || *got.MemberID != "" || got.MemberEpoch != 0 || got.HeartbeatIntervalMillis != 0 ||
		got.Assignment == nil || len(got.Assignment.TopicPartitions) != 1 ||
		got.Assignment.TopicPartitions[0].TopicID != [16]byte{} || len(got.Assignment.TopicPartitions[0].Partitions) != 1 ||
		got.Assignment.TopicPartitions[0].Partitions[0] != 0 {
		t.Fatalf("decoded %+v", got)
	}
	// Read as the seed lays it out (no presence byte), the body is not a
	// ShareGroupHeartbeatResponse: the TopicPartitions length would be
	// taken for the presence byte and the topic id for the array.
	strict := kmsg.NewPtrShareGroupHeartbeatResponse()
	strict.Version = 0
	if err := strict.ReadFrom(seed[9:]); err == nil && strict.Assignment != nil && len(strict.Assignment.TopicPartitions) == 1 {
		t.Fatalf("the seed's 41-byte body decoded as the 42-byte one: %+v", strict)
	}
}

// TestShareGroupHeartbeatAndDescribe runs the two APIs through the
// handler at v0 and v1: Kafka's INVALID_REQUEST for member ids it
// refuses, a join answered with the assignment by topic id, and the
// group described with its member.
func TestShareGroupHeartbeatAndDescribe(t *testing.T) {
	for _, v := range []int16{0, 1} {
		f := newGroupFixture(t)
		f.gc.SetShareInitializer(share.NewCoordinator(share.CoordinatorOptions{}).InitializeGroup)
		f.createTopic("st", 3, nil)
		tp, _ := f.store.Image().Topic("st")
		id := [16]byte(tp.ID)
		for _, member := range []string{"", "0123456789012345678901234567890123456"} {
			req := kmsg.NewPtrShareGroupHeartbeatRequest()
			req.GroupID, req.MemberID, req.SubscribedTopicNames = "sg", member, []string{"st"}
			resp := f.start(req, v)().(*kmsg.ShareGroupHeartbeatResponse)
			if resp.ErrorCode != 42 || resp.ErrorMessage == nil || *resp.ErrorMessage != "Invalid member id in the request." {
				t.Fatalf("v%d member id %q: %+v", v, member, resp)
			}
		}
		req := kmsg.NewPtrShareGroupHeartbeatRequest()
		req.GroupID, req.MemberID, req.SubscribedTopicNames = "sg", "m1", []string{"st"}
		resp := f.start(req, v)().(*kmsg.ShareGroupHeartbeatResponse)
		// The join is answered before the share state is initialized,
		// with an empty assignment; a later heartbeat gets the partitions.
		if resp.ErrorCode != 0 || resp.MemberID == nil || *resp.MemberID != "m1" || resp.MemberEpoch != 2 || resp.HeartbeatIntervalMillis != 5000 ||
			resp.Assignment == nil || len(resp.Assignment.TopicPartitions) != 0 {
			t.Fatalf("v%d join: %+v", v, resp)
		}
		deadline := time.Now().Add(10 * time.Second)
		for {
			beat := kmsg.NewPtrShareGroupHeartbeatRequest()
			beat.GroupID, beat.MemberID, beat.MemberEpoch = "sg", "m1", resp.MemberEpoch
			resp = f.start(beat, v)().(*kmsg.ShareGroupHeartbeatResponse)
			if resp.ErrorCode != 0 {
				t.Fatalf("v%d heartbeat: %+v", v, resp)
			}
			if resp.Assignment != nil {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("v%d: no assignment after the share state's initialization", v)
			}
			time.Sleep(5 * time.Millisecond)
		}
		if resp.MemberEpoch != 3 || len(resp.Assignment.TopicPartitions) != 1 || resp.Assignment.TopicPartitions[0].TopicID != id ||
			len(resp.Assignment.TopicPartitions[0].Partitions) != 3 {
			t.Fatalf("v%d assignment: %+v", v, resp)
		}
		desc := kmsg.NewPtrShareGroupDescribeRequest()
		desc.GroupIDs, desc.IncludeAuthorizedOperations = []string{"sg", "nope"}, true
		dr := f.start(desc, v)().(*kmsg.ShareGroupDescribeResponse)
		if len(dr.Groups) != 2 || dr.Groups[0].ErrorCode != 0 || dr.Groups[0].GroupState != "Stable" || dr.Groups[0].GroupEpoch != 3 ||
			dr.Groups[0].Assignor != "simple" || len(dr.Groups[0].Members) != 1 || dr.Groups[0].Members[0].MemberID != "m1" ||
			dr.Groups[0].Members[0].Assignment.TopicPartitions[0].Topic != "st" || dr.Groups[0].AuthorizedOperations == authorizedOperationsNotRequested ||
			dr.Groups[1].ErrorCode != 69 {
			t.Fatalf("v%d describe: %+v", v, dr)
		}
	}
}
