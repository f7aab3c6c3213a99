package handler

// The gates of the group and transaction APIs, by Kafka's KafkaApis:
// GROUP READ to take part in a group, DESCRIBE to see it, DELETE to remove
// it or its offsets; TRANSACTIONAL_ID WRITE to run a transaction.

import (
	"sync"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/karst-broker/karst/internal/metadata"
	"github.com/karst-broker/karst/internal/security/authorizer"
)

// groupOf is the group a JoinGroup, Heartbeat, LeaveGroup, SyncGroup or
// ConsumerGroupHeartbeat names.
func groupOf(req kmsg.Request) string {
	switch req := req.(type) {
	case *kmsg.JoinGroupRequest:
		return req.Group
	case *kmsg.HeartbeatRequest:
		return req.Group
	case *kmsg.LeaveGroupRequest:
		return req.Group
	case *kmsg.SyncGroupRequest:
		return req.Group
	case *kmsg.ConsumerGroupHeartbeatRequest:
		return req.Group
	case *kmsg.ShareGroupHeartbeatRequest:
		return req.GroupID
	}
	return ""
}

// groupReadGate: the group membership APIs need READ on the group, else
// GROUP_AUTHORIZATION_FAILED.
func groupReadGate(g *gatekeeper) verdict {
	if g.group(metadata.OpRead, groupOf(g.r.Body)) {
		return verdict{}
	}
	return refuse(errorOnly(g.r.Body, kerr.GroupAuthorizationFailed.Code))
}

// gateConsumerGroupHeartbeat: READ on the group, as the other membership
// APIs, and DESCRIBE on every topic the member subscribes to by name, else
// the heartbeat is answered TOPIC_AUTHORIZATION_FAILED (Kafka 4.4 KafkaApis:
// a member may not learn of topics, or get them assigned, that it may not
// see). Topics its regex matches are not refused but left out of its
// subscription unless it may describe them, as Kafka's TopicRegexResolver;
// the coordinator asks at each resolution, so a DESCRIBE granted or
// deleted later takes effect at the group's next heartbeat.
func gateConsumerGroupHeartbeat(g *gatekeeper) verdict {
	return gateHeartbeatTopics(g, g.r.Body.(*kmsg.ConsumerGroupHeartbeatRequest).SubscribedTopicNames)
}

// gateHeartbeatTopics: READ on the group, then DESCRIBE on each of the
// subscribed topics (ConsumerGroupHeartbeat, ShareGroupHeartbeat).
func gateHeartbeatTopics(g *gatekeeper, topics []string) verdict {
	if v := groupReadGate(g); v.refusal != nil {
		return v
	}
	for _, topic := range topics {
		if !g.topic(metadata.OpDescribe, topic) {
			return refuse(errorOnly(g.r.Body, kerr.TopicAuthorizationFailed.Code))
		}
	}
	g.r.topicDescribable = g.b.describableBy(g.principal, g.host, g.api)
	return verdict{}
}

// describableBy is whether principal, from host, may describe a topic
// under the authorizer of the moment of asking (the member's regex is
// resolved again at later heartbeats, under newer ACLs). Kafka asks with
// logIfAllowed true and logIfDenied false: a match left out is no
// refusal. Answers are kept until the metadata image changes: until the
// member's next heartbeat brings a new check, the resolutions at the
// other members' heartbeats ask (and audit) once per topic, not at each,
// closer to Kafka, which resolves a regex again only on a new image.
func (b *Broker) describableBy(principal, host, api string) func(topic string) bool {
	var (
		mu      sync.Mutex
		decided *authorizer.Authorizer // built for one image: a new image, a new authorizer
		answers map[string]bool
	)
	return func(topic string) bool {
		img, authz := b.currentAuthorizer()
		mu.Lock()
		defer mu.Unlock()
		if decided != authz {
			decided, answers = authz, map[string]bool{}
		}
		ok, seen := answers[topic]
		if !seen {
			g := gatekeeper{b: b, img: img, authz: authz, principal: principal, host: host, api: api}
			ok = g.probe(metadata.OpDescribe, metadata.ResourceTopic, topic)
			answers[topic] = ok
		}
		return ok
	}
}

