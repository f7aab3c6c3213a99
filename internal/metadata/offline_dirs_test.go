package metadata

import (
	"slices"
	"testing"
)

// Without eligible leader replicas (metadata.version 3.7-IV2, before
// 4.0-IV1) Kafka's controller keeps the last ISR member in the ISR when
// its dir goes offline and only takes its leadership; a partition with
// other ISR members loses the node from the ISR. Partitions in the dirs
// still online, or recorded unassigned, are left alone.
func TestLogDirsOfflineWithoutELR(t *testing.T) {
	topic, d1, d2 := UUID{7}, UUID{1, 1}, UUID{2, 2}
	img := mustReplay(t, EmptyImage(),
		&FeatureLevelRecord{Name: FeatureMetadataVersion, FeatureLevel: MetadataVersion37IV2},
		&RegisterBrokerRecord{Version: 3, BrokerID: 1, LogDirs: []UUID{d1, d2}},
		&TopicRecord{Name: "t", TopicID: topic},
		&PartitionRecord{Version: 1, PartitionID: 0, TopicID: topic, Replicas: []int32{1}, ISR: []int32{1}, Leader: 1, Directories: []UUID{d1}},
		&PartitionRecord{Version: 1, PartitionID: 1, TopicID: topic, Replicas: []int32{1}, ISR: []int32{1}, Leader: 1, Directories: []UUID{d2}},
		&PartitionRecord{Version: 1, PartitionID: 2, TopicID: topic, Replicas: []int32{1, 2}, ISR: []int32{1, 2}, Leader: 1, Directories: []UUID{d2, d1}},
		&PartitionRecord{Version: 1, PartitionID: 3, TopicID: topic, Replicas: []int32{1}, ISR: []int32{1}, Leader: 1, Directories: []UUID{unassignedDirectoryID}},
	)
	recs := img.LogDirsOffline(1, []UUID{d1})
	if len(recs) != 3 {
		t.Fatalf("records %v, want the registration and two partition changes", recs)
	}
	if reg, ok := recs[0].(*BrokerRegistrationChangeRecord); !ok || reg.Version != 2 || !slices.Equal(reg.LogDirs, []UUID{d1}) {
		t.Fatalf("registration change %+v", recs[0])
	}
	next := mustReplay(t, img, recs...)
	tp := mustTopic(t, next, "t")
	for id, want := range map[int32]struct {
		leader, epoch int32
		isr           []int32
	}{0: {1, 0, []int32{1}}, 1: {-1, 1, []int32{1}}, 2: {-1, 1, []int32{2}}, 3: {1, 0, []int32{1}}} {
		p, _ := tp.Partition(id)
		if p.Leader != want.leader || p.LeaderEpoch != want.epoch || !slices.Equal(p.ISR, want.isr) || len(p.EligibleLeaderReplicas) != 0 {
			t.Fatalf("t-%d: %+v, want leader %d epoch %d isr %v", id, p, want.leader, want.epoch, want.isr)
		}
	}
	if again := next.LogDirsOffline(1, []UUID{d1}); len(again) != 0 {
		t.Fatalf("recorded twice: %v", again)
	}
}
