package main

import (
	"fmt"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// Scenarios of the APIs that describe and change topics and the cluster.
func init() {
	register(kmsg.Metadata,
		scenario{name: "one-topic", run: func(s *session, v int16) {
			s.compare("1", metadataRequest(v, false, dataTopic))
		}},
		scenario{name: "unknown-topic", minVersion: 4, run: func(s *session, v int16) {
			s.compare("1", metadataRequest(v, false, "no-such-topic"))
		}},
		scenario{name: "auto-create", run: func(s *session, v int16) {
			s.compare("1", metadataRequest(v, true, fmt.Sprintf("auto-created-v%d", v)))
		}},
		scenario{name: "invalid-name", minVersion: 4, run: func(s *session, v int16) {
			s.compare("1", metadataRequest(v, true, "bad/name"))
		}},
		scenario{name: "no-topics", minVersion: 1, run: func(s *session, v int16) {
			req := metadataRequest(v, false)
			req.Topics = []kmsg.MetadataRequestTopic{}
			s.compare("1", req)
		}},
		scenario{name: "authorized-operations", minVersion: 8, run: func(s *session, v int16) {
			req := metadataRequest(v, false, dataTopic)
			req.IncludeTopicAuthorizedOperations = true
			req.IncludeClusterAuthorizedOperations = v <= 10
			s.compare("1", req)
		}},
		scenario{name: "by-id", minVersion: 10, run: func(s *session, v int16) {
			req := metadataRequest(v, false)
			t := kmsg.NewMetadataRequestTopic()
			t.TopicID = s.topicID(dataTopic)
			req.Topics = append(req.Topics, t)
			s.compare("1", req)
		}},
		scenario{name: "unknown-id", minVersion: 10, run: func(s *session, v int16) {
			req := metadataRequest(v, false)
			t := kmsg.NewMetadataRequestTopic()
			t.TopicID = [16]byte{1, 2, 3}
			req.Topics = append(req.Topics, t)
			s.compare("1", req)
		}},
	)
	register(kmsg.CreateTopics,
		scenario{name: "happy", run: func(s *session, v int16) {
			s.compare("1", createTopicsRequest(v, fmt.Sprintf("create-v%d", v), 2, 1, false, "retention.ms", "3600000"))
			s.compare("exists", createTopicsRequest(v, fmt.Sprintf("create-v%d", v), 2, 1, false))
		}},
		scenario{name: "validate-only", run: func(s *session, v int16) {
			s.compare("1", createTopicsRequest(v, fmt.Sprintf("validate-v%d", v), 1, 1, true))
		}},
		scenario{name: "default-partitions", minVersion: 4, run: func(s *session, v int16) {
			s.compare("1", createTopicsRequest(v, fmt.Sprintf("defaults-v%d", v), -1, -1, false))
		}},
		scenario{name: "invalid-config-value", run: func(s *session, v int16) {
			s.compare("1", createTopicsRequest(v, fmt.Sprintf("badvalue-v%d", v), 1, 1, false, "retention.ms", "soon"))
		}},
		scenario{name: "unknown-config", run: func(s *session, v int16) {
			s.compare("1", createTopicsRequest(v, fmt.Sprintf("badkey-v%d", v), 1, 1, false, "no.such.config", "1"))
		}},
		scenario{name: "zero-partitions", run: func(s *session, v int16) {
			s.compare("1", createTopicsRequest(v, fmt.Sprintf("zero-v%d", v), 0, 1, false))
		}},
		scenario{name: "replication-factor-3", run: func(s *session, v int16) {
			s.compare("1", createTopicsRequest(v, fmt.Sprintf("rf3-v%d", v), 1, 3, false))
		}},
		scenario{name: "invalid-name", run: func(s *session, v int16) {
			s.compare("1", createTopicsRequest(v, "bad/name", 1, 1, false))
		}},
	)
	register(kmsg.DeleteTopics,
		scenario{name: "happy", run: func(s *session, v int16) {
			topic := fmt.Sprintf("delete-v%d", v)
			if createTopic(s, topic, 1, nil) != nil {
				return
			}
			s.compare("1", deleteTopicsRequest(s, v, topic, [16]byte{}))
			s.forgetTopic(topic)
		}},
		scenario{name: "unknown-topic", run: func(s *session, v int16) {
			s.compare("1", deleteTopicsRequest(s, v, "no-such-topic", [16]byte{}))
		}},
		scenario{name: "unknown-id", minVersion: 6, run: func(s *session, v int16) {
			s.compare("1", deleteTopicsRequest(s, v, "", [16]byte{9}))
		}},
	)
	register(kmsg.CreatePartitions,
		scenario{name: "happy", run: func(s *session, v int16) {
			topic := fmt.Sprintf("partitions-v%d", v)
			if createTopic(s, topic, 1, nil) != nil {
				return
			}
			s.compare("1", createPartitionsRequest(v, topic, 3, false))
			s.compare("same-count", createPartitionsRequest(v, topic, 3, false))
			s.compare("fewer", createPartitionsRequest(v, topic, 2, false))
			s.compare("validate-only", createPartitionsRequest(v, topic, 5, true))
		}},
		scenario{name: "unknown-topic", run: func(s *session, v int16) {
			s.compare("1", createPartitionsRequest(v, "no-such-topic", 3, false))
		}},
	)
	register(kmsg.DescribeTopicPartitions,
		scenario{name: "happy", run: func(s *session, v int16) {
			s.compare("1", describeTopicPartitionsRequest(v, nil, dataTopic))
		}},
		scenario{name: "unknown-topic", run: func(s *session, v int16) {
			s.compare("1", describeTopicPartitionsRequest(v, nil, "no-such-topic"))
		}},
		scenario{name: "cursor", run: func(s *session, v int16) {
			req := describeTopicPartitionsRequest(v, nil, dataTopic)
			req.ResponsePartitionLimit = 2
			resp, _ := s.compare("1", req).(*kmsg.DescribeTopicPartitionsResponse)
			if resp == nil || resp.NextCursor == nil {
				return
			}
			s.compare("next", describeTopicPartitionsRequest(v, resp.NextCursor, dataTopic))
		}},
	)
	register(kmsg.DescribeCluster,
		scenario{name: "happy", run: func(s *session, v int16) {
			req := kmsg.NewPtrDescribeClusterRequest()
			req.SetVersion(v)
			req.IncludeClusterAuthorizedOperations = true
			req.EndpointType = 1
			s.compare("1", req)
		}},
		scenario{name: "controller-endpoints", minVersion: 1, run: func(s *session, v int16) {
			req := kmsg.NewPtrDescribeClusterRequest()
			req.SetVersion(v)
			req.EndpointType = 2
			s.compare("1", req)
		}},
		scenario{name: "bad-endpoint-type", minVersion: 1, run: func(s *session, v int16) {
			req := kmsg.NewPtrDescribeClusterRequest()
			req.SetVersion(v)
			req.EndpointType = 7
			s.compare("1", req)
		}},
	)
	register(kmsg.ApiVersions,
		scenario{name: "happy", run: func(s *session, v int16) {
			req := kmsg.NewPtrApiVersionsRequest()
			req.SetVersion(v)
			req.ClientSoftwareName, req.ClientSoftwareVersion = "karst-differential", "1.0"
			s.compare("1", req)
		}},
		scenario{name: "invalid-software-name", minVersion: 3, run: func(s *session, v int16) {
			req := kmsg.NewPtrApiVersionsRequest()
			req.SetVersion(v)
			req.ClientSoftwareName, req.ClientSoftwareVersion = "bad name!", "1.0"
			s.compare("1", req)
		}},
	)
}

func metadataRequest(v int16, autoCreate bool, topics ...string) *kmsg.MetadataRequest {
	req := kmsg.NewPtrMetadataRequest()
	req.SetVersion(v)
	req.AllowAutoTopicCreation = autoCreate
	for _, name := range topics {
		t := kmsg.NewMetadataRequestTopic()
		t.Topic = kmsg.StringPtr(name)
		req.Topics = append(req.Topics, t)
	}
	return req
}

func createTopicsRequest(v int16, topic string, partitions int32, replication int16, validateOnly bool, config ...string) *kmsg.CreateTopicsRequest {
	req := kmsg.NewPtrCreateTopicsRequest()
	req.SetVersion(v)
	req.TimeoutMillis, req.ValidateOnly = 30000, validateOnly
	t := kmsg.NewCreateTopicsRequestTopic()
	t.Topic, t.NumPartitions, t.ReplicationFactor = topic, partitions, replication
	for i := 0; i+1 < len(config); i += 2 {
		c := kmsg.NewCreateTopicsRequestTopicConfig()
		c.Name, c.Value = config[i], kmsg.StringPtr(config[i+1])
		t.Configs = append(t.Configs, c)
	}
	req.Topics = append(req.Topics, t)
	return req
}

func deleteTopicsRequest(s *session, v int16, topic string, id [16]byte) *kmsg.DeleteTopicsRequest {
	req := kmsg.NewPtrDeleteTopicsRequest()
	req.SetVersion(v)
	req.TimeoutMillis = 30000
	if v >= 6 {
		t := kmsg.NewDeleteTopicsRequestTopic()
		if topic != "" {
			t.Topic = kmsg.StringPtr(topic)
		}
		t.TopicID = id
		req.Topics = append(req.Topics, t)
	} else {
		req.TopicNames = append(req.TopicNames, topic)
	}
	return req
}

func createPartitionsRequest(v int16, topic string, count int32, validateOnly bool) *kmsg.CreatePartitionsRequest {
	req := kmsg.NewPtrCreatePartitionsRequest()
	req.SetVersion(v)
	req.TimeoutMillis, req.ValidateOnly = 30000, validateOnly
	t := kmsg.NewCreatePartitionsRequestTopic()
	t.Topic, t.Count = topic, count
	req.Topics = append(req.Topics, t)
	return req
}

func describeTopicPartitionsRequest(v int16, cursor *kmsg.DescribeTopicPartitionsResponseNextCursor, topics ...string) *kmsg.DescribeTopicPartitionsRequest {
	req := kmsg.NewPtrDescribeTopicPartitionsRequest()
	req.SetVersion(v)
	req.ResponsePartitionLimit = 2000
	for _, name := range topics {
		t := kmsg.NewDescribeTopicPartitionsRequestTopic()
		t.Topic = name
		req.Topics = append(req.Topics, t)
	}
	if cursor != nil {
		c := kmsg.NewDescribeTopicPartitionsRequestCursor()
		c.Topic, c.Partition = cursor.Topic, cursor.Partition
		req.Cursor = &c
	}
	return req
}