// offsetCommitTopics answers every partition of topics with code.
func offsetCommitTopics(topics []kmsg.OffsetCommitRequestTopic, code int16) []kmsg.OffsetCommitResponseTopic {
	var out []kmsg.OffsetCommitResponseTopic
	for _, t := range topics {
		rt := kmsg.NewOffsetCommitResponseTopic()
		rt.Topic, rt.TopicID = t.Topic, t.TopicID
		for _, p := range t.Partitions {
			rp := kmsg.NewOffsetCommitResponseTopicPartition()
			rp.Partition, rp.ErrorCode = p.Partition, code
			rt.Partitions = append(rt.Partitions, rp)
		}
		out = append(out, rt)
	}
	return out
}

// gateOffsetCommit: READ on the group (else every partition is
// GROUP_AUTHORIZATION_FAILED) and READ on each topic (else its partitions
// are TOPIC_AUTHORIZATION_FAILED).
func gateOffsetCommit(g *gatekeeper) verdict {
	req := g.r.Body.(*kmsg.OffsetCommitRequest)
	if !g.group(metadata.OpRead, req.Group) {
		resp := kmsg.NewPtrOffsetCommitResponse()
		resp.Topics = offsetCommitTopics(req.Topics, kerr.GroupAuthorizationFailed.Code)
		return refuse(resp)
	}
	return gateReadableTopics(g, &req.Topics,
		func(t kmsg.OffsetCommitRequestTopic) (string, [16]byte) { return t.Topic, t.TopicID },
		func(r kmsg.Response, refused []kmsg.OffsetCommitRequestTopic) {
			resp := r.(*kmsg.OffsetCommitResponse)
			resp.Topics = append(resp.Topics, offsetCommitTopics(refused, kerr.TopicAuthorizationFailed.Code)...)
		})
}

// gateReadableTopics takes out of topics those the principal may not READ
// (a topic id no topic has is left to the handler) and has addRefused
// answer them in the handler's response, as the offset commits do.
func gateReadableTopics[T any](g *gatekeeper, topics *[]T, topicOf func(T) (string, [16]byte), addRefused func(kmsg.Response, []T)) verdict {
	kept, refused := split(*topics, func(t T) bool {
		name, known := g.topicName(topicOf(t))
		return !known || g.topic(metadata.OpRead, name)
	})
	if len(refused) == 0 {
		return verdict{}
	}
	*topics = kept
	return verdict{complete: func(r kmsg.Response) { addRefused(r, refused) }}
}

// gateOffsetFetch: DESCRIBE on each group (else GROUP_AUTHORIZATION_FAILED);
// the offsets of a topic the principal may not DESCRIBE are left out when
// all are asked for and TOPIC_AUTHORIZATION_FAILED when named.
func gateOffsetFetch(g *gatekeeper) verdict {
	req := g.r.Body.(*kmsg.OffsetFetchRequest)
	if req.Version < 8 {
		return gateOffsetFetchOne(g, req)
	}
	type refusedTopics struct {
		group  string
		topics []kmsg.OffsetFetchRequestGroupTopic
	}
	var refusedGroups []string
	var refused []refusedTopics
	allTopics := map[string]bool{}
	kept, _ := split(req.Groups, func(gr kmsg.OffsetFetchRequestGroup) bool {
		if !g.group(metadata.OpDescribe, gr.Group) {
			refusedGroups = append(refusedGroups, gr.Group)
			return false
		}
		return true
	})
	for i := range kept {
		gr := &kept[i]
		if gr.Topics == nil {
			allTopics[gr.Group] = true
			continue
		}
		var out []kmsg.OffsetFetchRequestGroupTopic
		gr.Topics, out = split(gr.Topics, func(t kmsg.OffsetFetchRequestGroupTopic) bool {
			name, known := g.topicName(t.Topic, t.TopicID)
			return !known || g.topic(metadata.OpDescribe, name)
		})
		if gr.Topics == nil {
			gr.Topics = []kmsg.OffsetFetchRequestGroupTopic{}
		}
		if len(out) > 0 {
			refused = append(refused, refusedTopics{gr.Group, out})
		}
	}
	req.Groups = kept
	return verdict{complete: func(r kmsg.Response) {
		resp := r.(*kmsg.OffsetFetchResponse)
		for i := range resp.Groups {
			gr := &resp.Groups[i]
			if allTopics[gr.Group] {
				gr.Topics, _ = split(gr.Topics, func(t kmsg.OffsetFetchResponseGroupTopic) bool {
					name, known := g.topicName(t.Topic, t.TopicID)
					return known && g.topic(metadata.OpDescribe, name)
				})
			}
			for _, rt := range refused {
				if rt.group != gr.Group {
					continue
				}
				for _, t := range rt.topics {
					out := kmsg.NewOffsetFetchResponseGroupTopic()
					out.Topic, out.TopicID = t.Topic, t.TopicID
					for _, p := range t.Partitions {
						rp := kmsg.NewOffsetFetchResponseGroupTopicPartition()
						rp.Partition, rp.Offset, rp.LeaderEpoch, rp.ErrorCode = p, -1, -1, kerr.TopicAuthorizationFailed.Code
						out.Partitions = append(out.Partitions, rp)
					}
					gr.Topics = append(gr.Topics, out)
				}
			}
		}
		for _, name := range refusedGroups {
			gr := kmsg.NewOffsetFetchResponseGroup()
			gr.Group, gr.ErrorCode = name, kerr.GroupAuthorizationFailed.Code
			resp.Groups = append(resp.Groups, gr)
		}
	}}
}

