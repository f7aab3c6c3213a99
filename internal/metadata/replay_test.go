package metadata

import (
	"slices"
	"testing"
)

func mustReplay(t *testing.T, img *Image, recs ...Record) *Image {
	t.Helper()
	next, err := img.Replay(recs...)
	if err != nil {
		t.Fatal(err)
	}
	return next
}

func partitionRec(topic UUID, p int32) *PartitionRecord {
	return Node{ID: 1, DirectoryID: did}.newPartitionRecord(MaxMetadataVersion, topic, p)
}

func TestReplayTopicLifecycle(t *testing.T) {
	empty := EmptyImage()
	img := mustReplay(t, empty,
		&FeatureLevelRecord{Name: FeatureMetadataVersion, FeatureLevel: MetadataVersion41IV1},
		&TopicRecord{Name: "a.b", TopicID: tid},
		&ConfigRecord{ResourceType: ConfigResourceTopic, ResourceName: "a.b", Name: "cleanup.policy", Value: strp("compact")},
		partitionRec(tid, 0),
		partitionRec(tid, 1),
	)
	if empty.TopicCount() != 0 {
		t.Fatal("replay changed the old image")
	}
	if img.MetadataVersion() != 27 {
		t.Fatalf("metadata.version %d", img.MetadataVersion())
	}
	top, ok := img.Topic("a.b")
	if !ok || top.ID != tid || len(top.Partitions) != 2 {
		t.Fatalf("topic %+v", top)
	}
	if byID, _ := img.TopicByID(tid); byID != top {
		t.Fatal("by-id and by-name differ")
	}
	p, ok := top.Partition(1)
	if !ok || p.Leader != 1 || !slices.Equal(p.ISR, []int32{1}) || p.LeaderEpoch != 0 || p.PartitionEpoch != 0 || p.Directories[0] != did {
		t.Fatalf("partition %+v", p)
	}
	if img.TopicConfigs("a.b")["cleanup.policy"] != "compact" {
		t.Fatal("topic config missing")
	}
	if other, ok := img.collidingTopic("a_b"); !ok || other != "a.b" {
		t.Fatal("collision not tracked")
	}

	change := NewPartitionChangeRecord(MaxMetadataVersion, tid, 1)
	change.Leader = 1
	change.ISR = []int32{1}
	img2 := mustReplay(t, img, change)
	p2, _ := mustTopic(t, img2, "a.b").Partition(1)
	if p2.LeaderEpoch != 1 || p2.PartitionEpoch != 1 {
		t.Fatalf("after leader change: %+v", p2)
	}
	if p, _ := top.Partition(1); p.LeaderEpoch != 0 {
		t.Fatal("copy-on-write broken: old partition changed")
	}
	if p0a, _ := top.Partition(0); p0a != mustTopic(t, img2, "a.b").Partitions[0] {
		t.Fatal("unchanged partition was copied")
	}
	isrOnly := NewPartitionChangeRecord(MaxMetadataVersion, tid, 1)
	isrOnly.ISR = []int32{}
	p3, _ := mustTopic(t, mustReplay(t, img2, isrOnly), "a.b").Partition(1)
	if p3.LeaderEpoch != 1 || p3.PartitionEpoch != 2 || len(p3.ISR) != 0 {
		t.Fatalf("after isr change: %+v", p3)
	}

	img3 := mustReplay(t, img2, &RemoveTopicRecord{TopicID: tid})
	if _, ok := img3.Topic("a.b"); ok {
		t.Fatal("topic survived removal")
	}
	if img3.TopicConfigs("a.b") != nil {
		t.Fatal("topic configs survived removal")
	}
	if _, ok := img3.collidingTopic("a_b"); ok {
		t.Fatal("collision survived removal")
	}
	if _, ok := img2.Topic("a.b"); !ok {
		t.Fatal("removal changed the old image")
	}
}

func mustTopic(t *testing.T, img *Image, name string) *Topic {
	t.Helper()
	top, ok := img.Topic(name)
	if !ok {
		t.Fatalf("no topic %q", name)
	}
	return top
}

