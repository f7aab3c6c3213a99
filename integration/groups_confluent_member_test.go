package integration

import (
	"fmt"
	"os"

	"github.com/confluentinc/confluent-kafka-go/v2/kafka"
)

// runConfluentMember is a confluent-kafka-go (librdkafka) member. It
// commits synchronously after every record (retrying a failed commit on
// the next loop, and committing before giving partitions up).
func runConfluentMember(spec memberSpec, closing <-chan struct{}, out *memberReport) error {
	cfg := kafka.ConfigMap{
		"bootstrap.servers":    spec.Bootstrap,
		"group.id":             spec.Group,
		"group.protocol":       spec.Protocol,
		"enable.auto.commit":   false,
		"auto.offset.reset":    "earliest",
		"enable.partition.eof": false,
	}
	if d := os.Getenv("KARST_RDKAFKA_DEBUG"); d != "" {
		cfg["debug"] = d // librdkafka's debug contexts, e.g. cgrp
	}
	if spec.Protocol == "classic" {
		cfg["partition.assignment.strategy"] = spec.Strategy
		if spec.SessionTimeoutMs > 0 {
			cfg["session.timeout.ms"] = spec.SessionTimeoutMs
			cfg["heartbeat.interval.ms"] = spec.SessionTimeoutMs / 10
		}
	}
	c, err := kafka.NewConsumer(&cfg)
	if err != nil {
		return err
	}
	pending := map[int32]int64{} // partition -> next offset to commit
	commit := func() {
		if len(pending) == 0 {
			return
		}
		var tps []kafka.TopicPartition
		for p, o := range pending {
			tps = append(tps, kafka.TopicPartition{Topic: &spec.Topic, Partition: p, Offset: kafka.Offset(o)})
		}
		done, err := c.CommitOffsets(tps)
		if err != nil {
			fmt.Fprintln(os.Stderr, "commit:", err)
			return
		}
		for _, tp := range done {
			if tp.Error != nil {
				fmt.Fprintln(os.Stderr, "commit:", tp)
				continue
			}
			out.committed(tp.Partition, int64(tp.Offset))
			if pending[tp.Partition] == int64(tp.Offset) {
				delete(pending, tp.Partition)
			}
		}
	}
	onRebalance := func(c *kafka.Consumer, ev kafka.Event) error {
		if revoked, ok := ev.(kafka.RevokedPartitions); ok {
			if !c.AssignmentLost() {
				commit()
			}
			for _, tp := range revoked.Partitions {
				delete(pending, tp.Partition)
			}
		}
		return nil // the library does the (incremental) assign or unassign
	}
	if err := c.SubscribeTopics([]string{spec.Topic}, onRebalance); err != nil {
		return err
	}
	for {
		select {
		case <-closing:
			commit()
			if err := c.Close(); err != nil {
				return err
			}
			out.left()
			return nil
		default:
		}
		switch e := c.Poll(50).(type) {
		case *kafka.Message:
			if e.TopicPartition.Error != nil {
				fmt.Fprintln(os.Stderr, "message:", e.TopicPartition.Error)
				continue
			}
			p, o := e.TopicPartition.Partition, int64(e.TopicPartition.Offset)
			out.consumed(p, o, e.Value)
			pending[p] = o + 1
			commit()
		case kafka.Error:
			fmt.Fprintln(os.Stderr, "error:", e)
			if e.IsFatal() {
				return e
			}
		}
		assigned, err := c.Assignment()
		if err != nil {
			continue
		}
		var ps []int32
		for _, tp := range assigned {
			ps = append(ps, tp.Partition)
		}
		out.owns(ps)
	}
}
