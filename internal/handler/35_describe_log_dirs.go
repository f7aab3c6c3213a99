package handler

// DescribeLogDirs (key 35), versions 1–5 (Kafka 4 dropped v0).
//
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
// topic not asked for appears with no partitions). The offset lag is 0: a
// partition is never a future replica catching up. Space comes from
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

func init() { register(35, 1, 5, (*Broker).handleDescribeLogDirs) }

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
		dir.Topics = describeLogDirsTopics(byDir[path], wanted)
		resp.Dirs = append(resp.Dirs, dir)
	}
	return Ready(resp)
}

// describeLogDirsTopics groups the partitions by topic, in name order,
// keeping the wanted partitions (all when wanted is nil).
func describeLogDirsTopics(parts []*storage.Partition, wanted map[klog.TopicPartition]bool) []kmsg.DescribeLogDirsResponseDirTopic {
	slices.SortFunc(parts, func(a, b *storage.Partition) int {
		return cmp.Or(cmp.Compare(a.Topic, b.Topic), cmp.Compare(a.Partition, b.Partition))
	})
	var topics []kmsg.DescribeLogDirsResponseDirTopic
	for _, p := range parts {
		if len(topics) == 0 || topics[len(topics)-1].Topic != p.Topic {
			t := kmsg.NewDescribeLogDirsResponseDirTopic()
			t.Topic = p.Topic
			t.Partitions = []kmsg.DescribeLogDirsResponseDirTopicPartition{}
			topics = append(topics, t)
		}
		if wanted != nil && !wanted[p.TopicPartition] {
			continue
		}
		out := kmsg.NewDescribeLogDirsResponseDirTopicPartition()
		out.Partition = p.Partition
		out.Size = p.Log.Size()
		t := &topics[len(topics)-1]
		t.Partitions = append(t.Partitions, out)
	}
	return topics
}
