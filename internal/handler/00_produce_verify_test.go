package handler

import (
	"context"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	klog "github.com/karst-broker/karst/internal/log"
	"github.com/karst-broker/karst/internal/record"
	"github.com/karst-broker/karst/internal/txn"
)

// fakeVerifier answers transaction verifications as told; during, if
// set, runs inside the call, as whatever the coordinator does meanwhile.
type fakeVerifier struct {
	calls  []txn.VerifyRequest
	answer error
	during func()
}

func (v *fakeVerifier) VerifyTransaction(_ context.Context, req txn.VerifyRequest) ([]error, error) {
	v.calls = append(v.calls, req)
	if v.during != nil {
		v.during()
	}
	per := make([]error, len(req.Partitions))
	for i := range per {
		per[i] = v.answer
	}
	return per, nil
}

// TestProduceVerifiesThroughTheVerifier: Produce asks the Verifier
// (Kafka's AddPartitionsToTxnManager) before a transaction's first write
// to a partition and not again while it is open there; a partition the
// coordinator does not verify is INVALID_TXN_STATE, and so is a verified
// batch whose transaction ended (a marker) before it was written.
func TestProduceVerifiesThroughTheVerifier(t *testing.T) {
	f := newAdminFixture(t, nil)
	f.createTopic("t", 1, nil)
	v := &fakeVerifier{}
	opts := f.b.opts
	opts.TxnVerifier = v
	b := NewBroker(opts)
	const pid, epoch = 4000, 0
	seq := int32(0)
	produce := func() int16 {
		t.Helper()
		batch, err := record.Build(nil, record.BatchHeader{ProducerID: pid, ProducerEpoch: epoch, BaseSequence: seq,
			Attributes: record.TransactionalBit, BaseTimestamp: time.Now().UnixMilli()}, []record.Record{{Value: []byte("v")}})
		if err != nil {
			t.Fatal(err)
		}
		id := "tx"
		req := newProduceRequest("t", 0, -1, &id, batch)
		req.SetVersion(9)
		out := b.Handle(context.Background(), Lookup(0), &Request{Header: wireHeader(0, 9), Body: req, Conn: &Conn{ListenerName: "PLAINTEXT"}})
		resp := out.Response
		if out.Later != nil {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			resp = out.Later(ctx)
			cancel()
		}
		code := resp.(*kmsg.ProduceResponse).Topics[0].Partitions[0].ErrorCode
		if code == 0 {
			seq++
		}
		return code
	}
	marker := func(typ record.ControlType) {
		t.Helper()
		m := record.Marker{ProducerID: pid, ProducerEpoch: epoch, Type: typ, Timestamp: time.Now().UnixMilli()}
		if _, err := f.log("t", 0).Append(record.BuildMarker(nil, m), klog.AppendOptions{Origin: klog.FromCoordinator, LeaderEpoch: -1}); err != nil {
			t.Fatal(err)
		}
	}

	v.answer = kerr.TransactionAbortable
	if code := produce(); code != kerr.InvalidTxnState.Code {
		t.Fatalf("a partition not in the transaction: error %d, want INVALID_TXN_STATE", code)
	}
	if leo := f.log("t", 0).LogEndOffset(); leo != 0 {
		t.Fatalf("%d records written without verification", leo)
	}
	v.answer = nil
	if code := produce(); code != 0 {
		t.Fatalf("a verified partition: error %d", code)
	}
	if code := produce(); code != 0 {
		t.Fatalf("a second batch of the open transaction: error %d", code)
	}
	if len(v.calls) != 2 {
		t.Fatalf("%d verifications, want 2 (none once the transaction is open in the partition)", len(v.calls))
	}
	if c := v.calls[1]; c.TransactionalID != "tx" || c.ProducerID != pid || c.ProducerEpoch != epoch || len(c.Partitions) != 1 || c.Add {
		t.Fatalf("verification asked %+v", c)
	}

	// The transaction commits; the next one's verification is answered,
	// but the coordinator aborts it before the batch is written.
	marker(record.ControlCommit)
	v.during = func() { marker(record.ControlAbort) }
	end := f.log("t", 0).LogEndOffset()
	if code := produce(); code != kerr.InvalidTxnState.Code {
		t.Fatalf("a batch verified before its transaction's marker: error %d, want INVALID_TXN_STATE", code)
	}
	if leo := f.log("t", 0).LogEndOffset(); leo != end+1 {
		t.Fatalf("log end %d, want %d (the abort marker only)", leo, end+1)
	}
}