// offsetFetchTopics answers every partition of topics with code (v0-v7).
func offsetFetchTopics(topics []kmsg.OffsetFetchRequestTopic, code int16) []kmsg.OffsetFetchResponseTopic {
	var out []kmsg.OffsetFetchResponseTopic
	for _, t := range topics {
		rt := kmsg.NewOffsetFetchResponseTopic()
		rt.Topic = t.Topic
		for _, p := range t.Partitions {
			rp := kmsg.NewOffsetFetchResponseTopicPartition()
			rp.Partition, rp.Offset, rp.LeaderEpoch, rp.ErrorCode = p, -1, -1, code
			rp.Metadata = kmsg.StringPtr("") // Kafka's OffsetFetchResponse.NO_METADATA
			rt.Partitions = append(rt.Partitions, rp)
		}
		out = append(out, rt)
	}
	return out
}

// gateOffsetFetchOne is OffsetFetch v0-v7, one group a request.
func gateOffsetFetchOne(g *gatekeeper, req *kmsg.OffsetFetchRequest) verdict {
	if !g.group(metadata.OpDescribe, req.Group) {
		resp := kmsg.NewPtrOffsetFetchResponse()
		resp.ErrorCode = kerr.GroupAuthorizationFailed.Code
		if req.GetVersion() < 2 {
			// v0-v1 have no top-level error: Kafka answers it on every
			// partition asked for; later versions answer no topics.
			resp.Topics = offsetFetchTopics(req.Topics, kerr.GroupAuthorizationFailed.Code)
		}
		return refuse(resp)
	}
	if req.Topics == nil {
		return verdict{complete: func(r kmsg.Response) {
			resp := r.(*kmsg.OffsetFetchResponse)
			resp.Topics, _ = split(resp.Topics, func(t kmsg.OffsetFetchResponseTopic) bool { return g.topic(metadata.OpDescribe, t.Topic) })
		}}
	}
	kept, refused := split(req.Topics, func(t kmsg.OffsetFetchRequestTopic) bool { return g.topic(metadata.OpDescribe, t.Topic) })
	if len(refused) == 0 {
		return verdict{}
	}
	req.Topics = kept
	if req.Topics == nil {
		req.Topics = []kmsg.OffsetFetchRequestTopic{}
	}
	return verdict{complete: func(r kmsg.Response) {
		resp := r.(*kmsg.OffsetFetchResponse)
		resp.Topics = append(resp.Topics, offsetFetchTopics(refused, kerr.TopicAuthorizationFailed.Code)...)
	}}
}

// coordinatorKeyAllowed: a group coordinator needs DESCRIBE on the group,
// a transaction coordinator DESCRIBE on the transactional id, a share
// coordinator CLUSTER_ACTION; the code is the refusal's.
func (g *gatekeeper) coordinatorKeyAllowed(keyType int8, key string) (bool, int16) {
	switch keyType {
	case 0:
		return g.group(metadata.OpDescribe, key), kerr.GroupAuthorizationFailed.Code
	case 1:
		return g.txn(metadata.OpDescribe, key), kerr.TransactionalIDAuthorizationFailed.Code
	case 2:
		// The share coordinator serves brokers only (Kafka's CLUSTER_ACTION).
		return g.cluster(metadata.OpClusterAction), kerr.ClusterAuthorizationFailed.Code
	}
	return true, 0
}

