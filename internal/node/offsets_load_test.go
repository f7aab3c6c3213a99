package node

import (
	"context"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/karst-broker/karst/internal/group"
	"github.com/karst-broker/karst/internal/metadata"
)

// groupIn returns a group id that hashes to the given __consumer_offsets
// partition.
func groupIn(partition, partitions int32) string {
	for i := 0; ; i++ {
		id := fmt.Sprintf("group-%d", i)
		if group.PartitionFor(id, partitions) == partition {
			return id
		}
	}
}

// startTwoPartitionNode starts a broker on a new log dir whose
// coordinator topic has two partitions (partitionsSetting), with a key
// hashed to each: broken to 0, healthy to 1.
func startTwoPartitionNode(t *testing.T, partitionsSetting string) (dir, broken, healthy string, n *Node, cl *kgo.Client) {
	t.Helper()
	dir = t.TempDir()
	n, cl = startTestNode(t, dir, partitionsSetting)
	return dir, groupIn(0, 2), groupIn(1, 2), n, cl
}

// corruptFirstBatch overwrites the records of a partition's first batch
// (past its 61-byte header) with bytes that are no records, leaving its
// length and the batches after it intact: what a bad sector or a stray
// write leaves behind the log's recovery point.
func corruptFirstBatch(t *testing.T, dir string) {
	t.Helper()
	path := filepath.Join(dir, "00000000000000000000.log")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	end := 12 + int(binary.BigEndian.Uint32(data[8:12]))
	if len(data) <= end {
		t.Fatalf("%s holds one batch", path)
	}
	for i := 61; i < end; i++ {
		data[i] = 0xff
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestCorruptOffsetsPartitionTakesOnlyItsGroupsOffline: a broker whose
// __consumer_offsets partition 0 cannot be read starts, answers
// NOT_COORDINATOR for a group of partition 0 (Kafka's answer for a
// coordinator whose load failed), and serves a group of partition 1 with
// its offsets.
func TestCorruptOffsetsPartitionTakesOnlyItsGroupsOffline(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	const partitions = "offsets.topic.num.partitions=2"
	dir, broken, healthy, n, cl := startTwoPartitionNode(t, partitions)
	adm := kadm.NewClient(cl)
	if _, err := adm.CreateTopic(ctx, 1, 1, nil, "orders"); err != nil {
		t.Fatal(err)
	}
	for _, g := range []string{broken, healthy} {
		for at := int64(1); at <= 2; at++ { // two batches in each partition
			offsets := kadm.Offsets{}
			offsets.AddOffset("orders", 0, at, -1)
			if err := adm.CommitAllOffsets(ctx, g, offsets); err != nil {
				t.Fatal(err)
			}
		}
	}
	stopTestNode(t, n, cl)
	corruptFirstBatch(t, filepath.Join(dir, metadata.ConsumerOffsetsTopic+"-0"))

	n, cl = startTestNode(t, dir, partitions)
	defer stopTestNode(t, n, cl)
	adm = kadm.NewClient(cl)
	fetched, err := adm.FetchOffsets(ctx, healthy)
	if err != nil {
		t.Fatalf("fetching %s's offsets (partition 1): %v", healthy, err)
	}
	if o, ok := fetched.Lookup("orders", 0); !ok || o.At != 2 {
		t.Fatalf("%s's offset after the restart: %+v, want 2", healthy, o)
	}
	// Straight to the broker: a client would retry NOT_COORDINATOR.
	broker := cl.SeedBrokers()[0]
	fetch := kmsg.NewPtrOffsetFetchRequest()
	fetchGroup := kmsg.NewOffsetFetchRequestGroup()
	fetchGroup.Group = broken
	fetch.Groups = append(fetch.Groups, fetchGroup) // v8+, which franz-go sends
	fetchResp, err := broker.Request(ctx, fetch)
	if err != nil {
		t.Fatal(err)
	}
	if groups := fetchResp.(*kmsg.OffsetFetchResponse).Groups; len(groups) != 1 || kerr.ErrorForCode(groups[0].ErrorCode) != kerr.NotCoordinator {
		t.Fatalf("OffsetFetch for %s (partition 0, unreadable): %+v, want NOT_COORDINATOR", broken, groups)
	}
	commit := kmsg.NewPtrOffsetCommitRequest()
	commit.Group, commit.Generation = broken, -1
	topic := kmsg.NewOffsetCommitRequestTopic()
	topic.Topic = "orders" // up to v9
	details, err := adm.ListTopics(ctx, "orders")
	if err != nil {
		t.Fatal(err)
	}
	topic.TopicID = details["orders"].ID // v10+, which franz-go sends
	topic.Partitions = []kmsg.OffsetCommitRequestTopicPartition{{Partition: 0, Offset: 5, LeaderEpoch: -1}}
	commit.Topics = append(commit.Topics, topic)
	commitResp, err := broker.Request(ctx, commit)
	if err != nil {
		t.Fatal(err)
	}
	if code := commitResp.(*kmsg.OffsetCommitResponse).Topics[0].Partitions[0].ErrorCode; code != kerr.NotCoordinator.Code {
		t.Fatalf("OffsetCommit for %s (partition 0, unreadable): %v, want NOT_COORDINATOR", broken, kerr.ErrorForCode(code))
	}
}

// initProducerID sends InitProducerID for a transactional id straight to
// the broker and returns its error code.
func initProducerID(ctx context.Context, t *testing.T, cl *kgo.Client, transactionalID string) int16 {
	t.Helper()
	req := kmsg.NewPtrInitProducerIDRequest()
	req.TransactionalID, req.TransactionTimeoutMillis = &transactionalID, 60000
	req.ProducerID, req.ProducerEpoch = -1, -1
	resp, err := cl.SeedBrokers()[0].Request(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	return resp.(*kmsg.InitProducerIDResponse).ErrorCode
}

// TestCorruptTransactionStatePartitionTakesOnlyItsIDsOffline is the same
// for __transaction_state: the broker starts, a transactional id of the
// unreadable partition answers NOT_COORDINATOR, one of the other
// partition initialises.
func TestCorruptTransactionStatePartitionTakesOnlyItsIDsOffline(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	const partitions = "transaction.state.log.num.partitions=2"
	dir, broken, healthy, n, cl := startTwoPartitionNode(t, partitions)
	for _, id := range []string{broken, healthy} {
		for range 2 { // two batches in each partition
			if code := initProducerID(ctx, t, cl, id); code != 0 {
				t.Fatalf("InitProducerID %s: %v", id, kerr.ErrorForCode(code))
			}
		}
	}
	stopTestNode(t, n, cl)
	corruptFirstBatch(t, filepath.Join(dir, metadata.TransactionStateTopic+"-0"))

	n, cl = startTestNode(t, dir, partitions)
	defer stopTestNode(t, n, cl)
	if code := initProducerID(ctx, t, cl, healthy); code != 0 {
		t.Fatalf("InitProducerID %s (partition 1) after the restart: %v", healthy, kerr.ErrorForCode(code))
	}
	if code := initProducerID(ctx, t, cl, broken); code != kerr.NotCoordinator.Code {
		t.Fatalf("InitProducerID %s (partition 0, unreadable): %v, want NOT_COORDINATOR", broken, kerr.ErrorForCode(code))
	}
}
