package handler

// DescribeLogDirs (key 35), versions 0–5.
//
//	v0: as v1 (Kafka 4 dropped it, KIP-896; Karst serves it).
//	v1: no change (throttling after the response).
//	v2: flexible.
//	v3: top-level error code.
//	v4: total and usable bytes of each log dir's file system.
//	v5: whether the dir is cordoned (KIP-1066): never, as Karst has no
//	    cordoned.log.dirs, which is what Kafka answers for a dir not in it.
//
// Every dir of log.dirs is reported by its absolute path, in log.dirs
// order; an offline dir (one that failed) only with KAFKA_STORAGE_ERROR,
// as Kafka answers it. A null topic list
// means every partition. As Kafka does, every topic with a partition in the
// dir is listed, holding those of its partitions that were asked for (so a
// topic not asked for appears with no partitions). The offset lag of a
// partition is 0 (this node leads it); a copy being moved into the dir
// (AlterReplicaLogDirs) is listed with is_future and its lag. Space comes from
// statfs, as Java's FileStore reports it.

import (
	"cmp"
	"context"
	"path/filepath"
	"slices"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	klog "github.com/karst-broker/karst/internal/log"
	"github.com/karst-broker/karst/internal/storage"
)

func init() { register(35, 0, 5, (*Broker).handleDescribeLogDirs) }

func (b *Broker) handleDescribeLogDirs(_ context.Context, r *Request) Outcome {
	req := r.Body.(*kmsg.DescribeLogDirsRequest)
	resp := kmsg.NewPtrDescribeLogDirsResponse()
	if b.opts.LogDir == "" || b.opts.Storage == nil {
		return Ready(resp)
	}
	var wanted map[klog.TopicPartition]bool
	if req.Topics != nil {
		wanted = map[klog.TopicPartition]bool{}
		for _, rt := range req.Topics {
			for _, p := range rt.Partitions {
				wanted[klog.TopicPartition{Topic: rt.Topic, Partition: p}] = true
			}
		}
	}
	byDir := map[string][]*storage.Partition{}
	for _, p := range b.opts.Storage.All() {
		byDir[p.Dir] = append(byDir[p.Dir], p)
	}
	futures := map[string][]storage.Future{}
	for _, f := range b.opts.Storage.Futures() {
		futures[f.Dir] = append(futures[f.Dir], f)
	}
	for _, path := range b.opts.Storage.Dirs() {
		dir := kmsg.NewDescribeLogDirsResponseDir()
		dir.Dir = path
		if abs, err := filepath.Abs(path); err == nil {
			dir.Dir = abs
		}
		if b.opts.Storage.DirOffline(path) {
			dir.ErrorCode = kerr.KafkaStorageError.Code
			resp.Dirs = append(resp.Dirs, dir)
			continue
		}
		dir.TotalBytes, dir.UsableBytes = fileSystemSpace(dir.Dir)
		dir.Topics = describeLogDirsTopics(byDir[path], futures[path], wanted)
		resp.Dirs = append(resp.Dirs, dir)
	}
	return Ready(resp)
}

// describeLogDirsTopics groups the partitions and the copies being moved
// in (is_future, with their lag behind the current log) by topic, in name
// order, keeping the wanted partitions (all when wanted is nil).
func describeLogDirsTopics(parts []*storage.Partition, futures []storage.Future, wanted map[klog.TopicPartition]bool) []kmsg.DescribeLogDirsResponseDirTopic {
	entries := make([]kmsg.DescribeLogDirsResponseDirTopicPartition, 0, len(parts)+len(futures))
	names := make([]string, 0, len(parts)+len(futures))
	add := func(tp klog.TopicPartition, size, lag int64, future bool) {
		out := kmsg.NewDescribeLogDirsResponseDirTopicPartition()
		out.Partition, out.Size, out.OffsetLag, out.IsFuture = tp.Partition, size, lag, future
		entries = append(entries, out)
		names = append(names, tp.Topic)
	}
	for _, p := range parts {
		add(p.TopicPartition, p.Log.Size(), 0, false)
	}
	for _, f := range futures {
		add(f.TopicPartition, f.Size, f.Lag, true)
	}
	order := make([]int, len(entries))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(i, j int) int {
		return cmp.Or(cmp.Compare(names[i], names[j]), cmp.Compare(entries[i].Partition, entries[j].Partition))
	})
	var topics []kmsg.DescribeLogDirsResponseDirTopic
	for _, i := range order {
		if wanted != nil && !wanted[klog.TopicPartition{Topic: names[i], Partition: entries[i].Partition}] {
			continue // a topic none of whose partitions is wanted is left out, as Kafka does
		}
		if len(topics) == 0 || topics[len(topics)-1].Topic != names[i] {
			t := kmsg.NewDescribeLogDirsResponseDirTopic()
			t.Topic = names[i]
			t.Partitions = []kmsg.DescribeLogDirsResponseDirTopicPartition{}
			topics = append(topics, t)
		}
		t := &topics[len(topics)-1]
		t.Partitions = append(t.Partitions, entries[i])
	}
	return topics
}