// gateFindCoordinator: DESCRIBE on each key's group or transactional id.
func gateFindCoordinator(g *gatekeeper) verdict {
	req := g.r.Body.(*kmsg.FindCoordinatorRequest)
	if req.Version < 4 {
		if ok, code := g.coordinatorKeyAllowed(req.CoordinatorType, req.CoordinatorKey); !ok {
			resp := kmsg.NewPtrFindCoordinatorResponse()
			resp.ErrorCode, resp.NodeID, resp.Port = code, -1, -1
			return refuse(resp)
		}
		return verdict{}
	}
	var refusedCode int16
	kept, refused := split(req.CoordinatorKeys, func(key string) bool {
		ok, code := g.coordinatorKeyAllowed(req.CoordinatorType, key)
		refusedCode = code
		return ok
	})
	if len(refused) == 0 {
		return verdict{}
	}
	if len(kept) == 0 {
		resp := kmsg.NewPtrFindCoordinatorResponse()
		resp.Coordinators = findCoordinatorRefusals(refused, refusedCode)
		return refuse(resp)
	}
	req.CoordinatorKeys = kept
	return verdict{complete: func(r kmsg.Response) {
		resp := r.(*kmsg.FindCoordinatorResponse)
		resp.Coordinators = append(resp.Coordinators, findCoordinatorRefusals(refused, refusedCode)...)
	}}
}

func findCoordinatorRefusals(keys []string, code int16) []kmsg.FindCoordinatorResponseCoordinator {
	var out []kmsg.FindCoordinatorResponseCoordinator
	for _, key := range keys {
		c := kmsg.NewFindCoordinatorResponseCoordinator()
		c.Key, c.NodeID, c.Port, c.ErrorCode = key, -1, -1, code
		out = append(out, c)
	}
	return out
}

// gateGroupDescriptions: DESCRIBE on each group of *groups, else the
// group is answered GROUP_AUTHORIZATION_FAILED; fill completes the
// handler's response with the refused groups and, when asked for, each
// described group's authorized operations.
func gateGroupDescriptions(g *gatekeeper, groups *[]string, fill func(r kmsg.Response, ops func(group string) int32, refused []string)) verdict {
	kept, refused := split(*groups, func(name string) bool { return g.group(metadata.OpDescribe, name) })
	*groups = kept
	return verdict{complete: func(r kmsg.Response) {
		fill(r, func(group string) int32 { return g.operations(metadata.ResourceGroup, group, groupOperations) }, refused)
	}}
}

// gateDescribeGroups: DescribeGroups by gateGroupDescriptions.
func gateDescribeGroups(g *gatekeeper) verdict {
	req := g.r.Body.(*kmsg.DescribeGroupsRequest)
	return gateGroupDescriptions(g, &req.Groups, func(r kmsg.Response, ops func(string) int32, refused []string) {
		resp := r.(*kmsg.DescribeGroupsResponse)
		for i := range resp.Groups {
			if gr := &resp.Groups[i]; gr.ErrorCode == 0 && req.IncludeAuthorizedOperations {
				gr.AuthorizedOperations = ops(gr.Group)
			}
		}
		for _, name := range refused {
			gr := kmsg.NewDescribeGroupsResponseGroup()
			gr.Group, gr.ErrorCode, gr.AuthorizedOperations = name, kerr.GroupAuthorizationFailed.Code, authorizedOperationsNotRequested
			resp.Groups = append(resp.Groups, gr)
		}
	})
}

// gateConsumerGroupDescribe: ConsumerGroupDescribe (KIP-848 groups) by
// gateGroupDescriptions.
func gateConsumerGroupDescribe(g *gatekeeper) verdict {
	req := g.r.Body.(*kmsg.ConsumerGroupDescribeRequest)
	return gateGroupDescriptions(g, &req.Groups, func(r kmsg.Response, ops func(string) int32, refused []string) {
		resp := r.(*kmsg.ConsumerGroupDescribeResponse)
		for i := range resp.Groups {
			gr := &resp.Groups[i]
			if gr.ErrorCode != 0 {
				continue
			}
			if !g.consumerGroupTopicsDescribable(gr) {
				// Kafka answers such a group with its id and the error only, so
				// that its members' topics are not seen.
				hidden := kmsg.NewConsumerGroupDescribeResponseGroup()
				msg := kerr.TopicAuthorizationFailed.Description
				hidden.Group, hidden.ErrorCode, hidden.ErrorMessage = gr.Group, kerr.TopicAuthorizationFailed.Code, &msg
				*gr = hidden
				continue
			}
			if req.IncludeAuthorizedOperations {
				gr.AuthorizedOperations = ops(gr.Group)
			}
		}
		for _, name := range refused {
			gr := kmsg.NewConsumerGroupDescribeResponseGroup()
			gr.Group, gr.ErrorCode, gr.AuthorizedOperations = name, kerr.GroupAuthorizationFailed.Code, authorizedOperationsNotRequested
			resp.Groups = append(resp.Groups, gr)
		}
	})
}

