package handler

import (
	"testing"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

func offsetCommitReq(group, member string, gen int32, topic string, offsets ...int64) *kmsg.OffsetCommitRequest {
	req := kmsg.NewPtrOffsetCommitRequest()
	req.Group, req.MemberID, req.Generation = group, member, gen
	t := kmsg.NewOffsetCommitRequestTopic()
	t.Topic = topic
	for i, o := range offsets {
		p := kmsg.NewOffsetCommitRequestTopicPartition()
		p.Partition, p.Offset, p.LeaderEpoch = int32(i), o, 3
		md := "md"
		p.Metadata = &md
		t.Partitions = append(t.Partitions, p)
	}
	req.Topics = []kmsg.OffsetCommitRequestTopic{t}
	return req
}

func commitCodes(resp *kmsg.OffsetCommitResponse) []int16 {
	var out []int16
	for _, t := range resp.Topics {
		for _, p := range t.Partitions {
			out = append(out, p.ErrorCode)
		}
	}
	return out
}

func TestOffsetCommitAndFetchEveryVersion(t *testing.T) {
	f := newGroupFixture(t)
	f.createTopic("t", 3, nil)
	for v := int16(2); v <= 9; v++ {
		g := "simple" + string(rune('0'+v))
		resp := f.do(offsetCommitReq(g, "", -1, "t", 10, 20), v).(*kmsg.OffsetCommitResponse)
		if c := commitCodes(resp); len(c) != 2 || c[0] != 0 || c[1] != 0 {
			t.Fatalf("commit v%d: %v", v, c)
		}
		unknown := f.do(offsetCommitReq(g, "", -1, "nope", 1), v).(*kmsg.OffsetCommitResponse)
		if c := commitCodes(unknown); c[0] != kerr.UnknownTopicOrPartition.Code {
			t.Fatalf("commit to unknown topic v%d: %v", v, c)
		}
	}
	for v := int16(1); v <= 9; v++ {
		g := "simple" + string(rune('0'+max(v, 2)))
		req := kmsg.NewPtrOffsetFetchRequest()
		rt := kmsg.NewOffsetFetchRequestTopic()
		rt.Topic, rt.Partitions = "t", []int32{0, 1, 2}
		var parts []kmsg.OffsetFetchResponseTopicPartition
		if v >= 8 {
			rg := kmsg.NewOffsetFetchRequestGroup()
			rg.Group = g
			rgt := kmsg.NewOffsetFetchRequestGroupTopic()
			rgt.Topic, rgt.Partitions = "t", []int32{0, 1, 2}
			rg.Topics = []kmsg.OffsetFetchRequestGroupTopic{rgt}
			all := kmsg.NewOffsetFetchRequestGroup()
			all.Group = g // null topics: everything
			req.Groups = []kmsg.OffsetFetchRequestGroup{rg, all}
			resp := f.do(req, v).(*kmsg.OffsetFetchResponse)
			if len(resp.Groups) != 2 || len(resp.Groups[1].Topics) != 1 || len(resp.Groups[1].Topics[0].Partitions) != 2 {
				t.Fatalf("fetch v%d: %+v", v, resp)
			}
			for _, p := range resp.Groups[0].Topics[0].Partitions {
				parts = append(parts, kmsg.OffsetFetchResponseTopicPartition{Partition: p.Partition, Offset: p.Offset, LeaderEpoch: p.LeaderEpoch})
			}
		} else {
			req.Group, req.Topics = g, []kmsg.OffsetFetchRequestTopic{rt}
			resp := f.do(req, v).(*kmsg.OffsetFetchResponse)
			parts = resp.Topics[0].Partitions
		}
		if len(parts) != 3 || parts[0].Offset != 10 || parts[1].Offset != 20 || parts[2].Offset != -1 {
			t.Fatalf("fetch v%d: %+v", v, parts)
		}
		if v >= 6 && parts[0].LeaderEpoch != 3 { // committed with an epoch from v6
			t.Fatalf("fetch v%d: leader epoch %d", v, parts[0].LeaderEpoch)
		}
	}
}

func TestOffsetCommitGroupChecks(t *testing.T) {
	f := newGroupFixture(t)
	f.createTopic("t", 1, nil)
	c := commitCodes(f.do(offsetCommitReq("none", "m", 4, "t", 1), 8).(*kmsg.OffsetCommitResponse))
	if c[0] != kerr.IllegalGeneration.Code {
		t.Fatalf("v8 unknown group: %v", c)
	}
	c = commitCodes(f.do(offsetCommitReq("none", "m", 4, "t", 1), 9).(*kmsg.OffsetCommitResponse))
	if c[0] != kerr.GroupIDNotFound.Code {
		t.Fatalf("v9 unknown group: %v", c)
	}
	member, gen := f.joinOne("g", 9)
	// CompletingRebalance until the leader syncs.
	c = commitCodes(f.do(offsetCommitReq("g", member, gen, "t", 1), 9).(*kmsg.OffsetCommitResponse))
	if c[0] != kerr.RebalanceInProgress.Code {
		t.Fatalf("commit before sync: %v", c)
	}
	sync := kmsg.NewPtrSyncGroupRequest()
	sync.Group, sync.MemberID, sync.Generation = "g", member, gen
	f.do(sync, 5)
	c = commitCodes(f.do(offsetCommitReq("g", member, gen, "t", 1), 9).(*kmsg.OffsetCommitResponse))
	if c[0] != 0 {
		t.Fatalf("member commit: %v", c)
	}
	c = commitCodes(f.do(offsetCommitReq("g", member, gen+1, "t", 1), 9).(*kmsg.OffsetCommitResponse))
	if c[0] != kerr.IllegalGeneration.Code {
		t.Fatalf("stale generation: %v", c)
	}
	c = commitCodes(f.do(offsetCommitReq("g", "", -1, "t", 1), 9).(*kmsg.OffsetCommitResponse))
	if c[0] != kerr.UnknownMemberID.Code {
		t.Fatalf("simple commit to a live group: %v", c)
	}

	// The group has members: it cannot be deleted, nor its offsets of
	// subscribed topics.
	dg := kmsg.NewPtrDeleteGroupsRequest()
	dg.Groups = []string{"g", "none"}
	dresp := f.do(dg, 2).(*kmsg.DeleteGroupsResponse)
	if dresp.Groups[0].ErrorCode != kerr.NonEmptyGroup.Code || dresp.Groups[1].ErrorCode != kerr.GroupIDNotFound.Code {
		t.Fatalf("%+v", dresp)
	}
	od := kmsg.NewPtrOffsetDeleteRequest()
	od.Group = "g"
	odt := kmsg.NewOffsetDeleteRequestTopic()
	odt.Topic = "t"
	odp := kmsg.NewOffsetDeleteRequestTopicPartition()
	odt.Partitions = []kmsg.OffsetDeleteRequestTopicPartition{odp}
	od.Topics = []kmsg.OffsetDeleteRequestTopic{odt}
	odresp := f.do(od, 0).(*kmsg.OffsetDeleteResponse)
	if odresp.ErrorCode != 0 || odresp.Topics[0].Partitions[0].ErrorCode != kerr.GroupSubscribedToTopic.Code {
		t.Fatalf("%+v", odresp)
	}

	leave := kmsg.NewPtrLeaveGroupRequest()
	leave.Group, leave.MemberID = "g", member
	f.do(leave, 2)
	f.gc.Tick()
	if odresp = f.do(od, 0).(*kmsg.OffsetDeleteResponse); odresp.ErrorCode != 0 || odresp.Topics[0].Partitions[0].ErrorCode != 0 {
		t.Fatalf("%+v", odresp)
	}
	dg.Groups = []string{"g"}
	if dresp = f.do(dg, 2).(*kmsg.DeleteGroupsResponse); dresp.Groups[0].ErrorCode != 0 {
		t.Fatalf("%+v", dresp)
	}
	od.Group = "g"
	if odresp = f.do(od, 0).(*kmsg.OffsetDeleteResponse); odresp.ErrorCode != kerr.GroupIDNotFound.Code {
		t.Fatalf("%+v", odresp)
	}
}
