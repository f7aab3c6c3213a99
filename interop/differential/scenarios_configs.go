package main

import (
	"fmt"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// Scenarios of the config APIs (topic and broker resources) and of DescribeLogDirs.
func init() {
	register(kmsg.DescribeConfigs,
		scenario{name: "topic-all", run: func(s *session, v int16) {
			s.compare("1", describeConfigsRequest(v, kmsg.ConfigResourceTypeTopic, dataTopic))
		}},
		scenario{name: "topic-keys", run: func(s *session, v int16) {
			s.compare("1", describeConfigsRequest(v, kmsg.ConfigResourceTypeTopic, dataTopic, "retention.ms", "cleanup.policy", "no.such.config"))
		}},
		scenario{name: "unknown-topic", run: func(s *session, v int16) {
			s.compare("1", describeConfigsRequest(v, kmsg.ConfigResourceTypeTopic, "no-such-topic"))
		}},
		scenario{name: "broker-keys", run: func(s *session, v int16) {
			s.compare("1", describeConfigsRequest(v, kmsg.ConfigResourceTypeBroker, "1", "num.partitions", "log.retention.hours", "auto.create.topics.enable"))
		}},
		scenario{name: "unknown-broker", run: func(s *session, v int16) {
			s.compare("1", describeConfigsRequest(v, kmsg.ConfigResourceTypeBroker, "7", "num.partitions"))
		}},
	)
	register(kmsg.AlterConfigs,
		scenario{name: "happy", run: func(s *session, v int16) {
			topic := fmt.Sprintf("alter-v%d", v)
			if createTopic(s, topic, 1, nil) != nil {
				return
			}
			s.compare("1", alterConfigsRequest(v, topic, "retention.ms", "7200000"))
			awaitRetention(s, topic, "7200000")
			s.compare("describe", describeConfigsRequest(4, kmsg.ConfigResourceTypeTopic, topic, "retention.ms", "cleanup.policy"))
		}},
		scenario{name: "invalid-value", run: func(s *session, v int16) {
			s.compare("1", alterConfigsRequest(v, dataTopic, "retention.ms", "soon"))
		}},
		scenario{name: "unknown-config", run: func(s *session, v int16) {
			s.compare("1", alterConfigsRequest(v, dataTopic, "no.such.config", "1"))
		}},
		scenario{name: "unknown-topic", run: func(s *session, v int16) {
			s.compare("1", alterConfigsRequest(v, "no-such-topic", "retention.ms", "1"))
		}},
	)
	register(kmsg.IncrementalAlterConfigs,
		scenario{name: "set-append-delete", run: func(s *session, v int16) {
			topic := fmt.Sprintf("incremental-v%d", v)
			if createTopic(s, topic, 1, nil) != nil {
				return
			}
			s.compare("set", incrementalAlterRequest(v, topic, kmsg.IncrementalAlterConfigOpSet, "retention.ms", "7200000"))
			s.compare("append", incrementalAlterRequest(v, topic, kmsg.IncrementalAlterConfigOpAppend, "cleanup.policy", "compact"))
			s.compare("delete", incrementalAlterRequest(v, topic, kmsg.IncrementalAlterConfigOpDelete, "retention.ms", ""))
			awaitRetention(s, topic, "604800000")
			s.compare("describe", describeConfigsRequest(4, kmsg.ConfigResourceTypeTopic, topic, "retention.ms", "cleanup.policy"))
		}},
		scenario{name: "invalid-value", run: func(s *session, v int16) {
			s.compare("1", incrementalAlterRequest(v, dataTopic, kmsg.IncrementalAlterConfigOpSet, "retention.ms", "soon"))
		}},
		scenario{name: "append-to-scalar", run: func(s *session, v int16) {
			s.compare("1", incrementalAlterRequest(v, dataTopic, kmsg.IncrementalAlterConfigOpAppend, "retention.ms", "1"))
		}},
		scenario{name: "unknown-topic", run: func(s *session, v int16) {
			s.compare("1", incrementalAlterRequest(v, "no-such-topic", kmsg.IncrementalAlterConfigOpSet, "retention.ms", "1"))
		}},
		scenario{name: "unknown-config", run: func(s *session, v int16) {
			s.compare("1", incrementalAlterRequest(v, dataTopic, kmsg.IncrementalAlterConfigOpSet, "no.such.config", "1"))
		}},
	)
	register(kmsg.DescribeLogDirs,
		scenario{name: "one-topic", run: func(s *session, v int16) {
			req := kmsg.NewPtrDescribeLogDirsRequest()
			req.SetVersion(v)
			t := kmsg.NewDescribeLogDirsRequestTopic()
			t.Topic, t.Partitions = dataTopic, []int32{0, 1, 99}
			req.Topics = append(req.Topics, t)
			s.compare("1", req)
		}},
		scenario{name: "unknown-topic", run: func(s *session, v int16) {
			req := kmsg.NewPtrDescribeLogDirsRequest()
			req.SetVersion(v)
			t := kmsg.NewDescribeLogDirsRequestTopic()
			t.Topic, t.Partitions = "no-such-topic", []int32{0}
			req.Topics = append(req.Topics, t)
			s.compare("1", req)
		}},
	)
}

// awaitRetention waits (up to 5 s) until the broker describes topic's retention.ms as want:
// Kafka's broker applies a config change once the controller's record reaches it, a moment after
// the alter request is answered, so a describe right after may still see the old value.
func awaitRetention(s *session, topic, want string) {
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		resp, ok := s.send(describeConfigsRequest(4, kmsg.ConfigResourceTypeTopic, topic, "retention.ms")).(*kmsg.DescribeConfigsResponse)
		if ok && len(resp.Resources) == 1 && len(resp.Resources[0].Configs) == 1 {
			if v := resp.Resources[0].Configs[0].Value; v != nil && *v == want {
				return
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func describeConfigsRequest(v int16, resourceType kmsg.ConfigResourceType, name string, keys ...string) *kmsg.DescribeConfigsRequest {
	req := kmsg.NewPtrDescribeConfigsRequest()
	req.SetVersion(v)
	req.IncludeSynonyms, req.IncludeDocumentation = true, true
	r := kmsg.NewDescribeConfigsRequestResource()
	r.ResourceType, r.ResourceName = resourceType, name
	if len(keys) > 0 {
		r.ConfigNames = keys
	}
	req.Resources = append(req.Resources, r)
	return req
}

func alterConfigsRequest(v int16, topic, key, value string) *kmsg.AlterConfigsRequest {
	req := kmsg.NewPtrAlterConfigsRequest()
	req.SetVersion(v)
	r := kmsg.NewAlterConfigsRequestResource()
	r.ResourceType, r.ResourceName = kmsg.ConfigResourceTypeTopic, topic
	c := kmsg.NewAlterConfigsRequestResourceConfig()
	c.Name, c.Value = key, kmsg.StringPtr(value)
	r.Configs = append(r.Configs, c)
	req.Resources = append(req.Resources, r)
	return req
}

func incrementalAlterRequest(v int16, topic string, op kmsg.IncrementalAlterConfigOp, key, value string) *kmsg.IncrementalAlterConfigsRequest {
	req := kmsg.NewPtrIncrementalAlterConfigsRequest()
	req.SetVersion(v)
	r := kmsg.NewIncrementalAlterConfigsRequestResource()
	r.ResourceType, r.ResourceName = kmsg.ConfigResourceTypeTopic, topic
	c := kmsg.NewIncrementalAlterConfigsRequestResourceConfig()
	c.Name, c.Op = key, op
	if op != kmsg.IncrementalAlterConfigOpDelete {
		c.Value = kmsg.StringPtr(value)
	}
	r.Configs = append(r.Configs, c)
	req.Resources = append(req.Resources, r)
	return req
}
