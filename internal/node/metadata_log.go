package node

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"

	klog "github.com/karst-broker/karst/internal/log"
	"github.com/karst-broker/karst/internal/metadata"
	"github.com/karst-broker/karst/internal/record"
)

// metadataLogPartition is where KRaft keeps the cluster metadata.
var metadataLogPartition = klog.TopicPartition{Topic: metadata.ClusterMetadataTopic, Partition: 0}

// metadataLog stores metadata records in the __cluster_metadata-0 log as
// uncompressed record batches, one batch per commit, durable before the
// commit returns. It behaves as the KRaft leader of a single-voter quorum:
// the first append of a process starts a new raft epoch (see raft.go) so
// that the log reads to Apache Kafka as if a Kafka controller had written
// it, and Karst can continue a log Kafka wrote.
type metadataLog struct {
	log *klog.Log
	now func() time.Time

	// Learned by ReadAll.
	lastEpoch int32 // highest partitionLeaderEpoch of any batch or snapshot read
	// kraftVersion is the last KRaftVersionRecord's level and voters the
	// last VotersRecord, read or written; an upgrade changes them while
	// ApiVersions and DescribeQuorum read them.
	kraftVersion atomic.Int32
	voters       atomic.Pointer[metadata.VotersRecord]
	readRecords  int // data records read (0: the log was empty)

	// directoryID is the log dir's directory.id, the voter's directory id
	// under kraft.version 1.
	directoryID metadata.UUID
	// nodeID is this voter's id; controllerEndpoints its listeners as the
	// config names them (see controllerEndpoints), written into the
	// VotersRecord of a kraft.version upgrade.
	nodeID              int32
	controllerEndpoints atomic.Pointer[[]metadata.VoterEndpoint]

	// epoch is this process's raft epoch once it has appended; 0 before.
	// Written under the store's lock, read by DescribeQuorum at any time.
	epoch atomic.Int32
}

func (m *metadataLog) AppendRecords(values [][]byte) error {
	if m.epoch.Load() == 0 {
		if err := m.becomeLeader(); err != nil {
			return fmt.Errorf("%s: starting a raft epoch: %w", metadataLogPartition, err)
		}
	}
	records := make([]metadata.BatchRecord, len(values))
	for i, v := range values {
		records[i].Value = v
	}
	batch := metadata.BuildBatch(metadata.BatchHeader{LeaderEpoch: m.epoch.Load(), Timestamp: m.now().UnixMilli()}, records)
	return m.appendDurably(batch)
}

func (m *metadataLog) appendDurably(batch []byte) error {
	res, err := m.log.Append(batch, klog.AppendOptions{Origin: klog.FromCoordinator, LeaderEpoch: m.epoch.Load()})
	if err != nil {
		return fmt.Errorf("appending to %s: %w", metadataLogPartition, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	return m.log.WaitDurable(ctx, res.LastOffset)
}

// LastOffset is the offset of the log's last record, control batches
// included, as Kafka numbers the metadata log.
func (m *metadataLog) LastOffset() int64 { return m.log.LogEndOffset() - 1 }

// KRaftVersion is the kraft.version of the KRaftVersionRecords read.
func (m *metadataLog) KRaftVersion() int16 { return int16(m.kraftVersion.Load()) }

// readChunk is how much of the metadata log is read at a time on replay.
const readChunk = 1 << 20

// ReadAll replays what Kafka's metadata loader would: the newest snapshot
// in the log dir (if any), then the log from the snapshot's end offset.
func (m *metadataLog) ReadAll(fn func(value []byte) error) error {
	from := m.log.LogStartOffset()
	snap, ok, err := latestSnapshot(m.log.Dir(), from, m.log.LogEndOffset())
	if err != nil {
		return err
	}
	if ok {
		if err := m.readSnapshot(snap, fn); err != nil {
			return err
		}
		from = snap.endOffset
	} else if from > 0 {
		return fmt.Errorf("%s starts at offset %d but no snapshot covers the records before it", metadataLogPartition, from)
	}
	return m.readLog(from, fn)
}

func (m *metadataLog) readLog(from int64, fn func(value []byte) error) error {
	var buf []byte
	offset := from
	for offset < m.log.HighWatermark() {
		data, _, err := m.log.ReadBytes(buf, offset, readChunk, true)
		if err != nil {
			return err
		}
		complete, next := wholeBatches(data)
		if len(complete) == 0 {
			return fmt.Errorf("%s: no whole batch at offset %d", metadataLogPartition, offset)
		}
		if err := m.replayBatches(complete, from, fn); err != nil {
			return fmt.Errorf("%s at offset %d: %w", metadataLogPartition, offset, err)
		}
		offset = next
		buf = data
	}
	return nil
}

// replayBatches calls fn for each data record at or after offset from and
// notes raft state (epochs, kraft.version) from every batch.
func (m *metadataLog) replayBatches(data []byte, from int64, fn func(value []byte) error) error {
	for len(data) > 0 {
		b, rest, err := metadata.ParseBatch(data)
		if err != nil {
			return err
		}
		data = rest
		m.lastEpoch = max(m.lastEpoch, b.LeaderEpoch)
		if b.Control {
			m.noteControl(b)
			continue
		}
		for i, r := range b.Records {
			if b.BaseOffset+int64(i) < from {
				continue
			}
			m.readRecords++
			if err := fn(r.Value); err != nil {
				return err
			}
		}
	}
	return nil
}

// noteControl picks kraft.version and the voter set out of a control
// batch; other control records (LeaderChange, snapshot header/footer)
// need no action.
func (m *metadataLog) noteControl(b metadata.Batch) {
	for _, r := range b.Records {
		t, err := metadata.ParseControlKey(r.Key)
		if err != nil || (t != metadata.ControlKRaftVersion && t != metadata.ControlKRaftVoters) {
			continue
		}
		c, err := metadata.DecodeControl(t, r.Value)
		if err != nil {
			continue
		}
		switch c := c.(type) {
		case *metadata.KRaftVersionRecord:
			m.kraftVersion.Store(int32(c.KRaftVersion))
		case *metadata.VotersRecord:
			m.voters.Store(c)
		}
	}
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