// consumerGroupTopicsDescribable: whether the principal may DESCRIBE every
// topic a member of the group subscribes to, is assigned or is to be
// assigned.
func (g *gatekeeper) consumerGroupTopicsDescribable(gr *kmsg.ConsumerGroupDescribeResponseGroup) bool {
	seen := map[string]bool{}
	ok := func(topic string) bool {
		if topic == "" || seen[topic] {
			return true
		}
		seen[topic] = true
		return g.topic(metadata.OpDescribe, topic)
	}
	for _, m := range gr.Members {
		for _, t := range m.SubscribedTopics {
			if !ok(t) {
				return false
			}
		}
		for _, t := range m.Assignment.TopicPartitions {
			if !ok(t.Topic) {
				return false
			}
		}
		for _, t := range m.TargetAssignment.TopicPartitions {
			if !ok(t.Topic) {
				return false
			}
		}
	}
	return true
}

// gateListGroups: DESCRIBE on the cluster lists every group, else only
// the groups the principal may DESCRIBE.
func gateListGroups(g *gatekeeper) verdict {
	if g.cluster(metadata.OpDescribe) {
		return verdict{}
	}
	return verdict{complete: func(r kmsg.Response) {
		resp := r.(*kmsg.ListGroupsResponse)
		resp.Groups, _ = split(resp.Groups, func(gr kmsg.ListGroupsResponseGroup) bool { return g.group(metadata.OpDescribe, gr.Group) })
	}}
}

// gateDeleteGroups: DELETE on each group, else GROUP_AUTHORIZATION_FAILED.
func gateDeleteGroups(g *gatekeeper) verdict {
	req := g.r.Body.(*kmsg.DeleteGroupsRequest)
	kept, refused := split(req.Groups, func(name string) bool { return g.group(metadata.OpDelete, name) })
	if len(refused) == 0 {
		return verdict{}
	}
	req.Groups = kept
	return verdict{complete: func(r kmsg.Response) {
		resp := r.(*kmsg.DeleteGroupsResponse)
		for _, name := range refused {
			gr := kmsg.NewDeleteGroupsResponseGroup()
			gr.Group, gr.ErrorCode = name, kerr.GroupAuthorizationFailed.Code
			resp.Groups = append(resp.Groups, gr)
		}
	}}
}

// gateOffsetDelete: DELETE on the group (else the request is
// GROUP_AUTHORIZATION_FAILED) and READ on each topic (else its partitions
// are TOPIC_AUTHORIZATION_FAILED).
func gateOffsetDelete(g *gatekeeper) verdict {
	req := g.r.Body.(*kmsg.OffsetDeleteRequest)
	if !g.group(metadata.OpDelete, req.Group) {
		return refuse(errorOnly(req, kerr.GroupAuthorizationFailed.Code))
	}
	kept, refused := split(req.Topics, func(t kmsg.OffsetDeleteRequestTopic) bool { return g.topic(metadata.OpRead, t.Topic) })
	if len(refused) == 0 {
		return verdict{}
	}
	req.Topics = kept
	return verdict{complete: func(r kmsg.Response) {
		resp := r.(*kmsg.OffsetDeleteResponse)
		for _, t := range refused {
			rt := kmsg.NewOffsetDeleteResponseTopic()
			rt.Topic = t.Topic
			for _, p := range t.Partitions {
				rp := kmsg.NewOffsetDeleteResponseTopicPartition()
				rp.Partition, rp.ErrorCode = p.Partition, kerr.TopicAuthorizationFailed.Code
				rt.Partitions = append(rt.Partitions, rp)
			}
			resp.Topics = append(resp.Topics, rt)
		}
	}}
}

