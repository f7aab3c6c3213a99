package node

import (
	"errors"

	"github.com/karst-broker/karst/internal/group"
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
	t, ok := n.store.Image().Topic(metadata.ConsumerOffsetsTopic)
	if !ok {
		return errors.New("node: __consumer_offsets does not exist")
	}
	partitions := int32(len(t.Partitions))
	groups.UnloadPartition(partition, partitions)
	_, err := groups.LoadPartition(partition, partitions, group.NewOffsetsTopic(n.store, n.storage, partitions, 0).Partition(partition))
	return err
}
