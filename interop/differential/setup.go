package main

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// The topics every broker gets before the scenarios run. Records carry fixed timestamps so the
// stored batches, and ListOffsets by time, are the same on both brokers.
const (
	dataTopic   = "diff"
	recordsTime = int64(1_700_000_000_000)
)

// setup creates dataTopic with three partitions and writes three records to partition 0 (two
// batches) and one to partition 1.
func setup(s *session) error {
	if err := createTopic(s, dataTopic, 3, nil); err != nil {
		return err
	}
	for _, p := range []struct {
		partition int32
		values    []string
	}{{0, []string{"a", "b"}}, {0, []string{"c"}}, {1, []string{"d"}}} {
		if err := produce(s, dataTopic, p.partition, plainBatch(recordsTime, p.values...)); err != nil {
			return err
		}
	}
	return warmCoordinators(s)
}

// warmCoordinators waits until groups and transactions are served: Kafka creates
// __consumer_offsets and __transaction_state at the first FindCoordinator that needs them and
// answers NOT_COORDINATOR or COORDINATOR_LOAD_IN_PROGRESS until their partitions are loaded.
// Clients find the coordinator first and retry; the scenarios compare the steady state.
func warmCoordinators(s *session) error {
	deadline := time.Now().Add(60 * time.Second)
	for i := 0; i < 12; i++ {
		group, txn := fmt.Sprintf("warm-group-%d", i), fmt.Sprintf("warm-txn-%d", i)
		for {
			commit, _ := s.send(offsetCommitRequest(s, 8, group, dataTopic, 0, 0)).(*kmsg.OffsetCommitResponse)
			init, _ := s.send(initProducerIDRequest(4, &txn)).(*kmsg.InitProducerIDResponse)
			if commit != nil && init != nil && commit.Topics[0].Partitions[0].ErrorCode == 0 && init.ErrorCode == 0 {
				break
			}
			if time.Now().After(deadline) {
				return fmt.Errorf("group and transaction coordinators not ready after 60 s")
			}
			for _, keyType := range []int8{0, 1} {
				fc := kmsg.NewPtrFindCoordinatorRequest()
				fc.SetVersion(4)
				fc.CoordinatorType, fc.CoordinatorKeys = keyType, []string{group}
				s.send(fc)
			}
			time.Sleep(100 * time.Millisecond)
		}
		s.send(deleteGroupsRequest(2, group))
	}
	return nil
}

// createTopic creates a topic and waits until its partitions have a leader.
func createTopic(s *session, name string, partitions int32, configs map[string]string) error {
	req := kmsg.NewPtrCreateTopicsRequest()
	req.SetVersion(7)
	req.TimeoutMillis = 30000
	t := kmsg.NewCreateTopicsRequestTopic()
	t.Topic, t.NumPartitions, t.ReplicationFactor = name, partitions, 1
	for k, v := range configs {
		c := kmsg.NewCreateTopicsRequestTopicConfig()
		c.Name, c.Value = k, kmsg.StringPtr(v)
		t.Configs = append(t.Configs, c)
	}
	req.Topics = append(req.Topics, t)
	resp, ok := s.send(req).(*kmsg.CreateTopicsResponse)
	if !ok || len(resp.Topics) != 1 {
		return fmt.Errorf("create topic %s: no answer", name)
	}
	if code := resp.Topics[0].ErrorCode; code != 0 && code != 36 { // 36: TOPIC_ALREADY_EXISTS
		return fmt.Errorf("create topic %s: error %d", name, code)
	}
	s.forgetTopic(name)
	return waitForLeaders(s, name, partitions)
}

