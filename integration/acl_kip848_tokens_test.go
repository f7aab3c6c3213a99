package integration

import (
	"context"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
	"github.com/twmb/franz-go/pkg/sasl/plain"

	"github.com/karst-broker/karst/karsttest"
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

// TestACLDelegationTokens: creating a token for another owner needs
// CREATE_TOKENS on that user, and DescribeDelegationToken lists only the
// tokens the caller owns, requested or may renew, and those it may
// DESCRIBE, as Kafka 4.4's KafkaApis.
func TestACLDelegationTokens(t *testing.T) {
	w := startACLWorldWith(t, []karsttest.Option{karsttest.WithConfig("delegation.token.secret.key", "acl-test-secret")})
	create := func(owner string) *kmsg.CreateDelegationTokenResponse {
		req := kmsg.NewPtrCreateDelegationTokenRequest()
		req.MaxLifetimeMillis = -1
		if owner != "" {
			req.OwnerPrincipalType, req.OwnerPrincipalName = kmsg.StringPtr("User"), kmsg.StringPtr(owner)
		}
		return request[*kmsg.CreateDelegationTokenResponse](t, w.alice, req)
	}
	own := create("")
	if own.ErrorCode != 0 {
		t.Fatalf("alice's own token: error %d", own.ErrorCode)
	}
	if resp := create("bob"); resp.ErrorCode != kerr.DelegationTokenAuthorizationFailed.Code || resp.TokenID != "" {
		t.Fatalf("a token for bob without CREATE_TOKENS: error %d, token %q; want DELEGATION_TOKEN_AUTHORIZATION_FAILED", resp.ErrorCode, resp.TokenID)
	}
	// kadm builds no USER resources: the CreateAcls request itself.
	grantUser := kmsg.NewPtrCreateACLsRequest()
	c := kmsg.NewCreateACLsRequestCreation()
	c.ResourceType, c.ResourceName, c.ResourcePatternType = kmsg.ACLResourceTypeUser, "User:bob", kmsg.ACLResourcePatternTypeLiteral
	c.Principal, c.Host, c.Operation, c.PermissionType = "User:alice", "*", kmsg.ACLOperationCreateTokens, kmsg.ACLPermissionTypeAllow
	grantUser.Creations = append(grantUser.Creations, c)
	if resp := request[*kmsg.CreateACLsResponse](t, w.admin, grantUser); resp.Results[0].ErrorCode != 0 {
		t.Fatalf("CreateAcls CREATE_TOKENS on User:bob: error %d", resp.Results[0].ErrorCode)
	}
	forBob := create("bob")
	if forBob.ErrorCode != 0 {
		t.Fatalf("a token for bob with CREATE_TOKENS on User:bob: error %d", forBob.ErrorCode)
	}

	listed := func(cl *kgo.Client) map[string]bool {
		ids := map[string]bool{}
		for _, d := range request[*kmsg.DescribeDelegationTokenResponse](t, cl, kmsg.NewPtrDescribeDelegationTokenRequest()).TokenDetails {
			ids[d.TokenID] = true
		}
		return ids
	}
	if got := listed(w.bob); !got[forBob.TokenID] || got[own.TokenID] {
		t.Errorf("bob lists %v: want his own token %s and not alice's %s", got, forBob.TokenID, own.TokenID)
	}
	if got := listed(w.alice); !got[forBob.TokenID] || !got[own.TokenID] {
		t.Errorf("alice (owner of one, requester of both) lists %v", got)
	}
	w.grant(t, kadm.NewACLs().Allow("User:bob").AllowHosts().ResourcePatternType(kadm.ACLPatternLiteral).
		DelegationTokens(own.TokenID).Operations(kadm.OpDescribe))
	if got := listed(w.bob); !got[own.TokenID] {
		t.Errorf("bob with DESCRIBE on alice's token lists %v, without it", got)
	}
}

// TestACLRegexSubscriptionAssignsOnlyDescribableTopics: a KIP-848 member
// subscribed by regex (franz-go's ConsumeRegex with the server-side
// balancer) is assigned only the matching topics its principal may
// describe, as Kafka 4.4's TopicRegexResolver filters them, and follows
// a DESCRIBE granted and deleted while it runs. Without the filter alice
// is assigned rx-hidden, which the super user's ConsumerGroupDescribe shows.
func TestACLRegexSubscriptionAssignsOnlyDescribableTopics(t *testing.T) {
	w := startACLWorld(t, "rx-open", "rx-hidden")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	for _, topic := range []string{"rx-open", "rx-hidden"} {
		if err := w.admin.ProduceSync(ctx, &kgo.Record{Topic: topic, Value: []byte(topic)}).FirstErr(); err != nil {
			t.Fatalf("producing to %s: %v", topic, err)
		}
	}
	w.grant(t, allowAlice().Groups("rx-g").Topics("rx-open").Operations(kadm.OpRead))
	openID, hiddenID := w.topicID(t, "rx-open"), w.topicID(t, "rx-hidden")

	consumer := saslClient(t, w.addr, plain.Auth{User: "alice", Pass: "alice-secret"}.AsMechanism(),
		kgo.ConsumeRegex(), kgo.ConsumeTopics("rx-.*"), kgo.ConsumerGroup("rx-g"),
		kgo.ServerSideBalancer(), kgo.Balancers(kgo.CooperativeStickyBalancer()),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	// assigned is the topics the group's one member is assigned, as the
	// super user describes it.
	assigned := func() map[[16]byte]bool {
		req := kmsg.NewPtrConsumerGroupDescribeRequest()
		req.Groups = []string{"rx-g"}
		out := map[[16]byte]bool{}
		for _, g := range request[*kmsg.ConsumerGroupDescribeResponse](t, w.admin, req).Groups {
			for _, m := range g.Members {
				for _, tp := range m.Assignment.TopicPartitions {
					out[tp.TopicID] = true
				}
			}
		}
		return out
	}
	// pollUntil polls the consumer until it read a record of topic.
	pollUntil := func(topic, why string) {
		t.Helper()
		for {
			fetches := consumer.PollFetches(ctx)
			if ctx.Err() != nil {
				t.Fatalf("%s: no record of %s read", why, topic)
			}
			fetches.EachError(func(tp string, _ int32, err error) { t.Errorf("%s: the consumer surfaced %v on %s", why, err, tp) })
			read := false
			fetches.EachRecord(func(r *kgo.Record) { read = read || r.Topic == topic })
			if read {
				return
			}
		}
	}

	pollUntil("rx-open", "READ on rx-open only")
	if got := assigned(); !got[openID] || got[hiddenID] {
		t.Fatalf("alice may describe rx-open only and is assigned %v (rx-open %x, rx-hidden %x)", got, openID, hiddenID)
	}

	hidden := allowAlice().Topics("rx-hidden").Operations(kadm.OpRead)
	w.grant(t, hidden)
	pollUntil("rx-hidden", "READ on rx-hidden granted")

	if _, err := w.adm.DeleteACLs(ctx, hidden); err != nil {
		t.Fatal(err)
	}
	for assigned()[hiddenID] {
		if ctx.Err() != nil {
			t.Fatal("READ on rx-hidden deleted: alice is still assigned rx-hidden")
		}
		// The member heartbeats and gives rx-hidden up while it polls; a
		// poll returns when it read nothing for a second, to look again.
		pctx, pcancel := context.WithTimeout(ctx, time.Second)
		consumer.PollFetches(pctx)
		pcancel()
	}
	if !assigned()[openID] {
		t.Fatal("alice lost rx-open with rx-hidden")
	}
}
