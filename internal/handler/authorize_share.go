package handler

// The gates of ShareFetch and ShareAcknowledge, by Kafka's KafkaApis: READ
// on the share group (else the request's GROUP_AUTHORIZATION_FAILED), and
// READ on each topic (else its partitions are TOPIC_AUTHORIZATION_FAILED).

import (
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/karst-broker/karst/internal/metadata"
)

func init() {
	gates[78] = gateShareFetch
	gates[79] = gateShareAcknowledge
	gates[76] = func(g *gatekeeper) verdict {
		return gateHeartbeatTopics(g, g.r.Body.(*kmsg.ShareGroupHeartbeatRequest).SubscribedTopicNames)
	}
	gates[77] = gateShareGroupDescribe
}

// gateShareGroupDescribe: DESCRIBE on each group (else the group is
// GROUP_AUTHORIZATION_FAILED), and a group whose members are assigned a
// topic the principal may not DESCRIBE is answered
// TOPIC_AUTHORIZATION_FAILED without its members, as Kafka 4.4's KafkaApis.
func gateShareGroupDescribe(g *gatekeeper) verdict {
	req := g.r.Body.(*kmsg.ShareGroupDescribeRequest)
	return gateGroupDescriptions(g, &req.GroupIDs, func(r kmsg.Response, ops func(string) int32, refused []string) {
		resp := r.(*kmsg.ShareGroupDescribeResponse)
		for i := range resp.Groups {
			gr := &resp.Groups[i]
			if gr.ErrorCode != 0 {
				continue
			}
			if !g.shareGroupTopicsDescribable(gr) {
				hidden := kmsg.NewShareGroupDescribeResponseGroup()
				msg := "The group has described topic(s) that the client is not authorized to describe."
				hidden.GroupID, hidden.ErrorCode, hidden.ErrorMessage = gr.GroupID, kerr.TopicAuthorizationFailed.Code, &msg
				hidden.Members, hidden.AuthorizedOperations = []kmsg.ShareGroupDescribeResponseGroupMember{}, authorizedOperationsNotRequested
				*gr = hidden
				continue
			}
			if req.IncludeAuthorizedOperations {
				gr.AuthorizedOperations = ops(gr.GroupID)
			}
		}
		for _, name := range refused {
			gr := kmsg.NewShareGroupDescribeResponseGroup()
			gr.GroupID, gr.ErrorCode, gr.AuthorizedOperations = name, kerr.GroupAuthorizationFailed.Code, authorizedOperationsNotRequested
			resp.Groups = append(resp.Groups, gr)
		}
	})
}

// shareGroupTopicsDescribable: whether the principal may DESCRIBE every
// topic assigned to a member of the group.
func (g *gatekeeper) shareGroupTopicsDescribable(gr *kmsg.ShareGroupDescribeResponseGroup) bool {
	for _, m := range gr.Members {
		for _, t := range m.Assignment.TopicPartitions {
			if !g.topic(metadata.OpDescribe, t.Topic) {
				return false
			}
		}
	}
	return true
}

// gateShare checks READ on group, then on each of topics, whose refused
// partitions addRefused answers.
func gateShare[T any](g *gatekeeper, group *string, topics *[]T, topicID func(T) [16]byte, addRefused func(kmsg.Response, []T)) verdict {
	if !g.group(metadata.OpRead, deref(group)) {
		return refuse(errorOnly(g.r.Body, kerr.GroupAuthorizationFailed.Code))
	}
	return gateReadableTopics(g, topics, func(t T) (string, [16]byte) { return "", topicID(t) }, addRefused)
}

func gateShareFetch(g *gatekeeper) verdict {
	req := g.r.Body.(*kmsg.ShareFetchRequest)
	return gateShare(g, req.GroupID, &req.Topics,
		func(t kmsg.ShareFetchRequestTopic) [16]byte { return t.TopicID },
		func(r kmsg.Response, refused []kmsg.ShareFetchRequestTopic) {
			resp := r.(*kmsg.ShareFetchResponse)
			for _, t := range refused {
				rt := kmsg.NewShareFetchResponseTopic()
				rt.TopicID = t.TopicID
				for _, p := range t.Partitions {
					rp := kmsg.NewShareFetchResponseTopicPartition()
					rp.Partition, rp.ErrorCode, rp.Records = p.Partition, kerr.TopicAuthorizationFailed.Code, []byte{}
					rt.Partitions = append(rt.Partitions, rp)
				}
				resp.Topics = append(resp.Topics, rt)
			}
		})
}

func gateShareAcknowledge(g *gatekeeper) verdict {
	req := g.r.Body.(*kmsg.ShareAcknowledgeRequest)
	return gateShare(g, req.GroupID, &req.Topics,
		func(t kmsg.ShareAcknowledgeRequestTopic) [16]byte { return t.TopicID },
		func(r kmsg.Response, refused []kmsg.ShareAcknowledgeRequestTopic) {
			resp := r.(*kmsg.ShareAcknowledgeResponse)
			for _, t := range refused {
				rt := kmsg.NewShareAcknowledgeResponseTopic()
				rt.TopicID = t.TopicID
				for _, p := range t.Partitions {
					rp := kmsg.NewShareAcknowledgeResponseTopicPartition()
					rp.Partition, rp.ErrorCode = p.Partition, kerr.TopicAuthorizationFailed.Code
					rt.Partitions = append(rt.Partitions, rp)
				}
				resp.Topics = append(resp.Topics, rt)
			}
		})
}
