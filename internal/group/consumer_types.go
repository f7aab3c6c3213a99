package group

import (
	"time"

	"github.com/twmb/franz-go/pkg/kerr"

	"github.com/karst-broker/karst/internal/config"
)

// TopicView is the cluster's topics as a consumer group needs them: the
// partition count of a topic (0 when it does not exist) and every name,
// for regex subscriptions.
type TopicView interface {
	Partitions(topic string) int32
	Names() []string
}

// ConsumerHeartbeat is a ConsumerGroupHeartbeat (KIP-848), topic ids
// already turned into names by the caller. Nil fields mean "unchanged
// since the last heartbeat", as on the wire.
type ConsumerHeartbeat struct {
	GroupID     string
	MemberID    string
	MemberEpoch int32 // 0 joins, -1 leaves, -2 leaves a static member
	InstanceID  *string
	RackID      *string
	// RebalanceTimeout is the member's max.poll.interval.ms; 0 keeps the
	// last one.
	RebalanceTimeout time.Duration
	SubscribedTopics []string // nil: unchanged
	SubscribedRegex  *string  // nil: unchanged; "" clears
	ServerAssignor   *string
	// Owned is the partitions the member reports owning; OwnedSent false
	// means the field was null (unchanged).
	Owned     []TopicPartition
	OwnedSent bool
	// Full is a request that carries the member's whole state (rebalance
	// timeout, subscription and owned partitions), which Kafka answers
	// with the assignment even when it did not change.
	Full bool

	ClientID   string
	ClientHost string
	Topics     TopicView
	// MayDescribe, when set, is whether the member's principal may
	// describe a topic now: topics its regex matches are subscribed only
	// if so, as Kafka's TopicRegexResolver filters them. Nil when no
	// authorizer is on.
	MayDescribe func(topic string) bool
}

// ConsumerHeartbeatResult is the answer to a ConsumerGroupHeartbeat.
type ConsumerHeartbeatResult struct {
	Err               *kerr.Error
	ErrMessage        string
	MemberID          string
	MemberEpoch       int32
	HeartbeatInterval time.Duration
	// Assignment is the member's whole current assignment, or nil when
	// the answer carries none (errors, leaves, and heartbeats after which
	// it is unchanged).
	Assignment MemberAssignment
	// Wait is the durability of the records the heartbeat wrote, which
	// the answer waits for as Kafka's waits for their commit; nil when it
	// wrote none.
	Wait Durable
}

// ConsumerConfig holds the group.consumer.* settings.
type ConsumerConfig struct {
	SessionTimeout    time.Duration // group.consumer.session.timeout.ms
	HeartbeatInterval time.Duration // group.consumer.heartbeat.interval.ms
	MaxSize           int           // group.consumer.max.size
}

// DefaultConsumerConfig is Kafka's defaults.
func DefaultConsumerConfig() ConsumerConfig {
	return ConsumerConfig{SessionTimeout: 45 * time.Second, HeartbeatInterval: 5 * time.Second, MaxSize: 1<<31 - 1}
}

// ConsumerConfigFrom reads the group.consumer.* settings; nil gives
// Kafka's defaults.
func ConsumerConfigFrom(b *config.Broker) ConsumerConfig {
	cfg := DefaultConsumerConfig()
	if b == nil {
		return cfg
	}
	cfg.SessionTimeout = time.Duration(b.Int("group.consumer.session.timeout.ms")) * time.Millisecond
	cfg.HeartbeatInterval = time.Duration(b.Int("group.consumer.heartbeat.interval.ms")) * time.Millisecond
	cfg.MaxSize = int(b.Int("group.consumer.max.size"))
	return cfg
}
