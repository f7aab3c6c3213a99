package metadata

import (
	"cmp"
	"fmt"
	"slices"
)

// Snapshots: an image written back as records, in the file layout of
// Kafka's RecordsSnapshotWriter. Karst can use them to compact
// __cluster_metadata-0 the way Kafka does, and to write bootstrap.checkpoint.

// SnapshotFileName is Kafka's name for a snapshot containing the log up to
// (not including) endOffset, taken at epoch.
func SnapshotFileName(endOffset int64, epoch int32) string {
	return fmt.Sprintf("%020d-%010d.checkpoint", endOffset, epoch)
}

// BootstrapSnapshotFileName is the bootstrap snapshot `kafka-storage
// format` of Kafka 4.4 writes inside __cluster_metadata-0 (end offset 0,
// epoch 0); Kafka 4.1 and older wrote a bootstrap.checkpoint beside the
// partition directory instead.
var BootstrapSnapshotFileName = SnapshotFileName(0, 0)

// maxSnapshotBatchBytes splits snapshot data into batches well under
// Kafka's 8 MiB raft batch limit.
const maxSnapshotBatchBytes = 1 << 20

// Records returns records that rebuild img from an empty image, in the
// order of Kafka's MetadataImage.write: features (metadata.version first),
// brokers, topics each followed by its partitions, configs, client quotas,
// producer ids, SCRAM credentials.
func (img *Image) Records() []Record {
	var out []Record
	versions := recordVersionsAt(img.MetadataVersion())
	if mv, ok := img.features[FeatureMetadataVersion]; ok {
		out = append(out, &FeatureLevelRecord{Name: FeatureMetadataVersion, FeatureLevel: mv})
	}
	for _, name := range sortedKeys(img.features) {
		if name != FeatureMetadataVersion {
			out = append(out, &FeatureLevelRecord{Name: name, FeatureLevel: img.features[name]})
		}
	}
	ids := make([]int32, 0, len(img.brokers))
	for id := range img.brokers {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		b := img.brokers[id]
		out = append(out, &RegisterBrokerRecord{
			Version: versions.registerBroker, BrokerID: b.ID, IncarnationID: b.IncarnationID,
			BrokerEpoch: b.Epoch, EndPoints: b.EndPoints, Features: b.Features, Rack: b.Rack,
			Fenced: b.Fenced, InControlledShutdown: b.InControlledShutdown, LogDirs: b.LogDirs,
			CordonedLogDirs: b.CordonedLogDirs,
		})
	}
	for _, t := range img.Topics() {
		out = append(out, &TopicRecord{Name: t.Name, TopicID: t.ID})
		for _, p := range t.Partitions {
			if p == nil {
				continue
			}
			out = append(out, &PartitionRecord{
				Version: versions.partition, PartitionID: p.ID, TopicID: t.ID,
				Replicas: p.Replicas, ISR: p.ISR, RemovingReplicas: p.RemovingReplicas,
				AddingReplicas: p.AddingReplicas, Leader: p.Leader,
				LeaderRecoveryState: p.LeaderRecoveryState, LeaderEpoch: p.LeaderEpoch,
				PartitionEpoch: p.PartitionEpoch, Directories: p.Directories,
				EligibleLeaderReplicas: nilIfEmpty(p.EligibleLeaderReplicas),
				LastKnownELR:           nilIfEmpty(p.LastKnownELR),
			})
		}
	}
	resources := make([]ConfigResource, 0, len(img.configs))
	for res := range img.configs {
		resources = append(resources, res)
	}
	slices.SortFunc(resources, func(a, b ConfigResource) int {
		return cmp.Or(cmp.Compare(a.Type, b.Type), cmp.Compare(a.Name, b.Name))
	})
	for _, res := range resources {
		for _, key := range sortedKeys(img.configs[res]) {
			v := img.configs[res][key]
			out = append(out, &ConfigRecord{ResourceType: res.Type, ResourceName: res.Name, Name: key, Value: &v})
		}
	}
	for _, q := range img.ClientQuotas() {
		for _, key := range sortedKeys(q.Values) {
			out = append(out, &ClientQuotaRecord{Entity: q.Entity, Key: key, Value: q.Values[key]})
		}
	}
	if img.nextProducerID > 0 {
		out = append(out, &ProducerIDsRecord{BrokerID: -1, BrokerEpoch: -1, NextProducerID: img.nextProducerID})
	}
	out = append(out, img.scramRecords()...)
	out = append(out, img.delegationTokenRecords()...)
	out = append(out, img.aclRecords()...)
	return out
}

// Kafka writes ELR fields only when they have members.
func nilIfEmpty(vs []int32) []int32 {
	if len(vs) == 0 {
		return nil
	}
	return vs
}

// BuildSnapshot returns a snapshot file: a control batch with a
// SnapshotHeaderRecord (then extra control records, e.g. KRaftVersionRecord
// and VotersRecord for kraft.version 1), data batches of records, and a
// control batch with a SnapshotFooterRecord. As in Kafka, batch offsets
// count from 0 and every batch carries the snapshot's epoch.
func BuildSnapshot(epoch int32, lastContainedLogTimestamp, nowMs int64, records []Record, extraControl ...ControlRecord) []byte {
	header := append([]ControlRecord{&SnapshotHeaderRecord{LastContainedLogTimestamp: lastContainedLogTimestamp}}, extraControl...)
	out := BuildControlBatch(0, epoch, nowMs, header...)
	offset := int64(len(header))
	var batch []BatchRecord
	size := 0
	flush := func() {
		if len(batch) == 0 {
			return
		}
		out = append(out, BuildBatch(BatchHeader{BaseOffset: offset, LeaderEpoch: epoch, Timestamp: nowMs}, batch)...)
		offset += int64(len(batch))
		batch, size = nil, 0
	}
	for _, r := range records {
		v := Encode(r)
		if size+len(v) > maxSnapshotBatchBytes {
			flush()
		}
		batch = append(batch, BatchRecord{Value: v})
		size += len(v)
	}
	flush()
	return append(out, BuildControlBatch(offset, epoch, nowMs, &SnapshotFooterRecord{})...)
}

// BootstrapSnapshot returns the contents of the bootstrap snapshot for
// BootstrapFeatures, as `kafka-storage format` writes it (epoch 0): the
// feature levels only, without the configs the controller adds when it
// applies them.
func BootstrapSnapshot(nowMs int64) []byte {
	features := BootstrapFeatures()
	recs := make([]Record, len(features))
	for i := range features {
		recs[i] = &features[i]
	}
	return BuildSnapshot(0, 0, nowMs, recs)
}