// waitForLeaders polls Metadata until every partition of topic has a leader: Kafka publishes a
// new topic to its brokers shortly after CreateTopics answers.
func waitForLeaders(s *session, topic string, partitions int32) error {
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		req := kmsg.NewPtrMetadataRequest()
		req.SetVersion(12)
		t := kmsg.NewMetadataRequestTopic()
		t.Topic = kmsg.StringPtr(topic)
		req.Topics = append(req.Topics, t)
		if resp, ok := s.send(req).(*kmsg.MetadataResponse); ok && len(resp.Topics) == 1 &&
			resp.Topics[0].ErrorCode == 0 && int32(len(resp.Topics[0].Partitions)) == partitions {
			ready := true
			for _, p := range resp.Topics[0].Partitions {
				ready = ready && p.Leader >= 0 && p.ErrorCode == 0
			}
			if ready && partitionsServe(s, topic, partitions) {
				return nil
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	return fmt.Errorf("topic %s: partitions without a leader after 30 s", topic)
}

// partitionsServe reports whether ListOffsets answers every partition of topic without an
// error: Kafka's metadata names a new partition's leader a moment before that broker serves it.
func partitionsServe(s *session, topic string, partitions int32) bool {
	for p := int32(0); p < partitions; p++ {
		resp, ok := s.send(listOffsetsRequest(s, 7, topic, p, -1)).(*kmsg.ListOffsetsResponse)
		if !ok || len(resp.Topics) != 1 || len(resp.Topics[0].Partitions) != 1 || resp.Topics[0].Partitions[0].ErrorCode != 0 {
			return false
		}
	}
	return true
}

// produce appends one batch with acks=-1 and fails unless the broker accepts it. It retries
// NOT_LEADER_OR_FOLLOWER and UNKNOWN_TOPIC_OR_PARTITION for a while: Kafka's metadata can name
// the leader before that broker has become it.
func produce(s *session, topic string, partition int32, batch []byte) error {
	deadline := time.Now().Add(30 * time.Second)
	for {
		resp, ok := s.send(produceRequest(9, topic, [16]byte{}, partition, batch, -1)).(*kmsg.ProduceResponse)
		if !ok || len(resp.Topics) != 1 || len(resp.Topics[0].Partitions) != 1 {
			return fmt.Errorf("produce to %s-%d: no answer", topic, partition)
		}
		code := resp.Topics[0].Partitions[0].ErrorCode
		if code == 0 {
			return nil
		}
		if (code != 6 && code != 3) || time.Now().After(deadline) {
			return fmt.Errorf("produce to %s-%d: error %d", topic, partition, code)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func produceRequest(v int16, topic string, topicID [16]byte, partition int32, batch []byte, acks int16) *kmsg.ProduceRequest {
	req := kmsg.NewPtrProduceRequest()
	req.SetVersion(v)
	req.Acks, req.TimeoutMillis = acks, 10000
	t := kmsg.NewProduceRequestTopic()
	t.Topic, t.TopicID = topic, topicID
	p := kmsg.NewProduceRequestTopicPartition()
	p.Partition, p.Records = partition, batch
	t.Partitions = append(t.Partitions, p)
	req.Topics = append(req.Topics, t)
	return req
}

// plainBatch is a magic-2 batch without a producer id, one record per value, the i-th record
// stamped ts+i.
func plainBatch(ts int64, values ...string) []byte {
	return recordBatch(ts, -1, -1, -1, 0, values...)
}

// recordBatch encodes a magic-2 record batch with its length and CRC-32C filled in.
func recordBatch(ts, producerID int64, producerEpoch int16, sequence int32, attributes int16, values ...string) []byte {
	var records []byte
	for i, v := range values {
		r := kmsg.Record{TimestampDelta64: int64(i), OffsetDelta: int32(i), Value: []byte(v)}
		body := r.AppendTo(nil)[1:] // without the length varint of 0
		records = binary.AppendVarint(records, int64(len(body)))
		records = append(records, body...)
	}
	b := kmsg.RecordBatch{
		Magic: 2, Attributes: attributes, LastOffsetDelta: int32(len(values) - 1),
		FirstTimestamp: ts, MaxTimestamp: ts + int64(len(values)-1),
		ProducerID: producerID, ProducerEpoch: producerEpoch, FirstSequence: sequence,
		NumRecords: int32(len(values)), Records: records,
	}
	out := b.AppendTo(nil)
	binary.BigEndian.PutUint32(out[8:], uint32(len(out)-12))
	binary.BigEndian.PutUint32(out[17:], crc32.Checksum(out[21:], crc32.MakeTable(crc32.Castagnoli)))
	return out
}
