package node

import (
	"errors"

	"github.com/karst-broker/karst/internal/metadata"
)

// ReloadGroupPartition unloads one __consumer_offsets partition from the
// group coordinator and loads it again from its log, as a move of its
// leadership away and back would; tests call it to show that the groups
// and offsets of the partition survive it.
func (n *Node) ReloadGroupPartition(partition int32) error {
	groups := n.groups.Load()
	if groups == nil {
		return errors.New("node: the group coordinator is not running")
	}
	if _, ok := n.store.Image().Topic(metadata.ConsumerOffsetsTopic); !ok {
		return errors.New("node: __consumer_offsets does not exist")
	}
	return groups.ReloadPartition(partition)
}
