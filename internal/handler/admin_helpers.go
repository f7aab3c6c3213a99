package handler

import (
	"errors"
	"strconv"
	"syscall"

	"github.com/karst-broker/karst/internal/config"
	"github.com/karst-broker/karst/internal/metadata"
)

// Authorized operations as Kafka reports them without an authorizer: every
// operation the resource type supports (AclEntry.supportedOperations), one
// bit per AclOperation code.
const (
	// CREATE, ALTER, DESCRIBE, CLUSTER_ACTION, DESCRIBE_CONFIGS,
	// ALTER_CONFIGS, IDEMPOTENT_WRITE.
	clusterAuthorizedOperations = 1<<5 | 1<<7 | 1<<8 | 1<<9 | 1<<10 | 1<<11 | 1<<12
	// READ, WRITE, CREATE, DELETE, ALTER, DESCRIBE, DESCRIBE_CONFIGS,
	// ALTER_CONFIGS.
	topicAuthorizedOperations = 1<<3 | 1<<4 | 1<<5 | 1<<6 | 1<<7 | 1<<8 | 1<<10 | 1<<11
	// READ, DELETE, DESCRIBE, DESCRIBE_CONFIGS, ALTER_CONFIGS (Kafka 4.4
	// answers 3400 for a group with no authorizer, group configs being
	// KIP-848's).
	groupAuthorizedOperations = 1<<3 | 1<<6 | 1<<8 | 1<<10 | 1<<11
)

// nonNil returns s, or an empty slice where s is nil, for nullable arrays
// Kafka always fills.
func nonNil(s []int32) []int32 {
	if s == nil {
		return []int32{}
	}
	return s
}

// logConfig is a topic's log configuration under the dynamic configs of
// img, as the topic's logs have it.
func (b *Broker) logConfig(img *metadata.Image, topic string) *config.TopicConfig {
	return b.opts.LogConfigs.Topic(img, topic)
}

// staticBrokerConfig is the broker's static configuration (server.properties
// and overrides), or Kafka's defaults with this node's id when the broker
// was built without one (handler tests).
func (b *Broker) staticBrokerConfig() *config.Broker {
	if b.opts.Settings != nil {
		return b.opts.Settings
	}
	cfg, _, err := config.FromProperties(map[string]string{"node.id": strconv.FormatInt(int64(b.opts.NodeID), 10)})
	if err != nil {
		return config.Default()
	}
	return cfg
}

// brokerConfig is the static configuration under the dynamic broker
// configs the metadata holds: the cluster default and this node's own.
func (b *Broker) brokerConfig(img *metadata.Image) (*config.Broker, error) {
	return b.staticBrokerConfig().WithDynamic(img.BrokerConfigs(""), img.BrokerConfigs(b.nodeIDString()))
}

func (b *Broker) nodeIDString() string { return strconv.FormatInt(int64(b.opts.NodeID), 10) }

// configErrorResult is the code and message for an error from the config
// or metadata packages.
func configErrorResult(err error) (int16, *string) {
	var re *config.RequestError
	var ce *config.ConfigError
	if errors.As(err, &re) || errors.As(err, &ce) {
		msg := err.Error()
		return config.ErrorCode(err), &msg
	}
	return errorCode(err), errorMessage(err)
}

// fileSystemSpace returns the total and usable bytes of the file system
// holding dir, as Java's FileStore reports them (f_blocks and f_bavail
// times the block size); -1 when unknown.
func fileSystemSpace(dir string) (total, usable int64) {
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		return -1, -1
	}
	size := int64(st.Bsize)
	return clampSpace(st.Blocks, size), clampSpace(st.Bavail, size)
}

// clampSpace multiplies a block count by the block size, answering
// Long.MAX_VALUE on overflow as Kafka's adjustForLargeFileSystems does.
func clampSpace(blocks uint64, size int64) int64 {
	const maxInt64 = 1<<63 - 1
	if size > 0 && blocks > uint64(maxInt64/size) {
		return maxInt64
	}
	return int64(blocks) * size
}
