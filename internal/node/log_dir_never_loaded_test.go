package node

import (
	"context"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	klog "github.com/karst-broker/karst/internal/log"
)

// Kafka tells a partition that went offline with its log dir from one
// that was never loaded because its dir had failed before the start: the
// first is HostedPartition.Offline and the data APIs answer
// KAFKA_STORAGE_ERROR, the second is not hosted and they answer
// NOT_LEADER_OR_FOLLOWER (measured on Kafka 4.4.0 on two log dirs, the
// second's meta.properties unreadable at start: Produce, Fetch,
// ListOffsets, DeleteRecords, OffsetForLeaderEpoch and DescribeProducers
// all answered 6, and Metadata 5 with no leader and the node offline).
// Until 2026-12-02 Karst answered KAFKA_STORAGE_ERROR for both.
func TestPartitionOfALogDirFailedBeforeTheStartIsNotHosted(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	n, cl, a, b := startWithJbodOnTwoDirs(ctx, t, 3)
	waitFor(t, 10*time.Second, func() bool { return recordedDir(n, "jbod", 1) == n.dirIDs[b] })

	n.dirFailures.MaybeAddOfflineLogDir(b, "Error while appending records in dir "+b, syscall.EIO)
	waitFor(t, 10*time.Second, func() bool { return n.storage.Offline("jbod", 1) })
	checkDataAPIs(ctx, t, cl, 1, kerr.KafkaStorageError.Code)
	checkDataAPIs(ctx, t, cl, 0, 0)
	checkAlterLogDir(ctx, t, cl, 1, a, kerr.KafkaStorageError.Code) // went offline: HostedPartition.Offline
	stopTestNode(t, n, cl)

	replaceWithDir(t, filepath.Join(b, klog.MetaPropertiesFile))
	n, cl = startOnDirs(t, newErrorMessages(), a, b)
	if !n.storage.DirOffline(b) || !n.storage.OfflineReplica("jbod", 1) || n.storage.Offline("jbod", 1) {
		t.Fatalf("dir b offline %v, jbod-1 an offline replica %v, gone offline %v; want true, true, false",
			n.storage.DirOffline(b), n.storage.OfflineReplica("jbod", 1), n.storage.Offline("jbod", 1))
	}
	checkDataAPIs(ctx, t, cl, 1, kerr.NotLeaderForPartition.Code)
	checkDataAPIs(ctx, t, cl, 0, 0)
	checkMetadataAnswers(ctx, t, cl, map[int32]string{0: a, 1: b}, b)
	// AlterReplicaLogDirs, as Kafka 4.4.0 answered in the same state: the
	// never-loaded partition to the healthy dir is not hosted (Kafka's
	// NOT_LEADER_OR_FOLLOWER, which this API answers as REPLICA_NOT_AVAILABLE);
	// any partition to the failed dir is KAFKA_STORAGE_ERROR, checked first.
	checkAlterLogDir(ctx, t, cl, 1, a, kerr.ReplicaNotAvailable.Code)
	checkAlterLogDir(ctx, t, cl, 1, b, kerr.KafkaStorageError.Code)
	checkAlterLogDir(ctx, t, cl, 0, b, kerr.KafkaStorageError.Code)
}

// checkAlterLogDir asks the broker to move partition p of "jbod" into dir
// and checks the partition's error code.
func checkAlterLogDir(ctx context.Context, t *testing.T, cl *kgo.Client, p int32, dir string, want int16) {
	t.Helper()
	req := kmsg.NewPtrAlterReplicaLogDirsRequest()
	d := kmsg.NewAlterReplicaLogDirsRequestDir()
	d.Dir = dir
	dt := kmsg.NewAlterReplicaLogDirsRequestDirTopic()
	dt.Topic, dt.Partitions = "jbod", []int32{p}
	d.Topics = append(d.Topics, dt)
	req.Dirs = append(req.Dirs, d)
	resp, err := req.RequestWith(ctx, cl.Broker(1))
	if err != nil {
		t.Fatal(err)
	}
	if got := resp.Topics[0].Partitions[0].ErrorCode; got != want {
		t.Fatalf("AlterReplicaLogDirs of jbod-%d to %s: %d, want %d", p, dir, got, want)
	}
}