// gateInitProducerID: a transactional producer needs WRITE on its
// transactional id; an idempotent one IDEMPOTENT_WRITE on the cluster or
// WRITE on some topic (Kafka 4's authorizeByResourceType).
//
// Kafka asks both questions of an idempotent producer with logIfDenied
// false, so it writes a refusal only at TRACE. Karst audits them as Kafka
// does (a denied IDEMPOTENT_WRITE that WRITE on a topic makes up for is
// at TRACE) except that a refusal is written at INFO, as the IDEMPOTENT_WRITE
// denial, like every other refused request.
func gateInitProducerID(g *gatekeeper) verdict {
	req := g.r.Body.(*kmsg.InitProducerIDRequest)
	if req.TransactionalID != nil {
		if !g.txn(metadata.OpWrite, *req.TransactionalID) {
			return refuse(errorOnly(req, kerr.TransactionalIDAuthorizationFailed.Code))
		}
		return verdict{}
	}
	idempotent := authorizer.Action{Operation: metadata.OpIdempotentWrite, ResourceType: metadata.ResourceCluster,
		ResourceName: metadata.ClusterResourceName}
	d := g.authz.Decide(g.principal, g.host, idempotent)
	if d.Allowed {
		g.audited(idempotent, d, true, false)
		return verdict{}
	}
	anyTopic := g.byResourceType(metadata.OpWrite, metadata.ResourceTopic)
	g.audited(idempotent, d, true, !anyTopic)
	if !anyTopic {
		return refuse(errorOnly(req, kerr.ClusterAuthorizationFailed.Code))
	}
	return verdict{}
}

// addPartitionsRefusal answers every partition of a v0-v3 AddPartitionsToTxn.
func addPartitionsRefusal(topics []kmsg.AddPartitionsToTxnRequestTopic, code func(topic string) int16) kmsg.Response {
	resp := kmsg.NewPtrAddPartitionsToTxnResponse()
	for _, t := range topics {
		rt := kmsg.NewAddPartitionsToTxnResponseTopic()
		rt.Topic = t.Topic
		for _, p := range t.Partitions {
			rp := kmsg.NewAddPartitionsToTxnResponseTopicPartition()
			rp.Partition, rp.ErrorCode = p, code(t.Topic)
			rt.Partitions = append(rt.Partitions, rp)
		}
		resp.Topics = append(resp.Topics, rt)
	}
	return resp
}

// gateAddPartitionsToTxn: a client's (v0-v3) needs WRITE on the
// transactional id and on every topic, else nothing is added: the refused
// topics are TOPIC_AUTHORIZATION_FAILED, the others
// OPERATION_NOT_ATTEMPTED; a broker's verification (v4+) needs
// CLUSTER_ACTION.
func gateAddPartitionsToTxn(g *gatekeeper) verdict {
	req := g.r.Body.(*kmsg.AddPartitionsToTxnRequest)
	if req.Version >= 4 {
		if !g.cluster(metadata.OpClusterAction) {
			return refuse(errorOnly(req, kerr.ClusterAuthorizationFailed.Code))
		}
		return verdict{}
	}
	if !g.txn(metadata.OpWrite, req.TransactionalID) {
		return refuse(addPartitionsRefusal(req.Topics, func(string) int16 { return kerr.TransactionalIDAuthorizationFailed.Code }))
	}
	denied := map[string]bool{}
	for _, t := range req.Topics {
		if !metadata.IsInternalTopic(t.Topic) && !g.topic(metadata.OpWrite, t.Topic) {
			denied[t.Topic] = true
		}
	}
	if len(denied) == 0 {
		return verdict{}
	}
	return refuse(addPartitionsRefusal(req.Topics, func(topic string) int16 {
		if denied[topic] {
			return kerr.TopicAuthorizationFailed.Code
		}
		return kerr.OperationNotAttempted.Code
	}))
}

// gateAddOffsetsToTxn: WRITE on the transactional id, READ on the group.
func gateAddOffsetsToTxn(g *gatekeeper) verdict {
	req := g.r.Body.(*kmsg.AddOffsetsToTxnRequest)
	switch {
	case !g.txn(metadata.OpWrite, req.TransactionalID):
		return refuse(errorOnly(req, kerr.TransactionalIDAuthorizationFailed.Code))
	case !g.group(metadata.OpRead, req.Group):
		return refuse(errorOnly(req, kerr.GroupAuthorizationFailed.Code))
	}
	return verdict{}
}

