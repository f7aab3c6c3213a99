package integration

// The transaction coordinator end to end with franz-go: commit and abort
// reach every partition as markers, read_uncommitted consumers see the
// records and their markers in place, and a second producer with the
// same transactional id fences the first.

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/karst-broker/karst/internal/config"
	"github.com/karst-broker/karst/internal/node"
	"github.com/karst-broker/karst/karsttest"
)

func TestTxnCoordinatorCommitAbortAndFence(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	b := karsttest.Start(t)
	adm := kadm.NewClient(txnCoordClient(t, kgo.SeedBrokers(b.Addr())))
	if _, err := adm.CreateTopic(ctx, 2, 1, nil, "tc"); err != nil {
		t.Fatal(err)
	}
	p := txnCoordClient(t, kgo.SeedBrokers(b.Addr()), kgo.TransactionalID("tc-1"),
		kgo.DefaultProduceTopic("tc"), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	for i, commit := range []kgo.TransactionEndTry{kgo.TryCommit, kgo.TryAbort, kgo.TryCommit} {
		if err := p.BeginTransaction(); err != nil {
			t.Fatal(err)
		}
		for part := int32(0); part < 2; part++ {
			r := &kgo.Record{Value: []byte{byte('a' + i)}, Partition: part}
			if err := p.ProduceSync(ctx, r).FirstErr(); err != nil {
				t.Fatalf("transaction %d: %v", i, err)
			}
		}
		if err := p.EndTransaction(ctx, commit); err != nil {
			t.Fatalf("transaction %d: end: %v", i, err)
		}
	}
	// Each partition: a, commit, b, abort, c, commit.
	txnCoordWait(t, ctx, "markers in every partition", func() bool {
		ends, err := adm.ListEndOffsets(ctx, "tc")
		if err != nil {
			return false
		}
		for part := int32(0); part < 2; part++ {
			if o, ok := ends.Lookup("tc", part); !ok || o.Offset != 6 {
				return false
			}
		}
		return true
	})
	txnCoordWait(t, ctx, "CompleteCommit", func() bool {
		txns, err := adm.DescribeTransactions(ctx, "tc-1")
		if err != nil {
			return false
		}
		d, err := txns.On("tc-1", nil)
		return err == nil && d.State == "CompleteCommit"
	})

	// A second instance fences the first.
	p2 := txnCoordClient(t, kgo.SeedBrokers(b.Addr()), kgo.TransactionalID("tc-1"),
		kgo.DefaultProduceTopic("tc"), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	if err := p2.BeginTransaction(); err != nil {
		t.Fatal(err)
	}
	if err := p2.ProduceSync(ctx, &kgo.Record{Value: []byte("z")}).FirstErr(); err != nil {
		t.Fatal(err)
	}
	if err := p.BeginTransaction(); err != nil {
		t.Fatal(err)
	}
	err := p.ProduceSync(ctx, &kgo.Record{Value: []byte("zombie")}).FirstErr()
	if err == nil {
		err = p.EndTransaction(ctx, kgo.TryCommit)
	}
	if !errors.Is(err, kerr.ProducerFenced) && !errors.Is(err, kerr.InvalidProducerEpoch) {
		t.Fatalf("zombie producer: %v", err)
	}
	if err := p2.EndTransaction(ctx, kgo.TryCommit); err != nil {
		t.Fatal(err)
	}
	listed, err := adm.ListTransactions(ctx, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := listed["tc-1"]; !ok {
		t.Fatalf("list: %+v", listed)
	}
}

func txnCoordClient(t *testing.T, opts ...kgo.Opt) *kgo.Client {
	t.Helper()
	cl, err := kgo.NewClient(opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	return cl
}

func txnCoordWait(t *testing.T, ctx context.Context, what string, cond func() bool) {
	t.Helper()
	for !cond() {
		select {
		case <-ctx.Done():
			t.Fatalf("waiting for %s: %v", what, ctx.Err())
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// startTxnNode starts a broker on dataDir (kept across restarts).
func startTxnNode(t *testing.T, dataDir string) *node.Node {
	t.Helper()
	settings, _, err := config.Load("", []string{"listeners=PLAINTEXT://127.0.0.1:0", "log.dirs=" + dataDir,
		"transaction.abort.timed.out.transaction.cleanup.interval.ms=100"})
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := node.ConfigFrom(settings)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	n, err := node.Start(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func stopTxnNode(t *testing.T, n *node.Node) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := n.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
}

// A broker restarted with a transaction open finds it in
// __transaction_state and aborts it at its timeout; a committed one stays
// committed.
func TestTxnCoordinatorRestartAbortsOpenTransaction(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	dir := t.TempDir()
	n := startTxnNode(t, dir)
	addr := n.Addr("PLAINTEXT").String()
	adm := kadm.NewClient(txnCoordClient(t, kgo.SeedBrokers(addr)))
	if _, err := adm.CreateTopic(ctx, 2, 1, nil, "tr"); err != nil {
		t.Fatal(err)
	}
	producer := func(id string) *kgo.Client {
		cl, err := kgo.NewClient(kgo.SeedBrokers(addr), kgo.TransactionalID(id), kgo.TransactionTimeout(3*time.Second),
			kgo.DefaultProduceTopic("tr"), kgo.RecordPartitioner(kgo.ManualPartitioner()))
		if err != nil {
			t.Fatal(err)
		}
		return cl
	}
	done, open := producer("tr-done"), producer("tr-open")
	for _, p := range []*kgo.Client{done, open} {
		if err := p.BeginTransaction(); err != nil {
			t.Fatal(err)
		}
		for part := int32(0); part < 2; part++ {
			if err := p.ProduceSync(ctx, &kgo.Record{Value: []byte("v"), Partition: part}).FirstErr(); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := done.EndTransaction(ctx, kgo.TryCommit); err != nil {
		t.Fatal(err)
	}
	txnCoordWait(t, ctx, "the commit to complete", func() bool {
		d, err := adm.DescribeTransactions(ctx, "tr-done")
		if err != nil {
			return false
		}
		s, err := d.On("tr-done", nil)
		return err == nil && s.State == "CompleteCommit"
	})
	done.Close()
	open.Close()
	stopTxnNode(t, n)

	n = startTxnNode(t, dir)
	defer stopTxnNode(t, n)
	adm = kadm.NewClient(txnCoordClient(t, kgo.SeedBrokers(n.Addr("PLAINTEXT").String())))
	state := func(id string) kadm.DescribedTransaction {
		d, err := adm.DescribeTransactions(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		s, err := d.On(id, nil)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	if s := state("tr-done"); s.State != "CompleteCommit" {
		t.Fatalf("committed transaction after restart: %+v", s)
	}
	if s := state("tr-open"); s.State != "Ongoing" && s.State != "PrepareAbort" && s.State != "CompleteAbort" {
		t.Fatalf("open transaction after restart: %+v", s)
	}
	txnCoordWait(t, ctx, "the open transaction to be aborted", func() bool {
		return state("tr-open").State == "CompleteAbort"
	})
	// Each partition: done's record, open's record, done's commit
	// marker, open's abort marker.
	ends, err := adm.ListEndOffsets(ctx, "tr")
	if err != nil {
		t.Fatal(err)
	}
	for part := int32(0); part < 2; part++ {
		if o, _ := ends.Lookup("tr", part); o.Offset != 4 {
			t.Fatalf("tr-%d ends at %d", part, o.Offset)
		}
	}
}