// checkDataAPIs asks the broker for partition p of "jbod" with each data
// API that resolves a partition and checks that every one answers want.
func checkDataAPIs(ctx context.Context, t *testing.T, cl *kgo.Client, p int32, want int16) {
	t.Helper()
	md, err := kadm.NewClient(cl).Metadata(ctx, "jbod")
	if err != nil {
		t.Fatal(err)
	}
	id := md.Topics["jbod"].ID
	broker := cl.Broker(1)
	got := map[string]int16{}

	produce := kmsg.NewPtrProduceRequest()
	produce.Acks, produce.TimeoutMillis = -1, 5000
	pt := kmsg.NewProduceRequestTopic()
	pt.Topic, pt.TopicID = "jbod", id // v13 names topics by id
	pp := kmsg.NewProduceRequestTopicPartition()
	pp.Partition = p
	if want != 0 {
		pp.Records = []byte("resolved before it is parsed")
	}
	pt.Partitions = append(pt.Partitions, pp)
	produce.Topics = append(produce.Topics, pt)

	fetch := kmsg.NewPtrFetchRequest()
	fetch.ReplicaID, fetch.MaxBytes, fetch.SessionEpoch = -1, 1<<20, -1
	ft := kmsg.NewFetchRequestTopic()
	ft.Topic, ft.TopicID = "jbod", id
	fp := kmsg.NewFetchRequestTopicPartition()
	fp.Partition, fp.CurrentLeaderEpoch, fp.PartitionMaxBytes, fp.LogStartOffset = p, -1, 1<<20, -1
	ft.Partitions = append(ft.Partitions, fp)
	fetch.Topics = append(fetch.Topics, ft)

	deleteRecords := kmsg.NewPtrDeleteRecordsRequest()
	deleteRecords.TimeoutMillis = 5000
	dt := kmsg.NewDeleteRecordsRequestTopic()
	dt.Topic = "jbod"
	dp := kmsg.NewDeleteRecordsRequestTopicPartition()
	dp.Partition, dp.Offset = p, 0
	dt.Partitions = append(dt.Partitions, dp)
	deleteRecords.Topics = append(deleteRecords.Topics, dt)

	epochs := kmsg.NewPtrOffsetForLeaderEpochRequest()
	epochs.ReplicaID = -1
	et := kmsg.NewOffsetForLeaderEpochRequestTopic()
	et.Topic = "jbod"
	ep := kmsg.NewOffsetForLeaderEpochRequestTopicPartition()
	ep.Partition, ep.CurrentLeaderEpoch, ep.LeaderEpoch = p, -1, 0
	et.Partitions = append(et.Partitions, ep)
	epochs.Topics = append(epochs.Topics, et)

	producers := kmsg.NewPtrDescribeProducersRequest()
	dpt := kmsg.NewDescribeProducersRequestTopic()
	dpt.Topic, dpt.Partitions = "jbod", []int32{p}
	producers.Topics = append(producers.Topics, dpt)

	for name, req := range map[string]kmsg.Request{"Produce": produce, "Fetch": fetch, "DeleteRecords": deleteRecords,
		"OffsetForLeaderEpoch": epochs, "DescribeProducers": producers} {
		if name == "Produce" && want == 0 {
			continue // a partition that serves would append
		}
		resp, err := broker.Request(ctx, req)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		switch r := resp.(type) {
		case *kmsg.ProduceResponse:
			got[name] = r.Topics[0].Partitions[0].ErrorCode
		case *kmsg.FetchResponse:
			got[name] = r.Topics[0].Partitions[0].ErrorCode
		case *kmsg.DeleteRecordsResponse:
			got[name] = r.Topics[0].Partitions[0].ErrorCode
		case *kmsg.OffsetForLeaderEpochResponse:
			got[name] = r.Topics[0].Partitions[0].ErrorCode
		case *kmsg.DescribeProducersResponse:
			got[name] = r.Topics[0].Partitions[0].ErrorCode
		}
	}
	got["ListOffsets"] = listOffsetsCodes(ctx, t, cl, "jbod", 2)[p]
	for name, code := range got {
		if code != want {
			t.Errorf("%s of jbod-%d answered %d, want %d (all: %v)", name, p, code, want, got)
		}
	}
}
