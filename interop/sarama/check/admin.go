package check

import (
	"fmt"
	"time"

	"github.com/IBM/sarama"
)

const retentionMs = "3600000"

// topicAdmin holds the ClusterAdmin checks: cluster, the group and its offsets, and a topic's
// lifecycle and configs.
type topicAdmin struct {
	admin     sarama.ClusterAdmin
	bootstrap string
	topic     string
}

func (a *topicAdmin) describeCluster() error {
	brokers, controller, err := a.admin.DescribeCluster()
	if err != nil {
		return err
	}
	advertised, controllerListed := false, false
	for _, b := range brokers {
		advertised = advertised || b.Addr() == a.bootstrap
		controllerListed = controllerListed || b.ID() == controller
	}
	if !advertised {
		return fmt.Errorf("no broker at %s among %d brokers", a.bootstrap, len(brokers))
	}
	if !controllerListed {
		return fmt.Errorf("controller %d is not among the brokers", controller)
	}
	return nil
}

func (a *topicAdmin) listConsumerGroup(group string) error {
	groups, err := a.admin.ListConsumerGroups()
	if err != nil {
		return err
	}
	protocolType, ok := groups[group]
	if !ok {
		return fmt.Errorf("%s not listed among %d groups", group, len(groups))
	}
	if protocolType != "consumer" {
		return fmt.Errorf("%s listed with protocol type %q", group, protocolType)
	}
	return nil
}

func (a *topicAdmin) describeConsumerGroup(group string) error {
	described, err := a.admin.DescribeConsumerGroups([]string{group})
	if err != nil {
		return err
	}
	if len(described) != 1 || described[0].GroupId != group {
		return fmt.Errorf("described %d groups", len(described))
	}
	d := described[0]
	if d.Err != sarama.ErrNoError {
		return fmt.Errorf("error %v", d.Err)
	}
	// Both members have left, so the group is Empty.
	if d.State != "Empty" || len(d.Members) != 0 || d.ProtocolType != "consumer" {
		return fmt.Errorf("state %q, %d members, protocol type %q", d.State, len(d.Members), d.ProtocolType)
	}
	return nil
}

func (a *topicAdmin) listGroupOffsets(group, topic string, commits map[int32]commit) error {
	fetched, err := a.admin.ListConsumerGroupOffsets(group, nil)
	if err != nil {
		return err
	}
	if fetched.Err != sarama.ErrNoError {
		return fmt.Errorf("error %v", fetched.Err)
	}
	if n := len(fetched.Blocks[topic]); n != len(commits) || len(fetched.Blocks) != 1 {
		return fmt.Errorf("offsets of %d topics, %d partitions of %s; committed %d partitions", len(fetched.Blocks), n, topic, len(commits))
	}
	for p, want := range commits {
		b := fetched.GetBlock(topic, p)
		if b == nil || b.Err != sarama.ErrNoError || b.Offset != want.offset || b.Metadata != want.metadata {
			return fmt.Errorf("partition %d listed %+v, committed %d %q", p, b, want.offset, want.metadata)
		}
	}
	return nil
}

func (a *topicAdmin) createTopic() error {
	retention := retentionMs
	detail := &sarama.TopicDetail{NumPartitions: Partitions, ReplicationFactor: 1, ConfigEntries: map[string]*string{"retention.ms": &retention}}
	if err := a.admin.CreateTopic(a.topic, detail, false); err != nil {
		return err
	}
	return a.waitListed(true)
}

func (a *topicAdmin) describeTopic() error {
	described, err := a.admin.DescribeTopics([]string{a.topic})
	if err != nil {
		return err
	}
	if len(described) != 1 || described[0].Name != a.topic {
		return fmt.Errorf("described %d topics", len(described))
	}
	t := described[0]
	if t.Err != sarama.ErrNoError {
		return fmt.Errorf("error %v", t.Err)
	}
	if len(t.Partitions) != Partitions {
		return fmt.Errorf("%d partitions", len(t.Partitions))
	}
	for _, p := range t.Partitions {
		if p.Err != sarama.ErrNoError || p.Leader < 0 || len(p.Replicas) != 1 || len(p.Isr) != 1 {
			return fmt.Errorf("partition %d: error %v, leader %d, replicas %v, isr %v", p.ID, p.Err, p.Leader, p.Replicas, p.Isr)
		}
	}
	return nil
}

func (a *topicAdmin) describeConfigs() error {
	entries, err := a.admin.DescribeConfig(sarama.ConfigResource{Type: sarama.TopicResource, Name: a.topic})
	if err != nil {
		return err
	}
	byName := map[string]sarama.ConfigEntry{}
	for _, e := range entries {
		byName[e.Name] = e
	}
	retention, ok := byName["retention.ms"]
	if !ok || retention.Value != retentionMs || retention.Source != sarama.SourceTopic {
		return fmt.Errorf("retention.ms: %+v (of %d entries)", retention, len(entries))
	}
	cleanup, ok := byName["cleanup.policy"]
	if !ok || cleanup.Value != "delete" || cleanup.Source == sarama.SourceTopic {
		return fmt.Errorf("cleanup.policy: %+v", cleanup)
	}
	return nil
}

func (a *topicAdmin) deleteTopic() error {
	if err := a.admin.DeleteTopic(a.topic); err != nil {
		return err
	}
	return a.waitListed(false)
}

// waitListed waits until ListTopics lists the topic (or no longer does), as a created or deleted
// topic reaches the broker's metadata after the controller answered.
func (a *topicAdmin) waitListed(listed bool) error {
	deadline := time.Now().Add(callTimeout)
	for {
		topics, err := a.admin.ListTopics()
		if err != nil {
			return err
		}
		if _, ok := topics[a.topic]; ok == listed {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s listed: %v after %s", a.topic, !listed, callTimeout)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
