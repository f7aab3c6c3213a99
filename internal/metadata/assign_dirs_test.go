package metadata

import (
	"testing"
)

// Partitions created UNASSIGNED (a broker with several log dirs) get one
// PartitionChangeRecord each naming the dir that holds them; replayed,
// nothing is left to record, and a move records the new dir.
func TestDirectoryChangesRecordWhereEachPartitionLives(t *testing.T) {
	unassigned := Node{ID: 1}
	img := mustReplay(t, EmptyImage(),
		&FeatureLevelRecord{Name: FeatureMetadataVersion, FeatureLevel: MetadataVersion41IV1},
		&TopicRecord{Name: "t", TopicID: tid},
		unassigned.newPartitionRecord(MetadataVersion41IV1, tid, 0),
		unassigned.newPartitionRecord(MetadataVersion41IV1, tid, 1),
	)
	dirA, dirB := RandomUUID(), RandomUUID()
	placed := map[int32]UUID{0: dirA, 1: dirB}
	dirOf := func(topic string, p int32) (UUID, bool) { d, ok := placed[p]; return d, ok && topic == "t" }
	recs := img.DirectoryChanges(1, dirOf)
	if len(recs) != 2 {
		t.Fatalf("%d records, want one per partition: %v", len(recs), recs)
	}
	img = mustReplay(t, img, recs...)
	for p, want := range placed {
		part, _ := mustTopic(t, img, "t").Partition(p)
		if len(part.Directories) != 1 || part.Directories[0] != want {
			t.Fatalf("partition %d directories %v, want [%v]", p, part.Directories, want)
		}
	}
	if again := img.DirectoryChanges(1, dirOf); len(again) != 0 {
		t.Fatalf("recorded again: %v", again)
	}
	placed[0] = dirB
	recs = img.DirectoryChanges(1, dirOf)
	if len(recs) != 1 || recs[0].(*PartitionChangeRecord).PartitionID != 0 {
		t.Fatalf("after a move: %v, want one record for partition 0", recs)
	}
}
