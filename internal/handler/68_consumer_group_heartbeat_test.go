package handler

import (
	"testing"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

func consumerHeartbeat(f *groupFixture, member string, epoch int32, owned []kmsg.ConsumerGroupHeartbeatRequestTopic) *kmsg.ConsumerGroupHeartbeatResponse {
	req := kmsg.NewPtrConsumerGroupHeartbeatRequest()
	req.Group, req.MemberID, req.MemberEpoch = "g", member, epoch
	req.RebalanceTimeoutMillis = 60000
	if epoch == 0 {
		req.SubscribedTopicNames = []string{"t"}
		owned = []kmsg.ConsumerGroupHeartbeatRequestTopic{}
	}
	req.Topics = owned
	return f.do(req, 1).(*kmsg.ConsumerGroupHeartbeatResponse)
}

func TestConsumerGroupHeartbeatAndDescribe(t *testing.T) {
	f := newGroupFixture(t)
	f.createTopic("t", 4, nil)
	resp := consumerHeartbeat(f, "a", 0, nil)
	// Kafka 4.4's group starts at epoch 1; the join bumps it to 2.
	if resp.ErrorCode != 0 || resp.MemberEpoch != 2 || resp.HeartbeatIntervalMillis != 5000 || resp.Assignment == nil ||
		len(resp.Assignment.Topics) != 1 || len(resp.Assignment.Topics[0].Partitions) != 4 {
		t.Fatalf("join: %+v", resp)
	}
	topicID := resp.Assignment.Topics[0].TopicID
	if resp := consumerHeartbeat(f, "b", 0, nil); resp.ErrorCode != 0 || resp.MemberEpoch != 3 {
		t.Fatalf("second join: %+v", resp)
	}
	// a is asked to keep two partitions, revokes the others, and moves on.
	owned := []kmsg.ConsumerGroupHeartbeatRequestTopic{{TopicID: topicID, Partitions: []int32{0, 1, 2, 3}}}
	resp = consumerHeartbeat(f, "a", 2, owned)
	if resp.MemberEpoch != 2 || len(resp.Assignment.Topics[0].Partitions) != 2 {
		t.Fatalf("revoking: %+v", resp)
	}
	owned[0].Partitions = resp.Assignment.Topics[0].Partitions
	if resp = consumerHeartbeat(f, "a", 2, owned); resp.MemberEpoch != 3 || resp.Assignment != nil {
		t.Fatalf("after revoking (the assignment is unchanged, so null): %+v", resp)
	}
	if resp = consumerHeartbeat(f, "b", 3, []kmsg.ConsumerGroupHeartbeatRequestTopic{}); resp.Assignment == nil ||
		len(resp.Assignment.Topics) != 1 || len(resp.Assignment.Topics[0].Partitions) != 2 {
		t.Fatalf("b: %+v", resp)
	}
	// Nothing changed: Kafka answers a null assignment, unless the
	// request is a full one (rebalance timeout, subscription and owned
	// partitions all sent).
	ownedB := []kmsg.ConsumerGroupHeartbeatRequestTopic{{TopicID: topicID, Partitions: resp.Assignment.Topics[0].Partitions}}
	if resp = consumerHeartbeat(f, "b", 3, ownedB); resp.ErrorCode != 0 || resp.Assignment != nil {
		t.Fatalf("unchanged: %+v", resp)
	}
	full := kmsg.NewPtrConsumerGroupHeartbeatRequest()
	full.Group, full.MemberID, full.MemberEpoch, full.RebalanceTimeoutMillis = "g", "b", 3, 60000
	full.SubscribedTopicNames, full.Topics = []string{"t"}, ownedB
	if resp = f.do(full, 1).(*kmsg.ConsumerGroupHeartbeatResponse); resp.ErrorCode != 0 || resp.Assignment == nil || len(resp.Assignment.Topics[0].Partitions) != 2 {
		t.Fatalf("full request: %+v", resp)
	}
	if resp = consumerHeartbeat(f, "a", 9, nil); resp.ErrorCode != kerr.FencedMemberEpoch.Code {
		t.Fatalf("fenced: %+v", resp)
	}

	for v := int16(0); v <= 1; v++ {
		req := kmsg.NewPtrConsumerGroupDescribeRequest()
		req.Groups = []string{"g", "missing"}
		req.IncludeAuthorizedOperations = true
		d := f.do(req, v).(*kmsg.ConsumerGroupDescribeResponse)
		g := d.Groups[0]
		if g.ErrorCode != 0 || g.State != "Stable" || g.Epoch != 3 || g.AssignmentEpoch != 3 || g.AssignorName != "uniform" || len(g.Members) != 2 ||
			len(g.Members[0].Assignment.TopicPartitions) != 1 || g.Members[0].Assignment.TopicPartitions[0].Topic != "t" {
			t.Fatalf("v%d describe: %+v", v, g)
		}
		if d.Groups[1].ErrorCode != kerr.GroupIDNotFound.Code || d.Groups[1].AuthorizedOperations != authorizedOperationsNotRequested {
			t.Fatalf("v%d missing: %+v; want GROUP_ID_NOT_FOUND without authorized operations (Kafka 4.4)", v, d.Groups[1])
		}
		// As Kafka 4.4: a consumer-protocol member is type 1 (v1), and no regex is "".
		if m := g.Members[0]; (v >= 1 && m.MemberType != 1) || m.SubscribedTopicRegex == nil || *m.SubscribedTopicRegex != "" {
			t.Fatalf("v%d member type %d, regex %v; want 1 and \"\"", v, m.MemberType, m.SubscribedTopicRegex)
		}
	}

	// v0 members get their id from the broker.
	req := kmsg.NewPtrConsumerGroupHeartbeatRequest()
	req.Group, req.SubscribedTopicNames, req.Topics = "g0", []string{"t"}, []kmsg.ConsumerGroupHeartbeatRequestTopic{}
	req.RebalanceTimeoutMillis = 60000
	if resp := f.do(req, 0).(*kmsg.ConsumerGroupHeartbeatResponse); resp.ErrorCode != 0 || resp.MemberID == nil || *resp.MemberID == "" {
		t.Fatalf("v0 join: %+v", resp)
	}
}

// TestDescribeGroupsOfConsumerGroup: DescribeGroups answers a KIP-848
// group as Kafka does (not a classic group: Dead, and from v6
// GROUP_ID_NOT_FOUND with its message); ListGroups types it "consumer";
// ConsumerGroupDescribe of a classic group says it is not a consumer
// group.
func TestDescribeGroupsOfConsumerGroup(t *testing.T) {
	f := newGroupFixture(t)
	f.createTopic("t", 2, nil)
	if resp := consumerHeartbeat(f, "a", 0, nil); resp.ErrorCode != 0 {
		t.Fatalf("join: %+v", resp)
	}
	for v := int16(0); v <= 6; v++ {
		req := kmsg.NewPtrDescribeGroupsRequest()
		req.Groups = []string{"g"}
		g := f.do(req, v).(*kmsg.DescribeGroupsResponse).Groups[0]
		wantCode, wantMsg := int16(0), ""
		if v >= 6 {
			wantCode, wantMsg = kerr.GroupIDNotFound.Code, "Group g is not a classic group."
		}
		msg := ""
		if g.ErrorMessage != nil {
			msg = *g.ErrorMessage
		}
		if g.State != "Dead" || g.ErrorCode != wantCode || msg != wantMsg || g.ProtocolType != "" || len(g.Members) != 0 {
			t.Fatalf("v%d: %+v", v, g)
		}
	}
	lg := kmsg.NewPtrListGroupsRequest()
	if resp := f.do(lg, 5).(*kmsg.ListGroupsResponse); len(resp.Groups) != 1 || resp.Groups[0].GroupType != "consumer" ||
		resp.Groups[0].ProtocolType != "consumer" || resp.Groups[0].GroupState != "Stable" {
		t.Fatalf("listed: %+v", resp.Groups)
	}

	f.joinOne("classic", 9)
	req := kmsg.NewPtrConsumerGroupDescribeRequest()
	req.Groups = []string{"classic", "missing"}
	d := f.do(req, 1).(*kmsg.ConsumerGroupDescribeResponse)
	for i, want := range []string{"Group classic is not a consumer group.", "Group missing not found."} {
		if g := d.Groups[i]; g.ErrorCode != kerr.GroupIDNotFound.Code || g.ErrorMessage == nil || *g.ErrorMessage != want {
			t.Fatalf("ConsumerGroupDescribe: %+v", g)
		}
	}
}

// TestConsumerGroupJoinNeedsTimeoutAndEmptyOwnedPartitions: a join (epoch 0) without a rebalance
// timeout, or whose owned partitions are null or not empty, is refused with INVALID_REQUEST and
// Kafka's message, as Kafka 4.4 does; with both it joins.
func TestConsumerGroupJoinNeedsTimeoutAndEmptyOwnedPartitions(t *testing.T) {
	f := newGroupFixture(t)
	f.createTopic("t", 1, nil)
	topicID := f.store.Image().Topics()[0].ID
	join := func(timeout int32, owned []kmsg.ConsumerGroupHeartbeatRequestTopic) *kmsg.ConsumerGroupHeartbeatResponse {
		req := kmsg.NewPtrConsumerGroupHeartbeatRequest()
		req.Group, req.MemberID, req.SubscribedTopicNames = "g", "m-aaaaaaaaaaaaaaaaaaaa", []string{"t"}
		req.RebalanceTimeoutMillis, req.Topics = timeout, owned
		return f.do(req, 1).(*kmsg.ConsumerGroupHeartbeatResponse)
	}
	owning := []kmsg.ConsumerGroupHeartbeatRequestTopic{{TopicID: topicID, Partitions: []int32{0}}}
	for _, c := range []struct {
		timeout int32
		owned   []kmsg.ConsumerGroupHeartbeatRequestTopic
		want    string
	}{
		{-1, []kmsg.ConsumerGroupHeartbeatRequestTopic{}, "RebalanceTimeoutMs must be provided in first request."},
		{60000, nil, "TopicPartitions must be empty when (re-)joining."},
		{60000, owning, "TopicPartitions must be empty when (re-)joining."},
	} {
		resp := join(c.timeout, c.owned)
		if resp.ErrorCode != kerr.InvalidRequest.Code || resp.ErrorMessage == nil || *resp.ErrorMessage != c.want {
			t.Errorf("timeout %d, owned %v: error %d %v; want INVALID_REQUEST %q", c.timeout, c.owned, resp.ErrorCode, resp.ErrorMessage, c.want)
		}
	}
	if resp := join(60000, []kmsg.ConsumerGroupHeartbeatRequestTopic{}); resp.ErrorCode != 0 {
		t.Fatalf("a valid join: error %d", resp.ErrorCode)
	}
}
