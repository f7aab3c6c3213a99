package main

import (
	"fmt"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// Scenarios of the APIs that write and read partitions.
func init() {
	register(kmsg.Produce,
		scenario{name: "happy", run: func(s *session, v int16) {
			topic := fmt.Sprintf("produce-v%d", v)
			if createTopic(s, topic, 1, nil) != nil {
				return
			}
			s.compare("1", produceRequest(v, topic, s.topicID(topic), 0, plainBatch(recordsTime, "x", "y"), -1))
			s.compare("acks1", produceRequest(v, topic, s.topicID(topic), 0, plainBatch(recordsTime, "z"), 1))
		}},
		scenario{name: "unknown-topic", run: func(s *session, v int16) {
			s.compare("1", produceRequest(v, "no-such-topic", [16]byte{1}, 0, plainBatch(recordsTime, "x"), -1))
		}},
		scenario{name: "bad-partition", run: func(s *session, v int16) {
			s.compare("1", produceRequest(v, dataTopic, s.topicID(dataTopic), 99, plainBatch(recordsTime, "x"), -1))
		}},
		scenario{name: "bad-acks", run: func(s *session, v int16) {
			s.compare("1", produceRequest(v, dataTopic, s.topicID(dataTopic), 2, plainBatch(recordsTime, "x"), 2))
		}},
		scenario{name: "corrupt-crc", run: func(s *session, v int16) {
			batch := plainBatch(recordsTime, "x")
			batch[len(batch)-1] ^= 0xff
			s.compare("1", produceRequest(v, dataTopic, s.topicID(dataTopic), 2, batch, -1))
		}},
	)
	register(kmsg.Fetch,
		scenario{name: "happy", run: func(s *session, v int16) {
			s.compare("1", fetchRequest(s, v, dataTopic, 0, 0))
		}},
		scenario{name: "from-middle", run: func(s *session, v int16) {
			s.compare("1", fetchRequest(s, v, dataTopic, 0, 2))
		}},
		scenario{name: "offset-out-of-range", run: func(s *session, v int16) {
			s.compare("1", fetchRequest(s, v, dataTopic, 0, 1000))
		}},
		scenario{name: "bad-partition", run: func(s *session, v int16) {
			s.compare("1", fetchRequest(s, v, dataTopic, 99, 0))
		}},
		scenario{name: "unknown-topic", run: func(s *session, v int16) {
			req := fetchRequest(s, v, "no-such-topic", 0, 0)
			req.Topics[0].TopicID = [16]byte{1}
			s.compare("1", req)
		}},
		scenario{name: "session", minVersion: 7, run: func(s *session, v int16) {
			req := fetchRequest(s, v, dataTopic, 1, 0)
			req.SessionEpoch = 0
			resp, _ := s.compare("open", req).(*kmsg.FetchResponse)
			if resp == nil {
				return
			}
			next := fetchRequest(s, v, dataTopic, 1, 1)
			next.Topics = nil
			next.SessionID, next.SessionEpoch = resp.SessionID, 1
			s.compare("incremental", next)
			bad := fetchRequest(s, v, dataTopic, 1, 1)
			bad.SessionID, bad.SessionEpoch = resp.SessionID, 7
			s.compare("bad-epoch", bad)
			unknown := fetchRequest(s, v, dataTopic, 1, 1)
			unknown.SessionID, unknown.SessionEpoch = 123456789, 1
			s.compare("unknown-session", unknown)
		}},
	)
	register(kmsg.ListOffsets,
		listOffsetsScenario("earliest", 0, dataTopic, 0, -2),
		listOffsetsScenario("latest", 0, dataTopic, 0, -1),
		listOffsetsScenario("by-time", 0, dataTopic, 0, recordsTime+1),
		listOffsetsScenario("after-last-time", 0, dataTopic, 0, recordsTime+100),
		listOffsetsScenario("max-timestamp", 7, dataTopic, 0, -3),
		listOffsetsScenario("earliest-local", 8, dataTopic, 0, -4),
		listOffsetsScenario("latest-tiered", 9, dataTopic, 0, -5),
		listOffsetsScenario("earliest-pending-upload", 11, dataTopic, 0, -6),
		listOffsetsScenario("empty-partition", 0, dataTopic, 2, -1),
		listOffsetsScenario("unknown-topic", 0, "no-such-topic", 0, -1),
		listOffsetsScenario("bad-partition", 0, dataTopic, 99, -1),
	)
	register(kmsg.OffsetForLeaderEpoch,
		offsetForLeaderEpochScenario("epoch-0", dataTopic, 0, 0),
		offsetForLeaderEpochScenario("future-epoch", dataTopic, 0, 5),
		offsetForLeaderEpochScenario("unknown-topic", "no-such-topic", 0, 0),
		offsetForLeaderEpochScenario("bad-partition", dataTopic, 99, 0),
	)
	register(kmsg.DeleteRecords,
		scenario{name: "happy", run: func(s *session, v int16) {
			topic := fmt.Sprintf("delete-records-v%d", v)
			if createTopic(s, topic, 1, nil) != nil || produce(s, topic, 0, plainBatch(recordsTime, "a", "b", "c")) != nil {
				return
			}
			s.compare("1", deleteRecordsRequest(v, topic, 0, 1))
			s.compare("high-watermark", deleteRecordsRequest(v, topic, 0, -1))
			s.compare("beyond-end", deleteRecordsRequest(v, topic, 0, 10))
			s.compare("list-earliest", listOffsetsRequest(s, 7, topic, 0, -2))
		}},
		scenario{name: "unknown-topic", run: func(s *session, v int16) {
			s.compare("1", deleteRecordsRequest(v, "no-such-topic", 0, 1))
		}},
		scenario{name: "bad-partition", run: func(s *session, v int16) {
			s.compare("1", deleteRecordsRequest(v, dataTopic, 99, 1))
		}},
	)
}

func fetchRequest(s *session, v int16, topic string, partition int32, offset int64) *kmsg.FetchRequest {
	req := kmsg.NewPtrFetchRequest()
	req.SetVersion(v)
	req.ReplicaID, req.MaxWaitMillis, req.MinBytes, req.MaxBytes = -1, 0, 1, 1<<20
	req.SessionEpoch = -1
	t := kmsg.NewFetchRequestTopic()
	t.Topic = topic
	if v >= 13 && topic == dataTopic {
		t.TopicID = s.topicID(topic)
	}
	p := kmsg.NewFetchRequestTopicPartition()
	p.Partition, p.FetchOffset, p.PartitionMaxBytes, p.CurrentLeaderEpoch, p.LogStartOffset = partition, offset, 1<<20, -1, -1
	t.Partitions = append(t.Partitions, p)
	req.Topics = append(req.Topics, t)
	return req
}

func listOffsetsRequest(s *session, v int16, topic string, partition int32, timestamp int64) *kmsg.ListOffsetsRequest {
	req := kmsg.NewPtrListOffsetsRequest()
	req.SetVersion(v)
	req.ReplicaID = -1
	t := kmsg.NewListOffsetsRequestTopic()
	t.Topic = topic
	p := kmsg.NewListOffsetsRequestTopicPartition()
	p.Partition, p.Timestamp, p.CurrentLeaderEpoch = partition, timestamp, -1
	t.Partitions = append(t.Partitions, p)
	req.Topics = append(req.Topics, t)
	return req
}

func listOffsetsScenario(name string, minVersion int16, topic string, partition int32, timestamp int64) scenario {
	return scenario{name: name, minVersion: minVersion, run: func(s *session, v int16) {
		s.compare("1", listOffsetsRequest(s, v, topic, partition, timestamp))
	}}
}

func offsetForLeaderEpochScenario(name, topic string, partition, epoch int32) scenario {
	return scenario{name: name, run: func(s *session, v int16) {
		s.compare("1", offsetForLeaderEpochRequest(v, topic, partition, epoch))
	}}
}

func offsetForLeaderEpochRequest(v int16, topic string, partition, epoch int32) *kmsg.OffsetForLeaderEpochRequest {
	req := kmsg.NewPtrOffsetForLeaderEpochRequest()
	req.SetVersion(v)
	req.ReplicaID = -1
	t := kmsg.NewOffsetForLeaderEpochRequestTopic()
	t.Topic = topic
	p := kmsg.NewOffsetForLeaderEpochRequestTopicPartition()
	p.Partition, p.LeaderEpoch, p.CurrentLeaderEpoch = partition, epoch, -1
	t.Partitions = append(t.Partitions, p)
	req.Topics = append(req.Topics, t)
	return req
}

func deleteRecordsRequest(v int16, topic string, partition int32, offset int64) *kmsg.DeleteRecordsRequest {
	req := kmsg.NewPtrDeleteRecordsRequest()
	req.SetVersion(v)
	req.TimeoutMillis = 10000
	t := kmsg.NewDeleteRecordsRequestTopic()
	t.Topic = topic
	p := kmsg.NewDeleteRecordsRequestTopicPartition()
	p.Partition, p.Offset = partition, offset
	t.Partitions = append(t.Partitions, p)
	req.Topics = append(req.Topics, t)
	return req
}
