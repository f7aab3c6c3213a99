package handler

// The gates of the admin APIs: topics (CREATE, DELETE, ALTER), configs
// (DESCRIBE_CONFIGS, ALTER_CONFIGS on the topic, group or cluster) and the
// whole-request answers of the APIs that need one CLUSTER operation.

import (
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/karst-broker/karst/internal/metadata"
)

// counts tallies names, so a gate leaves duplicates to the handler, which
// answers them INVALID_REQUEST before any authorization as Kafka does.
func counts[T any](s []T, name func(T) string) map[string]int {
	n := map[string]int{}
	for _, e := range s {
		n[name(e)]++
	}
	return n
}

// gateCreateTopics: CREATE on the cluster or on each topic, else
// TOPIC_AUTHORIZATION_FAILED; a created topic whose configs the principal
// may not DESCRIBE_CONFIGS is answered without them.
func gateCreateTopics(g *gatekeeper) verdict {
	req := g.r.Body.(*kmsg.CreateTopicsRequest)
	n := counts(req.Topics, func(t kmsg.CreateTopicsRequestTopic) string { return t.Topic })
	clusterCreate := g.probe(metadata.OpCreate, metadata.ResourceCluster, metadata.ClusterResourceName)
	kept, refused := split(req.Topics, func(t kmsg.CreateTopicsRequestTopic) bool {
		return clusterCreate || n[t.Topic] > 1 || t.Topic == metadata.ClusterMetadataTopic || g.topic(metadata.OpCreate, t.Topic)
	})
	req.Topics = kept
	return verdict{complete: func(r kmsg.Response) {
		resp := r.(*kmsg.CreateTopicsResponse)
		for i := range resp.Topics {
			t := &resp.Topics[i]
			if t.ErrorCode == 0 && !g.probe(metadata.OpDescribeConfigs, metadata.ResourceTopic, t.Topic) {
				t.ConfigErrorCode = kerr.TopicAuthorizationFailed.Code
				t.NumPartitions, t.ReplicationFactor, t.Configs = -1, -1, []kmsg.CreateTopicsResponseTopicConfig{}
			}
		}
		for _, t := range refused {
			rt := kmsg.NewCreateTopicsResponseTopic()
			msg := "Authorization failed."
			rt.Topic, rt.ErrorCode, rt.ErrorMessage = t.Topic, kerr.TopicAuthorizationFailed.Code, &msg
			rt.NumPartitions, rt.ReplicationFactor = -1, -1
			rt.Configs = []kmsg.CreateTopicsResponseTopicConfig{} // Kafka sends an empty list, not null
			resp.Topics = append(resp.Topics, rt)
		}
	}}
}

// gateDeleteTopics: DELETE on each topic, else TOPIC_AUTHORIZATION_FAILED;
// a topic named by id that the principal may not DESCRIBE is answered
// without its name.
func gateDeleteTopics(g *gatekeeper) verdict {
	req := g.r.Body.(*kmsg.DeleteTopicsRequest)
	var refused []kmsg.DeleteTopicsResponseTopic
	refuseTopic := func(name *string, id [16]byte) {
		t := kmsg.NewDeleteTopicsResponseTopic()
		t.Topic, t.TopicID, t.ErrorCode = name, id, kerr.TopicAuthorizationFailed.Code
		refused = append(refused, t)
	}
	req.TopicNames, _ = split(req.TopicNames, func(name string) bool {
		if g.topic(metadata.OpDelete, name) {
			return true
		}
		refuseTopic(&name, [16]byte{})
		return false
	})
	req.Topics, _ = split(req.Topics, func(t kmsg.DeleteTopicsRequestTopic) bool {
		name := ""
		if t.Topic != nil {
			name = *t.Topic
		}
		resolved, known := g.topicName(name, t.TopicID)
		switch {
		case !known:
			return true
		case t.Topic == nil && !g.topic(metadata.OpDescribe, resolved):
			refuseTopic(nil, t.TopicID)
			return false
		case !g.topic(metadata.OpDelete, resolved):
			refuseTopic(&resolved, t.TopicID)
			return false
		}
		return true
	})
	if len(refused) == 0 {
		return verdict{}
	}
	return verdict{complete: func(r kmsg.Response) {
		resp := r.(*kmsg.DeleteTopicsResponse)
		resp.Topics = append(resp.Topics, refused...)
	}}
}

