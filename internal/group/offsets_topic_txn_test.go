package group

import (
	"context"
	"errors"
	"testing"

	"github.com/twmb/franz-go/pkg/kerr"

	klog "github.com/karst-broker/karst/internal/log"
	"github.com/karst-broker/karst/internal/metadata"
	"github.com/karst-broker/karst/internal/record"
	"github.com/karst-broker/karst/internal/storage"
)

// writeMarker writes a transaction marker into the group's partition of
// __consumer_offsets, as the transaction coordinator does.
func writeMarker(t *testing.T, store *metadata.Store, logs *storage.Manager, group string, pid int64, epoch int16, commit bool) {
	t.Helper()
	tp, _ := store.Image().Topic(metadata.ConsumerOffsetsTopic)
	p := PartitionFor(group, int32(len(tp.Partitions)))
	part, ok := logs.Get(metadata.ConsumerOffsetsTopic, p)
	if !ok {
		t.Fatal("partition not open")
	}
	typ := record.ControlAbort
	if commit {
		typ = record.ControlCommit
	}
	batch := record.BuildMarker(nil, record.Marker{ProducerID: pid, ProducerEpoch: epoch, CoordinatorEpoch: 0, Type: typ, Timestamp: 1})
	if _, err := part.Log.Append(batch, klog.AppendOptions{Origin: klog.FromCoordinator}); err != nil {
		t.Fatalf("marker: %v", err)
	}
}

func TestOffsetsTopicTransactionsAcrossRestart(t *testing.T) {
	dir := t.TempDir()
	records := &metadata.MemoryLog{}
	store, mgr := openBroker(t, dir, records)
	topic := NewOffsetsTopic(store, mgr, 3, 0)
	clock := &fakeClock{}
	c := New(testConfig(), Options{Clock: clock, Store: topic})
	mustTxnCommit(t, c, txnCommit("committed", 7, 0, 10))
	mustTxnCommit(t, c, txnCommit("aborted", 8, 0, 10))
	mustTxnCommit(t, c, txnCommit("open", 9, 2, 10))
	writeMarker(t, store, mgr, "committed", 7, 0, true)
	c.CompleteTransaction(7, 0, true)
	writeMarker(t, store, mgr, "aborted", 8, 0, false)
	c.CompleteTransaction(8, 0, false)
	// The log fences an older epoch of the producer: at once, or, when
	// the batch waited behind another of the partition, when its wait
	// ends (TxnOffsetCommit answers the same).
	top, _, wait := c.CommitTransactionalOffsets(txnCommit("open", 9, 1, 11))
	if top == nil {
		if err := wait(context.Background()); !errors.Is(err, kerr.InvalidProducerEpoch) {
			t.Fatalf("the fenced batch's wait ended with %v", err)
		}
	} else {
		wantErr(t, top, kerr.InvalidProducerEpoch)
	}
	_, errs, wait := c.CommitOffsets(commit("plain", "", -1, 5))
	if errs[0] != nil || wait(context.Background()) != nil {
		t.Fatal(errs)
	}
	if err := mgr.Close(); err != nil {
		t.Fatal(err)
	}

	store, mgr = openBroker(t, dir, records)
	defer mgr.Close()
	topic = NewOffsetsTopic(store, mgr, 3, 0)
	c2 := New(testConfig(), Options{Clock: clock, Store: topic})
	if skipped, err := c2.LoadAll(); err != nil || skipped != 0 {
		t.Fatalf("load: %d skipped, %v", skipped, err)
	}
	wantOffsets(t, c2, "committed", 10)
	wantOffsets(t, c2, "aborted", -1)
	wantOffsets(t, c2, "open", -1)
	wantOffsets(t, c2, "plain", 5)
	if u := unstable(c2, "open", 1); !u[0] {
		t.Fatal("open transaction not pending after restart")
	}
	writeMarker(t, store, mgr, "open", 9, 3, true)
	c2.CompleteTransaction(9, 3, true)
	wantOffsets(t, c2, "open", 10)
}
