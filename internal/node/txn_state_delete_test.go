package node

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/karst-broker/karst/internal/metadata"
)

// TestDeletingTheTransactionStateTopicForgetsItsTransactions deletes
// __transaction_state, as Kafka 4.4 allows: the transactional id is
// forgotten, in memory too; the same id then starts over with a new
// producer id on a topic created again, its transaction commits, and a
// restart finds the new state and both committed records.
func TestDeletingTheTransactionStateTopicForgetsItsTransactions(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	dir := t.TempDir()
	n, cl, adm := startWithOrders(ctx, t, dir)
	addr := n.Addr("PLAINTEXT").String()
	commitOne := func(value string) int64 {
		t.Helper()
		tx, err := kgo.NewClient(kgo.SeedBrokers(addr), kgo.TransactionalID("billing-tx"), kgo.DefaultProduceTopic("orders"))
		if err != nil {
			t.Fatal(err)
		}
		defer tx.Close()
		if err := tx.BeginTransaction(); err != nil {
			t.Fatal(err)
		}
		if err := tx.ProduceSync(ctx, kgo.StringRecord(value)).FirstErr(); err != nil {
			t.Fatal(err)
		}
		if err := tx.EndTransaction(ctx, kgo.TryCommit); err != nil {
			t.Fatal(err)
		}
		id, _, err := tx.ProducerID(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return id
	}
	described := func(adm *kadm.Client) (kadm.DescribedTransaction, error) {
		t.Helper()
		all, err := adm.DescribeTransactions(ctx, "billing-tx")
		if err != nil {
			return kadm.DescribedTransaction{}, err
		}
		d, ok := all["billing-tx"]
		if !ok {
			t.Fatalf("no answer for billing-tx: %+v", all)
		}
		return d, d.Err
	}

	first := commitOne("before")
	if d, err := described(adm); err != nil || d.ProducerID != first {
		t.Fatalf("before the deletion: %+v %v", d, err)
	}
	resp, err := adm.DeleteTopic(ctx, metadata.TransactionStateTopic)
	if err == nil {
		err = resp.Err
	}
	if err != nil {
		t.Fatalf("deleting %s: %v", metadata.TransactionStateTopic, err)
	}
	// The coordinator unloads in the background, as Kafka's resigns.
	for {
		_, err := described(adm)
		if errors.Is(err, kerr.TransactionalIDNotFound) {
			break
		}
		if ctx.Err() != nil {
			t.Fatalf("billing-tx after its topic was deleted: %v, want TRANSACTIONAL_ID_NOT_FOUND", err)
		}
		time.Sleep(10 * time.Millisecond)
	}
	second := commitOne("after")
	if second == first {
		t.Fatalf("the id kept producer id %d after its state was deleted", first)
	}
	stopTestNode(t, n, cl)

	n, cl = startTestNode(t, dir, oneOffsetsPartition)
	defer stopTestNode(t, n, cl)
	adm = kadm.NewClient(cl)
	if d, err := described(adm); err != nil || d.ProducerID != second || d.State != "CompleteCommit" {
		t.Fatalf("after a restart: %+v %v, want producer %d CompleteCommit", d, err, second)
	}
	read, err := kgo.NewClient(kgo.SeedBrokers(n.Addr("PLAINTEXT").String()), kgo.ConsumeTopics("orders"),
		kgo.FetchIsolationLevel(kgo.ReadCommitted()), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	if err != nil {
		t.Fatal(err)
	}
	defer read.Close()
	var got []string
	for len(got) < 2 {
		fetches := read.PollFetches(ctx)
		if err := ctx.Err(); err != nil {
			t.Fatalf("read %q before the deadline", got)
		}
		fetches.EachRecord(func(r *kgo.Record) { got = append(got, string(r.Value)) })
	}
	if got[0] != "before" || got[1] != "after" || len(got) != 2 {
		t.Fatalf("committed records %q, want [before after]", got)
	}
}
