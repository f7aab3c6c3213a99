package integration

import (
	"testing"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// consumerJoin is a KIP-848 member's first heartbeat, subscribed to topics by name.
func consumerJoin(group string, topics ...string) *kmsg.ConsumerGroupHeartbeatRequest {
	req := kmsg.NewPtrConsumerGroupHeartbeatRequest()
	req.Group, req.MemberID, req.MemberEpoch = group, "member-of-"+group, 0
	req.RebalanceTimeoutMillis = 30000
	req.SubscribedTopicNames = topics
	req.Topics = []kmsg.ConsumerGroupHeartbeatRequestTopic{}
	return req
}

// TestACLConsumerGroupTopicsMustBeDescribable: as Kafka 4.4's KafkaApis
// (and the ACL differential against it), a ConsumerGroupHeartbeat needs
// DESCRIBE on every topic it subscribes to by name besides READ on the
// group, and ConsumerGroupDescribe answers a group one of whose members'
// topics the caller may not describe with TOPIC_AUTHORIZATION_FAILED and
// nothing else.
func TestACLConsumerGroupTopicsMustBeDescribable(t *testing.T) {
	w := startACLWorld(t, "orders", "secret")
	w.grant(t, allowAlice().Groups("g848").Operations(kadm.OpRead))

	if resp := request[*kmsg.ConsumerGroupHeartbeatResponse](t, w.alice, consumerJoin("g848", "orders")); resp.ErrorCode != kerr.TopicAuthorizationFailed.Code {
		t.Fatalf("heartbeat subscribing to a topic alice may not describe: error %d, want TOPIC_AUTHORIZATION_FAILED", resp.ErrorCode)
	}
	w.grant(t, allowAlice().Topics("orders").Operations(kadm.OpDescribe))
	if resp := request[*kmsg.ConsumerGroupHeartbeatResponse](t, w.alice, consumerJoin("g848", "orders")); resp.ErrorCode != 0 || resp.MemberEpoch < 1 {
		t.Fatalf("heartbeat with DESCRIBE on the topic: error %d, epoch %d", resp.ErrorCode, resp.MemberEpoch)
	}

	// The super user's group reads secret; alice may describe the group but not the topic.
	if resp := request[*kmsg.ConsumerGroupHeartbeatResponse](t, w.admin, consumerJoin("g848-secret", "secret")); resp.ErrorCode != 0 {
		t.Fatalf("admin's heartbeat: error %d", resp.ErrorCode)
	}
	w.grant(t, allowAlice().Groups("g848-secret", "g848").Operations(kadm.OpDescribe))
	describe := kmsg.NewPtrConsumerGroupDescribeRequest()
	describe.Groups, describe.IncludeAuthorizedOperations = []string{"g848-secret", "g848"}, true
	groups := map[string]kmsg.ConsumerGroupDescribeResponseGroup{}
	for _, g := range request[*kmsg.ConsumerGroupDescribeResponse](t, w.alice, describe).Groups {
		groups[g.Group] = g
	}
	hidden := groups["g848-secret"]
	if hidden.ErrorCode != kerr.TopicAuthorizationFailed.Code || len(hidden.Members) != 0 || hidden.State != "" || hidden.Epoch != 0 {
		t.Errorf("group on a topic alice may not describe: error %d, %d members, state %q, epoch %d; want TOPIC_AUTHORIZATION_FAILED and nothing else",
			hidden.ErrorCode, len(hidden.Members), hidden.State, hidden.Epoch)
	}
	if own := groups["g848"]; own.ErrorCode != 0 || len(own.Members) != 1 {
		t.Errorf("alice's own group: error %d, %d members", own.ErrorCode, len(own.Members))
	}
	for _, g := range request[*kmsg.ConsumerGroupDescribeResponse](t, w.admin, describe).Groups {
		if g.ErrorCode != 0 || len(g.Members) != 1 {
			t.Errorf("the super user describing %s: error %d, %d members", g.Group, g.ErrorCode, len(g.Members))
		}
	}
}
