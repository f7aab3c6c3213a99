package metadata

import "slices"

// DirectoryChanges are the PartitionChangeRecords that record in which of
// this node's log dirs each of its partitions lives, as Kafka's controller
// writes them when a broker reports the placement (AssignReplicasToDirs,
// after a partition is created in a dir or moved to another): one per
// partition whose recorded directory differs from what dirOf says (ok
// false: not open here, left alone).
//
// Below metadata.version 3.7-IV2 the records have no directories (Kafka
// has no JBOD in KRaft there), so nothing is recorded.
func (img *Image) DirectoryChanges(nodeID int32, dirOf func(topic string, partition int32) (UUID, bool)) []Record {
	if img.MetadataVersion() < MetadataVersion37IV2 {
		return nil
	}
	var out []Record
	for _, t := range img.Topics() {
		for _, p := range t.Partitions {
			if p == nil {
				continue
			}
			i := slices.Index(p.Replicas, nodeID)
			if i < 0 {
				continue
			}
			dir, ok := dirOf(t.Name, p.ID)
			if !ok || (i < len(p.Directories) && p.Directories[i] == dir) {
				continue
			}
			dirs := make([]UUID, len(p.Replicas))
			copy(dirs, p.Directories)
			for j := len(p.Directories); j < len(dirs); j++ {
				dirs[j] = MetadataTopicID // DirectoryId.UNASSIGNED
			}
			dirs[i] = dir
			c := NewPartitionChangeRecord(img.MetadataVersion(), t.ID, p.ID)
			c.Directories = dirs
			out = append(out, c)
		}
	}
	return out
}
