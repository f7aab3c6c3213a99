package metadata

import (
	"fmt"
	"strconv"
	"sync"
)

// internalTopicCreation serialises EnsureInternalTopic, so two coordinators'
// first requests do not both try to create a topic, and none returns
// before the topic's logs are open.
var internalTopicCreation sync.Mutex

// EnsureInternalTopic creates a coordinator's compacted internal topic
// (__consumer_offsets, __transaction_state) on first use, as Kafka does,
// unless it exists. segmentBytes <= 0 keeps the default segment size.
func (s *Store) EnsureInternalTopic(name string, partitions int32, compressionType string, segmentBytes int32) error {
	return s.EnsureInternalTopicWith(name, partitions, compressionType, segmentBytes, nil)
}

// EnsureInternalTopicWith is EnsureInternalTopic with configs that replace
// or add to the compacted topic's (__share_group_state is created with
// cleanup.policy delete and no retention: its share coordinator prunes it).
func (s *Store) EnsureInternalTopicWith(name string, partitions int32, compressionType string, segmentBytes int32, overrides map[string]string) error {
	// Checked under the lock only: a commit publishes the new image before
	// its OnCommit opens the topic's logs, so a caller that saw the topic
	// while another was creating it could use logs not open yet; the
	// creator holds the lock until CreateTopic returns, logs open.
	internalTopicCreation.Lock()
	defer internalTopicCreation.Unlock()
	if _, ok := s.Image().Topic(name); ok {
		return nil
	}
	compact := "compact"
	configs := map[string]*string{"cleanup.policy": &compact, "compression.type": &compressionType}
	if segmentBytes > 0 {
		seg := strconv.Itoa(int(segmentBytes))
		configs["segment.bytes"] = &seg
	}
	for k, v := range overrides {
		configs[k] = &v
	}
	if _, err := s.CreateTopic(CreateTopicRequest{Name: name, NumPartitions: partitions, ReplicationFactor: 1, Configs: configs}); err != nil {
		return fmt.Errorf("creating %s: %w", name, err)
	}
	return nil
}