// gateCreatePartitions: ALTER on each topic, else TOPIC_AUTHORIZATION_FAILED.
func gateCreatePartitions(g *gatekeeper) verdict {
	req := g.r.Body.(*kmsg.CreatePartitionsRequest)
	n := counts(req.Topics, func(t kmsg.CreatePartitionsRequestTopic) string { return t.Topic })
	kept, refused := split(req.Topics, func(t kmsg.CreatePartitionsRequestTopic) bool {
		return n[t.Topic] > 1 || g.topic(metadata.OpAlter, t.Topic)
	})
	if len(refused) == 0 {
		return verdict{}
	}
	req.Topics = kept
	return verdict{complete: func(r kmsg.Response) {
		resp := r.(*kmsg.CreatePartitionsResponse)
		for _, t := range refused {
			rt := kmsg.NewCreatePartitionsResponseTopic()
			msg := "The topic authorization is failed."
			rt.Topic, rt.ErrorCode, rt.ErrorMessage = t.Topic, kerr.TopicAuthorizationFailed.Code, &msg
			resp.Topics = append(resp.Topics, rt)
		}
	}}
}

// gateDeleteRecords: DELETE on each topic, refused per partition.
func gateDeleteRecords(g *gatekeeper) verdict {
	req := g.r.Body.(*kmsg.DeleteRecordsRequest)
	kept, refused := split(req.Topics, func(t kmsg.DeleteRecordsRequestTopic) bool { return g.topic(metadata.OpDelete, t.Topic) })
	if len(refused) == 0 {
		return verdict{}
	}
	req.Topics = kept
	return verdict{complete: func(r kmsg.Response) {
		resp := r.(*kmsg.DeleteRecordsResponse)
		for _, t := range refused {
			rt := kmsg.NewDeleteRecordsResponseTopic()
			rt.Topic = t.Topic
			for _, p := range t.Partitions {
				rp := kmsg.NewDeleteRecordsResponseTopicPartition()
				rp.Partition, rp.LowWatermark, rp.ErrorCode = p.Partition, -1, kerr.TopicAuthorizationFailed.Code
				rt.Partitions = append(rt.Partitions, rp)
			}
			resp.Topics = append(resp.Topics, rt)
		}
	}}
}

// configResourceAllowed: a topic's configs need op on the topic, a
// group's on the group, a broker's, a broker logger's and client metrics'
// on the cluster (ConfigHelper, ConfigAdminManager); code is the refusal.
func (g *gatekeeper) configResourceAllowed(op int8, resourceType kmsg.ConfigResourceType, name string) (bool, int16) {
	switch resourceType {
	case kmsg.ConfigResourceTypeTopic:
		return g.topic(op, name), kerr.TopicAuthorizationFailed.Code
	case kmsg.ConfigResourceTypeGroupConfig:
		return g.group(op, name), kerr.GroupAuthorizationFailed.Code
	case kmsg.ConfigResourceTypeBroker, kmsg.ConfigResourceTypeBrokerLogger, kmsg.ConfigResourceTypeClientMetrics:
		return g.cluster(op), kerr.ClusterAuthorizationFailed.Code
	}
	return true, 0
}

// authorizationMessages are Kafka's messages of its authorization errors
// (the exceptions' default messages).
var authorizationMessages = map[int16]string{
	kerr.TopicAuthorizationFailed.Code:   "Topic authorization failed.",
	kerr.GroupAuthorizationFailed.Code:   "Group authorization failed.",
	kerr.ClusterAuthorizationFailed.Code: "Cluster authorization failed.",
}

// configRefusal is one config resource a gate took out of a request.
type configRefusal struct {
	resourceType kmsg.ConfigResourceType
	name         string
	code         int16
}

// splitConfigResources keeps the resources op is allowed on.
func splitConfigResources[T any](g *gatekeeper, op int8, s []T, key func(T) (kmsg.ConfigResourceType, string)) ([]T, []configRefusal) {
	var refused []configRefusal
	kept, _ := split(s, func(e T) bool {
		rt, name := key(e)
		ok, code := g.configResourceAllowed(op, rt, name)
		if !ok {
			refused = append(refused, configRefusal{rt, name, code})
		}
		return ok
	})
	return kept, refused
}

// gateConfigResources takes out of *resources those op is refused on;
// answer adds one to the handler's response.
func gateConfigResources[T any](g *gatekeeper, op int8, resources *[]T, key func(T) (kmsg.ConfigResourceType, string),
	answer func(kmsg.Response, configRefusal)) verdict {
	kept, refused := splitConfigResources(g, op, *resources, key)
	if len(refused) == 0 {
		return verdict{}
	}
	*resources = kept
	return verdict{complete: func(r kmsg.Response) {
		for _, c := range refused {
			answer(r, c)
		}
	}}
}

