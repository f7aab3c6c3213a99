package handler

// AlterReplicaLogDirs (key 34), versions 0–2.
//
//	v0: as v1 (Kafka 4 dropped it, KIP-896; Karst serves it).
//	v1: no change (throttling after the response).
//	v2: flexible.
//
// Each partition named under a dir is moved into it while it serves (see
// storage.Manager.AlterLogDir); the answer comes once the move has
// started, as Kafka's does. Errors are Kafka's: a dir not in log.dirs
// (it must be absolute) is LOG_DIR_NOT_FOUND, an offline dir or partition
// KAFKA_STORAGE_ERROR, a partition this node does not host
// REPLICA_NOT_AVAILABLE. Results are grouped by topic in name order.

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
				out.ErrorCode = alterLogDirCode(b.alterLogDir(t.Topic, p, d.Dir))
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
	if _, ok := b.image().Topic(topic); !ok {
		return storage.ErrReplicaNotAvailable
	}
	return b.opts.Storage.AlterLogDir(klog.TopicPartition{Topic: topic, Partition: partition}, dir)
}

func alterLogDirCode(err error) int16 {
	switch {
	case err == nil:
		return 0
	case errors.Is(err, storage.ErrLogDirNotFound):
		return kerr.LogDirNotFound.Code
	case errors.Is(err, storage.ErrReplicaNotAvailable):
		return kerr.ReplicaNotAvailable.Code
	case errors.Is(err, klog.ErrStorage):
		return kerr.KafkaStorageError.Code
	}
	return kerr.UnknownServerError.Code
}
