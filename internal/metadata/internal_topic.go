package metadata

import (
	"fmt"
	"strconv"
	"sync"
)

// internalTopicCreation serialises EnsureInternalTopic, so two coordinators'
// first requests do not both try to create a topic.
var internalTopicCreation sync.Mutex

// EnsureInternalTopic creates a coordinator's compacted internal topic
// (__consumer_offsets, __transaction_state) on first use, as Kafka does,
// unless it exists. segmentBytes <= 0 keeps the default segment size.
func (s *Store) EnsureInternalTopic(name string, partitions int32, compressionType string, segmentBytes int32) error {
	if _, ok := s.Image().Topic(name); ok {
		return nil
	}
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
	if _, err := s.CreateTopic(CreateTopicRequest{Name: name, NumPartitions: partitions, ReplicationFactor: 1, Configs: configs}); err != nil {
		return fmt.Errorf("creating %s: %w", name, err)
	}
	return nil
}