// gateEndTxn: WRITE on the transactional id.
func gateEndTxn(g *gatekeeper) verdict {
	if !g.txn(metadata.OpWrite, g.r.Body.(*kmsg.EndTxnRequest).TransactionalID) {
		return refuse(errorOnly(g.r.Body, kerr.TransactionalIDAuthorizationFailed.Code))
	}
	return verdict{}
}

// txnOffsetCommitTopics answers every partition of topics with code.
func txnOffsetCommitTopics(topics []kmsg.TxnOffsetCommitRequestTopic, code int16) []kmsg.TxnOffsetCommitResponseTopic {
	var out []kmsg.TxnOffsetCommitResponseTopic
	for _, t := range topics {
		rt := kmsg.NewTxnOffsetCommitResponseTopic()
		rt.Topic, rt.TopicID = t.Topic, t.TopicID
		for _, p := range t.Partitions {
			rp := kmsg.NewTxnOffsetCommitResponseTopicPartition()
			rp.Partition, rp.ErrorCode = p.Partition, code
			rt.Partitions = append(rt.Partitions, rp)
		}
		out = append(out, rt)
	}
	return out
}

// gateTxnOffsetCommit: WRITE on the transactional id and READ on the group
// (else every partition carries the refusal), READ on each topic (else
// its partitions are TOPIC_AUTHORIZATION_FAILED).
func gateTxnOffsetCommit(g *gatekeeper) verdict {
	req := g.r.Body.(*kmsg.TxnOffsetCommitRequest)
	var code int16
	switch {
	case !g.txn(metadata.OpWrite, req.TransactionalID):
		code = kerr.TransactionalIDAuthorizationFailed.Code
	case !g.group(metadata.OpRead, req.Group):
		code = kerr.GroupAuthorizationFailed.Code
	}
	if code != 0 {
		resp := kmsg.NewPtrTxnOffsetCommitResponse()
		resp.Topics = txnOffsetCommitTopics(req.Topics, code)
		return refuse(resp)
	}
	return gateReadableTopics(g, &req.Topics,
		func(t kmsg.TxnOffsetCommitRequestTopic) (string, [16]byte) { return t.Topic, t.TopicID },
		func(r kmsg.Response, refused []kmsg.TxnOffsetCommitRequestTopic) {
			resp := r.(*kmsg.TxnOffsetCommitResponse)
			resp.Topics = append(resp.Topics, txnOffsetCommitTopics(refused, kerr.TopicAuthorizationFailed.Code)...)
		})
}

// gateDescribeTransactions: DESCRIBE on each transactional id (else
// TRANSACTIONAL_ID_AUTHORIZATION_FAILED); a transaction's topics the
// principal may not DESCRIBE are left out.
func gateDescribeTransactions(g *gatekeeper) verdict {
	req := g.r.Body.(*kmsg.DescribeTransactionsRequest)
	kept, refused := split(req.TransactionalIDs, func(id string) bool { return g.txn(metadata.OpDescribe, id) })
	req.TransactionalIDs = kept
	return verdict{complete: func(r kmsg.Response) {
		resp := r.(*kmsg.DescribeTransactionsResponse)
		for i := range resp.TransactionStates {
			s := &resp.TransactionStates[i]
			s.Topics, _ = split(s.Topics, func(t kmsg.DescribeTransactionsResponseTransactionStateTopic) bool {
				return g.topic(metadata.OpDescribe, t.Topic)
			})
		}
		for _, id := range refused {
			s := kmsg.NewDescribeTransactionsResponseTransactionState()
			s.TransactionalID, s.ErrorCode = id, kerr.TransactionalIDAuthorizationFailed.Code
			resp.TransactionStates = append(resp.TransactionStates, s)
		}
	}}
}

// gateListTransactions lists only the transactional ids the principal may
// DESCRIBE.
func gateListTransactions(g *gatekeeper) verdict {
	return verdict{complete: func(r kmsg.Response) {
		resp := r.(*kmsg.ListTransactionsResponse)
		resp.TransactionStates, _ = split(resp.TransactionStates, func(s kmsg.ListTransactionsResponseTransactionState) bool {
			return g.txn(metadata.OpDescribe, s.TransactionalID)
		})
	}}
}
