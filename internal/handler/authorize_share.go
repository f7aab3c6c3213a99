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
					rp.Partition, rp.ErrorCode = p.Partition, kerr.TopicAuthorizationFailed.Code
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
