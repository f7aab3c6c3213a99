package handler

import (
	"testing"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/karst-broker/karst/internal/record"
)

func writeMarkers(f *txnFixture, pid int64, epoch int16, commit bool, coordinatorEpoch int32, topic string, parts ...int32) []kmsg.WriteTxnMarkersResponseMarkerTopicPartition {
	return writeMarkersAt(f, 1, 0, pid, epoch, commit, coordinatorEpoch, topic, parts...)
}

// writeMarkersAt sends WriteTxnMarkers at version v; from v2 the marker
// carries transaction version tv.
func writeMarkersAt(f *txnFixture, v int16, tv int8, pid int64, epoch int16, commit bool, coordinatorEpoch int32, topic string, parts ...int32) []kmsg.WriteTxnMarkersResponseMarkerTopicPartition {
	req := kmsg.NewPtrWriteTxnMarkersRequest()
	m := kmsg.NewWriteTxnMarkersRequestMarker()
	m.ProducerID, m.ProducerEpoch, m.Committed, m.CoordinatorEpoch = pid, epoch, commit, coordinatorEpoch
	m.TransactionVersion = tv
	mt := kmsg.NewWriteTxnMarkersRequestMarkerTopic()
	mt.Topic, mt.Partitions = topic, parts
	m.Topics = []kmsg.WriteTxnMarkersRequestMarkerTopic{mt}
	req.Markers = []kmsg.WriteTxnMarkersRequestMarker{m}
	resp := f.do(req, v).(*kmsg.WriteTxnMarkersResponse)
	if len(resp.Markers) != 1 || resp.Markers[0].ProducerID != pid || len(resp.Markers[0].Topics) != 1 {
		f.t.Fatalf("answer %+v", resp.Markers)
	}
	return resp.Markers[0].Topics[0].Partitions
}

// TestWriteTxnMarkersEndsAHangingTransaction: what kafka-transactions
// abort sends for a transaction the coordinator no longer knows: the
// abort marker ends it in the log, the LSO moves past it, and it is
// listed as aborted for read_committed readers.
func TestWriteTxnMarkersEndsAHangingTransaction(t *testing.T) {
	f := newTxnFixture(t)
	f.createTopic("t", 1, nil)
	f.appendTxnForFetch("t", 7000, 3, 2)
	l := f.log("t", 0)
	if lso := l.LastStableOffset(); lso != 0 {
		t.Fatalf("LSO %d with the transaction open, want 0", lso)
	}
	out := writeMarkers(f, 7000, 3, false, 5, "t", 0, 9)
	if out[0].Partition != 0 || out[0].ErrorCode != 0 {
		t.Fatalf("partition 0: %+v", out[0])
	}
	if out[1].Partition != 9 || out[1].ErrorCode != kerr.UnknownTopicOrPartition.Code {
		t.Fatalf("partition 9: %+v", out[1])
	}
	if lso, leo := l.LastStableOffset(), l.LogEndOffset(); lso != leo || leo != 3 {
		t.Fatalf("after the abort marker LSO %d, log end %d; want both 3", lso, leo)
	}
	if aborted := l.AbortedTransactions(0, 3); len(aborted) != 1 || aborted[0].ProducerID != 7000 {
		t.Fatalf("aborted transactions %+v", aborted)
	}
	data, _, err := l.ReadBytes(nil, 2, 1<<20, true)
	if err != nil {
		t.Fatal(err)
	}
	b, _, err := record.ParseBatch(data, len(data))
	if err != nil {
		t.Fatal(err)
	}
	if m, err := record.ParseMarker(b); err != nil || m.Type != record.ControlAbort || m.CoordinatorEpoch != 5 {
		t.Fatalf("marker %+v, %v", m, err)
	}
	// A marker of an older coordinator epoch is fenced.
	f.appendTxnForFetch("t", 7000, 4, 1)
	if out := writeMarkers(f, 7000, 4, true, 4, "t", 0); out[0].ErrorCode != kerr.TransactionCoordinatorFenced.Code {
		t.Fatalf("older coordinator epoch: %+v", out[0])
	}
	if out := writeMarkers(f, 7000, 2, true, 5, "nope", 0); out[0].ErrorCode != kerr.UnknownTopicOrPartition.Code {
		t.Fatalf("unknown topic: %+v", out[0])
	}
}

// TestWriteTxnMarkersV2TransactionVersion: v2 markers carry their
// transaction version (KIP-1228); under 2 the marker must come with a
// newer producer epoch than the transaction's, as the coordinator bumps
// it, while v1's legacy marker may reuse it.
func TestWriteTxnMarkersV2TransactionVersion(t *testing.T) {
	f := newTxnFixture(t)
	f.createTopic("t", 1, nil)
	f.appendTxnForFetch("t", 7100, 3, 2)
	if out := writeMarkersAt(f, 2, 2, 7100, 3, true, 0, "t", 0); out[0].ErrorCode != kerr.InvalidProducerEpoch.Code {
		t.Fatalf("transaction version 2 marker with the transaction's epoch: %+v, want INVALID_PRODUCER_EPOCH", out[0])
	}
	if out := writeMarkersAt(f, 2, 2, 7100, 4, true, 0, "t", 0); out[0].ErrorCode != 0 {
		t.Fatalf("transaction version 2 marker with a bumped epoch: %+v", out[0])
	}
	f.appendTxnForFetch("t", 7101, 3, 2)
	if out := writeMarkersAt(f, 1, 2, 7101, 3, true, 0, "t", 0); out[0].ErrorCode != 0 {
		t.Fatalf("v1 marker (no transaction version on the wire) with the transaction's epoch: %+v", out[0])
	}
}