func TestReplayConfigsFeaturesProducerIDs(t *testing.T) {
	img := mustReplay(t, EmptyImage(),
		&ConfigRecord{ResourceType: ConfigResourceBroker, ResourceName: "", Name: "log.retention.ms", Value: strp("1")},
		&ConfigRecord{ResourceType: ConfigResourceBroker, ResourceName: "1", Name: "x", Value: strp("2")},
		&FeatureLevelRecord{Name: FeatureGroupVersion, FeatureLevel: 1},
		&ProducerIDsRecord{BrokerID: 1, NextProducerID: 1000},
	)
	if img.BrokerConfigs("")["log.retention.ms"] != "1" || img.BrokerConfigs("1")["x"] != "2" {
		t.Fatal("broker configs missing")
	}
	img2 := mustReplay(t, img,
		&ConfigRecord{ResourceType: ConfigResourceBroker, ResourceName: "1", Name: "x", Value: nil},
		&FeatureLevelRecord{Name: FeatureGroupVersion, FeatureLevel: 0},
		&ProducerIDsRecord{BrokerID: 1, NextProducerID: 2000},
	)
	if img2.BrokerConfigs("1") != nil || img.BrokerConfigs("1")["x"] != "2" {
		t.Fatal("config delete wrong or leaked into the old image")
	}
	if _, ok := img2.Features()[FeatureGroupVersion]; ok || img.FeatureLevel(FeatureGroupVersion) != 1 {
		t.Fatal("feature level 0 should remove the feature")
	}
	if img2.NextProducerID() != 2000 {
		t.Fatalf("next producer id %d", img2.NextProducerID())
	}
	if _, err := img2.Replay(&ProducerIDsRecord{NextProducerID: 2000}); err == nil {
		t.Fatal("producer ids went backwards")
	}
}

func TestReplayBrokers(t *testing.T) {
	img := mustReplay(t, EmptyImage(),
		&RegisterBrokerRecord{Version: 3, BrokerID: 1, BrokerEpoch: 7, Fenced: true},
		&BrokerRegistrationChangeRecord{Version: 2, BrokerID: 1, BrokerEpoch: 7, Fenced: BrokerUnfenced},
	)
	if b, ok := img.Broker(1); !ok || b.Fenced || b.Epoch != 7 {
		t.Fatalf("broker %+v", b)
	}
	if _, err := img.Replay(&BrokerRegistrationChangeRecord{BrokerID: 2}); err == nil {
		t.Fatal("change of unknown broker replayed")
	}
	if _, err := img.Replay(&UnregisterBrokerRecord{BrokerID: 1, BrokerEpoch: 6}); err == nil {
		t.Fatal("unregistered a broker at the wrong epoch")
	}
	if gone := mustReplay(t, img, &UnregisterBrokerRecord{BrokerID: 1, BrokerEpoch: 7}); func() bool { _, ok := gone.Broker(1); return ok }() {
		t.Fatal("broker survived unregistration")
	}
}

func TestReplayErrorsLeaveImage(t *testing.T) {
	img := mustReplay(t, EmptyImage(), &TopicRecord{Name: "a", TopicID: tid})
	for name, recs := range map[string][]Record{
		"duplicate name":      {&TopicRecord{Name: "a", TopicID: did}},
		"duplicate id":        {&TopicRecord{Name: "b", TopicID: tid}},
		"partition unknown":   {partitionRec(did, 0)},
		"change unknown":      {NewPartitionChangeRecord(MaxMetadataVersion, tid, 5)},
		"remove unknown":      {&RemoveTopicRecord{TopicID: did}},
		"partition id absurd": {partitionRec(tid, 1<<30)},
		"negative partition":  {partitionRec(tid, -1)},
		"partial":             {partitionRec(tid, 0), &TopicRecord{Name: "a", TopicID: did}},
	} {
		if next, err := img.Replay(recs...); err == nil || next != nil {
			t.Errorf("%s: replayed", name)
		}
	}
	if top := mustTopic(t, img, "a"); len(top.Partitions) != 0 {
		t.Fatal("failed replay changed the image")
	}
	// Records the image does not model are accepted.
	mustReplay(t, img, &NoOpRecord{}, &UnknownRecord{Key: 18}, &ZkMigrationStateRecord{})
}

func TestZeroImageReplays(t *testing.T) {
	img := mustReplay(t, &Image{}, &TopicRecord{Name: "a", TopicID: tid}, &ConfigRecord{ResourceType: 2, ResourceName: "a", Name: "k", Value: strp("v")})
	if img.TopicCount() != 1 {
		t.Fatal("zero image did not replay")
	}
}
