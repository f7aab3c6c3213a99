package handler

// The gates of the share-offsets admin APIs, by Kafka 4.4's KafkaApis:
// DescribeShareGroupOffsets wants DESCRIBE on each group (else the group
// is GROUP_AUTHORIZATION_FAILED) and DESCRIBE on each topic (a named
// topic refused is answered after the others, its partitions
// TOPIC_AUTHORIZATION_FAILED; with all topics asked for, a refused topic
// is left out). AlterShareGroupOffsets wants READ on the group,
// DeleteShareGroupOffsets DELETE on it (else the whole request is
// GROUP_AUTHORIZATION_FAILED), and both READ on each topic (else its
// partitions, or the topic, TOPIC_AUTHORIZATION_FAILED).

import (
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/karst-broker/karst/internal/metadata"
)

func init() {
	gates[90] = gateDescribeShareGroupOffsets
	gates[91] = gateAlterShareGroupOffsets
	gates[92] = gateDeleteShareGroupOffsets
}

func gateDescribeShareGroupOffsets(g *gatekeeper) verdict {
	req := g.r.Body.(*kmsg.DescribeShareGroupOffsetsRequest)
	refusedGroup := make([]bool, len(req.Groups))
	refusedTopics := make([][]kmsg.DescribeShareGroupOffsetsRequestGroupTopic, len(req.Groups))
	for i := range req.Groups {
		rg := &req.Groups[i]
		if !g.group(metadata.OpDescribe, rg.GroupID) {
			refusedGroup[i], rg.Topics = true, []kmsg.DescribeShareGroupOffsetsRequestGroupTopic{}
			continue
		}
		if rg.Topics != nil {
			kept, refused := split(rg.Topics, func(t kmsg.DescribeShareGroupOffsetsRequestGroupTopic) bool {
				return g.topic(metadata.OpDescribe, t.Topic)
			})
			if kept == nil {
				kept = []kmsg.DescribeShareGroupOffsetsRequestGroupTopic{}
			}
			rg.Topics, refusedTopics[i] = kept, refused
		}
	}
	allTopics := make([]bool, len(req.Groups))
	for i, rg := range req.Groups {
		allTopics[i] = rg.Topics == nil
	}
	return verdict{complete: func(r kmsg.Response) {
		resp := r.(*kmsg.DescribeShareGroupOffsetsResponse)
		for i := range resp.Groups {
			if i >= len(req.Groups) {
				break
			}
			gr := &resp.Groups[i]
			if refusedGroup[i] {
				*gr = kmsg.NewDescribeShareGroupOffsetsResponseGroup()
				gr.GroupID, gr.ErrorCode = req.Groups[i].GroupID, kerr.GroupAuthorizationFailed.Code
				gr.ErrorMessage, gr.Topics = errMessage(kerr.GroupAuthorizationFailed), []kmsg.DescribeShareGroupOffsetsResponseGroupTopic{}
				continue
			}
			if allTopics[i] {
				kept, _ := split(gr.Topics, func(t kmsg.DescribeShareGroupOffsetsResponseGroupTopic) bool {
					return g.topic(metadata.OpDescribe, t.Topic)
				})
				if kept == nil {
					kept = []kmsg.DescribeShareGroupOffsetsResponseGroupTopic{}
				}
				gr.Topics = kept
			}
			for _, rt := range refusedTopics[i] {
				ot := kmsg.NewDescribeShareGroupOffsetsResponseGroupTopic()
				ot.Topic = rt.Topic
				for _, p := range rt.Partitions {
					op := kmsg.NewDescribeShareGroupOffsetsResponseGroupTopicPartition()
					op.Partition, op.StartOffset, op.Lag = p, -1, -1
					op.ErrorCode, op.ErrorMessage = kerr.TopicAuthorizationFailed.Code, errMessage(kerr.TopicAuthorizationFailed)
					ot.Partitions = append(ot.Partitions, op)
				}
				gr.Topics = append(gr.Topics, ot)
			}
		}
	}}
}

func gateAlterShareGroupOffsets(g *gatekeeper) verdict {
	req := g.r.Body.(*kmsg.AlterShareGroupOffsetsRequest)
	if !g.group(metadata.OpRead, req.GroupID) {
		resp := kmsg.NewPtrAlterShareGroupOffsetsResponse()
		resp.ErrorCode, resp.ErrorMessage = kerr.GroupAuthorizationFailed.Code, errMessage(kerr.GroupAuthorizationFailed)
		return refuse(resp)
	}
	kept, refused := split(req.Topics, func(t kmsg.AlterShareGroupOffsetsRequestTopic) bool { return g.topic(metadata.OpRead, t.Topic) })
	req.Topics = kept
	return verdict{complete: func(r kmsg.Response) {
		resp := r.(*kmsg.AlterShareGroupOffsetsResponse)
		if resp.ErrorCode != 0 {
			return
		}
		for _, rt := range refused {
			ot := kmsg.NewAlterShareGroupOffsetsResponseTopic()
			ot.Topic = rt.Topic
			// Kafka names a refused topic's id too (it resolves every topic first).
			if t, ok := g.img.Topic(rt.Topic); ok {
				ot.TopicID = t.ID
			}
			for _, p := range rt.Partitions {
				op := kmsg.NewAlterShareGroupOffsetsResponseTopicPartition()
				op.Partition, op.ErrorCode, op.ErrorMessage = p.Partition, kerr.TopicAuthorizationFailed.Code, errMessage(kerr.TopicAuthorizationFailed)
				ot.Partitions = append(ot.Partitions, op)
			}
			resp.Topics = append(resp.Topics, ot)
		}
	}}
}

func gateDeleteShareGroupOffsets(g *gatekeeper) verdict {
	req := g.r.Body.(*kmsg.DeleteShareGroupOffsetsRequest)
	if !g.group(metadata.OpDelete, req.GroupID) {
		resp := kmsg.NewPtrDeleteShareGroupOffsetsResponse()
		resp.ErrorCode, resp.ErrorMessage = kerr.GroupAuthorizationFailed.Code, errMessage(kerr.GroupAuthorizationFailed)
		return refuse(resp)
	}
	kept, refused := split(req.Topics, func(t kmsg.DeleteShareGroupOffsetsRequestTopic) bool { return g.topic(metadata.OpRead, t.Topic) })
	req.Topics = kept
	return verdict{complete: func(r kmsg.Response) {
		resp := r.(*kmsg.DeleteShareGroupOffsetsResponse)
		if resp.ErrorCode != 0 {
			return
		}
		for _, rt := range refused {
			ot := kmsg.NewDeleteShareGroupOffsetsResponseTopic()
			ot.Topic, ot.ErrorCode, ot.ErrorMessage = rt.Topic, kerr.TopicAuthorizationFailed.Code, errMessage(kerr.TopicAuthorizationFailed)
			resp.Topics = append(resp.Topics, ot)
		}
	}}
}
