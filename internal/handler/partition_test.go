package handler

import (
	"context"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/karst-broker/karst/internal/metadata"
	"github.com/karst-broker/karst/internal/record"
)

// moveLeader commits a leader change of a partition to leader (another
// node's id, or metadata.NoLeader once it went offline).
func (f *adminFixture) moveLeader(topic string, partition, leader int32) {
	f.t.Helper()
	tp, _ := f.store.Image().Topic(topic)
	change := metadata.NewPartitionChangeRecord(metadata.MaxMetadataVersion, tp.ID, partition)
	change.Leader = leader
	if err := f.store.Commit([]metadata.Record{change}); err != nil {
		f.t.Fatal(err)
	}
}

func oneRecordBatch(t *testing.T) []byte {
	t.Helper()
	batch, err := record.Build(nil, record.BatchHeader{BaseTimestamp: time.Now().UnixMilli(), ProducerID: -1, ProducerEpoch: -1, BaseSequence: -1},
		[]record.Record{{Value: []byte("value")}})
	if err != nil {
		t.Fatal(err)
	}
	return batch
}

// TestDataPathRefusesPartitionsThisNodeDoesNotLead: once the metadata
// gives a partition's leadership to another node, or to none (-1, an
// offline partition), Produce, Fetch, ListOffsets, DeleteRecords and
// WriteTxnMarkers answer NOT_LEADER_OR_FOLLOWER for it, as Kafka's
// ReplicaManager does (Produce v10+ and Fetch v16+ naming the metadata's
// leader and epoch, KIP-951), and still serve the partition this node leads.
func TestDataPathRefusesPartitionsThisNodeDoesNotLead(t *testing.T) {
	for _, leader := range []int32{metadata.NoLeader, 2} {
		f := newTxnFixture(t)
		f.createTopic("t", 2, nil)
		f.produce("t", 0, 3, 0)
		f.produce("t", 1, 3, 0)
		f.moveLeader("t", 0, leader)
		notLeader := kerr.NotLeaderForPartition.Code

		if code := produceOne(t, f.b, "t", 1); code != notLeader {
			t.Errorf("leader %d: produce answered %d, want NOT_LEADER_OR_FOLLOWER", leader, code)
		}
		req10 := newProduceRequest("t", 0, 1, nil, oneRecordBatch(t))
		req10.SetVersion(10)
		out := f.b.Handle(context.Background(), Lookup(0), &Request{Header: wireHeader(0, 10), Body: req10, Conn: &Conn{ListenerName: "PLAINTEXT"}})
		p10 := out.Response.(*kmsg.ProduceResponse).Topics[0].Partitions[0]
		tp, _ := f.store.Image().Topic("t")
		if p10.ErrorCode != notLeader || p10.CurrentLeader.LeaderID != leader || p10.CurrentLeader.LeaderEpoch != tp.Partitions[0].LeaderEpoch {
			t.Errorf("leader %d: produce v10 answered %d with current leader %+v", leader, p10.ErrorCode, p10.CurrentLeader)
		}
		if f.log("t", 0).HighWatermark() != 3 {
			t.Errorf("leader %d: produce appended to a partition this node does not lead", leader)
		}

		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		req := fetchRequest("t", 0, 0, 0, 0)
		other := req.Topics[0].Partitions[0]
		other.Partition = 1
		req.Topics[0].Partitions = append(req.Topics[0].Partitions, other)
		req.Topics[0].TopicID = tp.ID
		for _, v := range []int16{12, 16} {
			for _, p := range f.fetchOn(ctx, req, v).Topics[0].Partitions {
				if want := map[int32]int16{0: notLeader, 1: 0}[p.Partition]; p.ErrorCode != want {
					t.Errorf("leader %d: fetch v%d of partition %d answered %d, want %d", leader, v, p.Partition, p.ErrorCode, want)
				}
				// KIP-951: from v16 the metadata's leader goes with the error.
				want := kmsg.NewFetchResponseTopicPartitionCurrentLeader()
				if v >= 16 && p.Partition == 0 {
					want.LeaderID, want.LeaderEpoch = leader, tp.Partitions[0].LeaderEpoch
				}
				if p.CurrentLeader.LeaderID != want.LeaderID || p.CurrentLeader.LeaderEpoch != want.LeaderEpoch {
					t.Errorf("leader %d: fetch v%d of partition %d named current leader %+v, want %+v", leader, v, p.Partition, p.CurrentLeader, want)
				}
			}
		}
		cancel()

		lo := kmsg.NewPtrListOffsetsRequest()
		lt := kmsg.NewListOffsetsRequestTopic()
		lt.Topic = "t"
		lp := kmsg.NewListOffsetsRequestTopicPartition()
		lp.Partition, lp.Timestamp, lp.CurrentLeaderEpoch = 0, latestTimestamp, -1
		lt.Partitions = []kmsg.ListOffsetsRequestTopicPartition{lp}
		lo.Topics = []kmsg.ListOffsetsRequestTopic{lt}
		if got := f.call(lo, 7).(*kmsg.ListOffsetsResponse).Topics[0].Partitions[0]; got.ErrorCode != notLeader || got.Offset != -1 {
			t.Errorf("leader %d: list offsets answered %d (offset %d), want NOT_LEADER_OR_FOLLOWER", leader, got.ErrorCode, got.Offset)
		}

		if got := deleteRecords(f.adminFixture, "t", map[int32]int64{0: 1})[0]; got.ErrorCode != notLeader || got.LowWatermark != -1 {
			t.Errorf("leader %d: delete records answered %d (low watermark %d), want NOT_LEADER_OR_FOLLOWER", leader, got.ErrorCode, got.LowWatermark)
		}
		if start := f.log("t", 0).LogStartOffset(); start != 0 {
			t.Errorf("leader %d: delete records moved the log start to %d", leader, start)
		}

		if got := writeMarkers(f, 7000, 0, false, 0, "t", 0, 1); got[0].ErrorCode != notLeader || got[1].ErrorCode != 0 {
			t.Errorf("leader %d: markers answered %d and %d, want NOT_LEADER_OR_FOLLOWER and none", leader, got[0].ErrorCode, got[1].ErrorCode)
		}

		if leader == metadata.NoLeader {
			// A leaderless partition whose log dir is healthy: Kafka's
			// KRaftMetadataCache answers LEADER_NOT_AVAILABLE (no alive
			// leader), leader -1 and no offline replica.
			md := kmsg.NewPtrMetadataRequest()
			mt := kmsg.NewMetadataRequestTopic()
			mt.Topic = kmsg.StringPtr("t")
			md.Topics = append(md.Topics, mt)
			for _, p := range f.call(md, 12).(*kmsg.MetadataResponse).Topics[0].Partitions {
				want := map[int32]int16{0: kerr.LeaderNotAvailable.Code, 1: 0}[p.Partition]
				if p.ErrorCode != want || (p.Leader == -1) != (p.Partition == 0) || len(p.OfflineReplicas) != 0 {
					t.Errorf("metadata of partition %d: error %d, leader %d, offline %v; want error %d", p.Partition, p.ErrorCode, p.Leader, p.OfflineReplicas, want)
				}
			}
		}
	}
}