// gateDescribeConfigs: DESCRIBE_CONFIGS on each resource.
func gateDescribeConfigs(g *gatekeeper) verdict {
	req := g.r.Body.(*kmsg.DescribeConfigsRequest)
	return gateConfigResources(g, metadata.OpDescribeConfigs, &req.Resources,
		func(r kmsg.DescribeConfigsRequestResource) (kmsg.ConfigResourceType, string) {
			return r.ResourceType, r.ResourceName
		},
		func(r kmsg.Response, c configRefusal) {
			resp := r.(*kmsg.DescribeConfigsResponse)
			rr := kmsg.NewDescribeConfigsResponseResource()
			msg := authorizationMessages[c.code]
			rr.ResourceType, rr.ResourceName, rr.ErrorCode, rr.ErrorMessage = c.resourceType, c.name, c.code, &msg
			resp.Resources = append(resp.Resources, rr)
		})
}

// gateAlterConfigs: ALTER_CONFIGS on each resource.
func gateAlterConfigs(g *gatekeeper) verdict {
	req := g.r.Body.(*kmsg.AlterConfigsRequest)
	return gateConfigResources(g, metadata.OpAlterConfigs, &req.Resources,
		func(r kmsg.AlterConfigsRequestResource) (kmsg.ConfigResourceType, string) {
			return r.ResourceType, r.ResourceName
		},
		func(r kmsg.Response, c configRefusal) {
			resp := r.(*kmsg.AlterConfigsResponse)
			rr := kmsg.NewAlterConfigsResponseResource()
			rr.ResourceType, rr.ResourceName, rr.ErrorCode = c.resourceType, c.name, c.code
			resp.Resources = append(resp.Resources, rr)
		})
}

// gateIncrementalAlterConfigs: ALTER_CONFIGS on each resource.
func gateIncrementalAlterConfigs(g *gatekeeper) verdict {
	req := g.r.Body.(*kmsg.IncrementalAlterConfigsRequest)
	return gateConfigResources(g, metadata.OpAlterConfigs, &req.Resources,
		func(r kmsg.IncrementalAlterConfigsRequestResource) (kmsg.ConfigResourceType, string) {
			return r.ResourceType, r.ResourceName
		},
		func(r kmsg.Response, c configRefusal) {
			resp := r.(*kmsg.IncrementalAlterConfigsResponse)
			rr := kmsg.NewIncrementalAlterConfigsResponseResource()
			rr.ResourceType, rr.ResourceName, rr.ErrorCode = c.resourceType, c.name, c.code
			resp.Resources = append(resp.Resources, rr)
		})
}

// gateDescribeCluster: any principal may describe the cluster; its
// authorized operations, when asked for, are the principal's, or none
// without DESCRIBE (AuthHelper.computeDescribeClusterResponse).
func gateDescribeCluster(g *gatekeeper) verdict {
	req := g.r.Body.(*kmsg.DescribeClusterRequest)
	if !req.IncludeClusterAuthorizedOperations {
		return verdict{}
	}
	return verdict{complete: func(r kmsg.Response) {
		resp := r.(*kmsg.DescribeClusterResponse)
		if resp.ErrorCode != 0 {
			return
		}
		resp.ClusterAuthorizedOperations = 0
		if g.cluster(metadata.OpDescribe) {
			resp.ClusterAuthorizedOperations = g.operations(metadata.ResourceCluster, metadata.ClusterResourceName, clusterOperations)
		}
	}}
}

// The whole-request refusals of cluster APIs whose responses carry their
// errors per element, as each request's getErrorResponse.

func createACLsRefusal(req kmsg.Request, code int16) kmsg.Response {
	resp := kmsg.NewPtrCreateACLsResponse()
	for range req.(*kmsg.CreateACLsRequest).Creations {
		res := kmsg.NewCreateACLsResponseResult()
		res.ErrorCode = code
		resp.Results = append(resp.Results, res)
	}
	return resp
}

func deleteACLsRefusal(req kmsg.Request, code int16) kmsg.Response {
	resp := kmsg.NewPtrDeleteACLsResponse()
	for range req.(*kmsg.DeleteACLsRequest).Filters {
		res := kmsg.NewDeleteACLsResponseResult()
		res.ErrorCode = code
		resp.Results = append(resp.Results, res)
	}
	return resp
}

