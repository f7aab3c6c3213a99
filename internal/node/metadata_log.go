package node

import (
	"context"
	"errors"
	"fmt"
	"time"

	klog "github.com/karst-broker/karst/internal/log"
	"github.com/karst-broker/karst/internal/metadata"
	"github.com/karst-broker/karst/internal/record"
)

// metadataLogPartition is where KRaft keeps the cluster metadata.
var metadataLogPartition = klog.TopicPartition{Topic: metadata.ClusterMetadataTopic, Partition: 0}

// metadataRaftEpoch is the leader epoch stamped on metadata batches. A
// single node is the only voter and never changes leader.
const metadataRaftEpoch = 1

// metadataLog stores metadata records in the __cluster_metadata-0 log as
// uncompressed record batches, one batch per commit, durable before the
// commit returns.
type metadataLog struct {
	log *klog.Log
	now func() time.Time
}

func (m *metadataLog) AppendRecords(values [][]byte) error {
	records := make([]metadata.BatchRecord, len(values))
	for i, v := range values {
		records[i].Value = v
	}
	batch := metadata.BuildBatch(metadata.BatchHeader{LeaderEpoch: metadataRaftEpoch, Timestamp: m.now().UnixMilli()}, records)
	res, err := m.log.Append(batch, klog.AppendOptions{Origin: klog.FromCoordinator, LeaderEpoch: metadataRaftEpoch})
	if err != nil {
		return fmt.Errorf("appending to %s: %w", metadataLogPartition, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	return m.log.WaitDurable(ctx, res.LastOffset)
}

// readChunk is how much of the metadata log is read at a time on replay.
const readChunk = 1 << 20

func (m *metadataLog) ReadAll(fn func(value []byte) error) error {
	var buf []byte
	offset := m.log.LogStartOffset()
	for offset < m.log.HighWatermark() {
		data, _, err := m.log.ReadBytes(buf, offset, readChunk, true)
		if err != nil {
			return err
		}
		complete, next := wholeBatches(data)
		if len(complete) == 0 {
			return fmt.Errorf("%s: no whole batch at offset %d", metadataLogPartition, offset)
		}
		if err := metadata.ForEachMetadataRecord(complete, fn); err != nil && !errors.Is(err, metadata.ErrBatchTruncated) {
			return err
		}
		offset = next
		buf = data
	}
	return nil
}

// wholeBatches trims a read to its complete batches (a read may end inside
// one) and returns the offset after the last of them.
func wholeBatches(data []byte) ([]byte, int64) {
	sp := record.NewSplitter(data, 0)
	sp.SkipCRC = true
	next := int64(-1)
	for {
		b, err := sp.Next()
		if err != nil || b == nil {
			return data[:sp.Pos()], next
		}
		next = b.NextOffset()
	}
}
