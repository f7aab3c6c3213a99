package handler

// AlterReplicaLogDirs (key 34), versions 0–2.
//
//	v0: as v1 (Kafka 4 dropped it, KIP-896; Karst serves it).
//	v1: no change (throttling after the response).
//	v2: flexible.
//
// Each partition named under a dir is moved into it while it serves (see
// storage.Manager.AlterLogDir); the answer comes once the move has
// started, as Kafka's does. Errors are Kafka's (ReplicaManager.
// alterReplicaLogDirs), checked in its order: a dir not in log.dirs (it
// must be absolute) is LOG_DIR_NOT_FOUND and an offline dir
// KAFKA_STORAGE_ERROR, whatever the partition; then a partition that went
// offline with its dir KAFKA_STORAGE_ERROR, one the metadata has but this
// node does not host (including one never loaded because its dir had
// failed before the start) REPLICA_NOT_AVAILABLE, and one the metadata
// lacks UNKNOWN_TOPIC_OR_PARTITION. Measured on Kafka 4.4.0 with two log
// dirs, the second's meta.properties unreadable at start: 9 for its
// partition moved to the healthy dir, 56 for any partition moved to the
// failed dir, 57 for a dir not configured, 3 for a topic that does not
// exist. Results are grouped by topic in name order.

import (
	"context"
	"errors"
	"slices"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	klog "github.com/karst-broker/karst/internal/log"
	"github.com/karst-broker/karst/internal/storage"
)

func init() { register(34, 0, 2, (*Broker).handleAlterReplicaLogDirs) }

func (b *Broker) handleAlterReplicaLogDirs(_ context.Context, r *Request) Outcome {
	req := r.Body.(*kmsg.AlterReplicaLogDirsRequest)
	resp := kmsg.NewPtrAlterReplicaLogDirsResponse()
	results := map[string][]kmsg.AlterReplicaLogDirsResponseTopicPartition{}
	for _, d := range req.Dirs {
		for _, t := range d.Topics {
			for _, p := range t.Partitions {
				out := kmsg.NewAlterReplicaLogDirsResponseTopicPartition()
				out.Partition = p
				out.ErrorCode = b.alterLogDirCode(t.Topic, p, b.alterLogDir(t.Topic, p, d.Dir))
				results[t.Topic] = append(results[t.Topic], out)
			}
		}
	}
	topics := make([]string, 0, len(results))
	for t := range results {
		topics = append(topics, t)
	}
	slices.Sort(topics)
	for _, t := range topics {
		out := kmsg.NewAlterReplicaLogDirsResponseTopic()
		out.Topic = t
		out.Partitions = results[t]
		resp.Topics = append(resp.Topics, out)
	}
	return Ready(resp)
}

func (b *Broker) alterLogDir(topic string, partition int32, dir string) error {
	if b.opts.Storage == nil {
		return storage.ErrLogDirNotFound
	}
	return b.opts.Storage.AlterLogDir(klog.TopicPartition{Topic: topic, Partition: partition}, dir)
}

func (b *Broker) alterLogDirCode(topic string, partition int32, err error) int16 {
	switch {
	case err == nil:
		return 0
	case errors.Is(err, storage.ErrLogDirNotFound):
		return kerr.LogDirNotFound.Code
	case errors.Is(err, storage.ErrReplicaNotAvailable):
		t, ok := b.image().Topic(topic)
		if !ok {
			return kerr.UnknownTopicOrPartition.Code
		}
		if _, ok := t.Partition(partition); !ok {
			return kerr.UnknownTopicOrPartition.Code
		}
		return kerr.ReplicaNotAvailable.Code
	case errors.Is(err, klog.ErrStorage):
		return kerr.KafkaStorageError.Code
	}
	return kerr.UnknownServerError.Code
}