func writeTxnMarkersRefusal(req kmsg.Request, code int16) kmsg.Response {
	resp := kmsg.NewPtrWriteTxnMarkersResponse()
	for _, m := range req.(*kmsg.WriteTxnMarkersRequest).Markers {
		rm := kmsg.NewWriteTxnMarkersResponseMarker()
		rm.ProducerID = m.ProducerID
		for _, t := range m.Topics {
			rt := kmsg.NewWriteTxnMarkersResponseMarkerTopic()
			rt.Topic = t.Topic
			for _, p := range t.Partitions {
				rp := kmsg.NewWriteTxnMarkersResponseMarkerTopicPartition()
				rp.Partition, rp.ErrorCode = p, code
				rt.Partitions = append(rt.Partitions, rp)
			}
			rm.Topics = append(rm.Topics, rt)
		}
		resp.Markers = append(resp.Markers, rm)
	}
	return resp
}

func alterReplicaLogDirsRefusal(req kmsg.Request, code int16) kmsg.Response {
	resp := kmsg.NewPtrAlterReplicaLogDirsResponse()
	for _, d := range req.(*kmsg.AlterReplicaLogDirsRequest).Dirs {
		for _, t := range d.Topics {
			rt := kmsg.NewAlterReplicaLogDirsResponseTopic()
			rt.Topic = t.Topic
			for _, p := range t.Partitions {
				rp := kmsg.NewAlterReplicaLogDirsResponseTopicPartition()
				rp.Partition, rp.ErrorCode = p, code
				rt.Partitions = append(rt.Partitions, rp)
			}
			resp.Topics = append(resp.Topics, rt)
		}
	}
	return resp
}

func electLeadersRefusal(req kmsg.Request, code int16) kmsg.Response {
	resp := kmsg.NewPtrElectLeadersResponse()
	resp.ErrorCode = code
	for _, t := range req.(*kmsg.ElectLeadersRequest).Topics {
		rt := kmsg.NewElectLeadersResponseTopic()
		rt.Topic = t.Topic
		for _, p := range t.Partitions {
			rp := kmsg.NewElectLeadersResponseTopicPartition()
			rp.Partition, rp.ErrorCode = p, code
			rt.Partitions = append(rt.Partitions, rp)
		}
		resp.Topics = append(resp.Topics, rt)
	}
	return resp
}

// alterPartitionAssignmentsRefusal: Kafka answers the error at the top and
// on every partition named.
func alterPartitionAssignmentsRefusal(req kmsg.Request, code int16) kmsg.Response {
	resp := kmsg.NewPtrAlterPartitionAssignmentsResponse()
	resp.ErrorCode = code
	for _, t := range req.(*kmsg.AlterPartitionAssignmentsRequest).Topics {
		rt := kmsg.NewAlterPartitionAssignmentsResponseTopic()
		rt.Topic = t.Topic
		for _, p := range t.Partitions {
			rp := kmsg.NewAlterPartitionAssignmentsResponseTopicPartition()
			rp.Partition, rp.ErrorCode = p.Partition, code
			rt.Partitions = append(rt.Partitions, rp)
		}
		resp.Topics = append(resp.Topics, rt)
	}
	return resp
}

func alterClientQuotasRefusal(req kmsg.Request, code int16) kmsg.Response {
	resp := kmsg.NewPtrAlterClientQuotasResponse()
	for _, e := range req.(*kmsg.AlterClientQuotasRequest).Entries {
		re := kmsg.NewAlterClientQuotasResponseEntry()
		re.ErrorCode = code
		for _, en := range e.Entity {
			ren := kmsg.NewAlterClientQuotasResponseEntryEntity()
			ren.Type, ren.Name = en.Type, en.Name
			re.Entity = append(re.Entity, ren)
		}
		resp.Entries = append(resp.Entries, re)
	}
	return resp
}

func alterUserSCRAMRefusal(req kmsg.Request, code int16) kmsg.Response {
	r := req.(*kmsg.AlterUserSCRAMCredentialsRequest)
	resp := kmsg.NewPtrAlterUserSCRAMCredentialsResponse()
	seen := map[string]bool{}
	add := func(user string) {
		if seen[user] {
			return
		}
		seen[user] = true
		res := kmsg.NewAlterUserSCRAMCredentialsResponseResult()
		res.User, res.ErrorCode = user, code
		resp.Results = append(resp.Results, res)
	}
	for _, d := range r.Deletions {
		add(d.Name)
	}
	for _, u := range r.Upsertions {
		add(u.Name)
	}
	return resp
}
