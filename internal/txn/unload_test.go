package txn

import (
	"testing"

	"github.com/twmb/franz-go/pkg/kerr"
)

// TestUnloadForgetsEveryTransactionalID: after the topic is deleted and
// Unload runs, an id is unknown, the completion held back for it writes
// nothing, and a new InitProducerId starts it over with a new producer id.
func TestUnloadForgetsEveryTransactionalID(t *testing.T) {
	f := newFixture(t)
	pe := f.init("a", 60000)
	f.add("a", pe, tp("t", 0))
	f.q.setHold(true)
	f.end("a", pe, true)
	old := f.store.logs().Partition(f.c.PartitionFor("a"))
	written := len(old.Entries())

	f.store.deleteTopic()
	f.c.Unload()
	if _, err := f.c.Describe("a"); err == nil {
		t.Fatal("the unloaded id is still described")
	}
	wantErr(t, "commit of the unloaded transaction", f.c.EndTxn(ctx, "a", pe.ProducerID, pe.ProducerEpoch, true), kerr.InvalidProducerIDMapping)
	f.q.setHold(false)
	f.q.run()
	if got := f.markers.take(); len(got) != 0 {
		t.Fatalf("markers written for an unloaded transaction: %+v", got)
	}
	if n := len(old.Entries()); n != written {
		t.Fatalf("%d state records written to the deleted topic after Unload", n-written)
	}
	if n := len(f.store.records()); n != 0 {
		t.Fatalf("%d state records of the unloaded transaction written to the new topic", n)
	}
	again := f.init("a", 60000)
	if again.ProducerID == pe.ProducerID {
		t.Fatalf("re-init after Unload kept producer id %d", pe.ProducerID)
	}
	if d := f.state("a"); d.State != Empty {
		t.Fatalf("after re-init: %+v", d)
	}
}
