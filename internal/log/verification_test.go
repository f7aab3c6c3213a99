package log

import (
	"errors"
	"testing"

	"github.com/karst-broker/karst/internal/record"
)

// A transaction's first batch in a partition lands only with the guard
// taken before its verification, and only while no marker of the
// producer came in between (Kafka's UnifiedLog verification guard); once
// the transaction is open here, its batches need none.
func TestTransactionVerificationGuard(t *testing.T) {
	l := openTest(t, t.TempDir(), testConfig())
	defer l.Close()
	const pid, epoch = 7, 0
	verified := func(g VerificationGuard) AppendOptions {
		return AppendOptions{Origin: FromClient, LeaderEpoch: 0, VerifyTransaction: true, VerificationGuard: g}
	}

	if _, err := l.Append(makeTxnBatch(t, 1, 1, pid, epoch, 0), verified(0)); !errors.Is(err, ErrInvalidTxnState) {
		t.Fatalf("a first batch without a guard: %v, want ErrInvalidTxnState", err)
	}
	start := func() VerificationGuard {
		t.Helper()
		g, err := l.StartTransactionVerification(pid, epoch, false)
		if err != nil {
			t.Fatal(err)
		}
		return g
	}
	stale := start()
	if stale == 0 {
		t.Fatal("no guard for a producer with no open transaction")
	}
	if again := start(); again != stale {
		t.Fatalf("a second verification before any write: guard %d, want the same %d", again, stale)
	}
	// The coordinator ends the transaction (an abort marker) between the
	// verification and the write: the verified batch must not open a
	// transaction nobody will end.
	mustMarker(t, l, pid, epoch, record.ControlAbort)
	if _, err := l.Append(makeTxnBatch(t, 1, 1, pid, epoch, 0), verified(stale)); !errors.Is(err, ErrInvalidTxnState) {
		t.Fatalf("a batch verified before a marker: %v, want ErrInvalidTxnState", err)
	}

	g := start()
	if g == 0 || g == stale {
		t.Fatalf("a new verification after the marker: guard %d (stale %d), want a new one", g, stale)
	}
	if _, err := l.Append(makeTxnBatch(t, 1, 1, pid, epoch, 0), verified(g)); err != nil {
		t.Fatalf("a verified first batch: %v", err)
	}
	if open := start(); open != 0 {
		t.Fatalf("with the transaction open here: guard %d, want none", open)
	}
	if _, err := l.Append(makeTxnBatch(t, 1, 1, pid, epoch, 1), verified(0)); err != nil {
		t.Fatalf("a later batch of the open transaction: %v", err)
	}
	mustMarker(t, l, pid, epoch, record.ControlCommit)
	if _, err := l.Append(makeTxnBatch(t, 1, 1, pid, epoch, 2), verified(g)); !errors.Is(err, ErrInvalidTxnState) {
		t.Fatalf("the used guard after the commit: %v, want ErrInvalidTxnState", err)
	}
	// Appends that do not ask for verification are as before.
	if _, err := l.Append(makeTxnBatch(t, 1, 1, pid, epoch, 2), AppendOptions{Origin: FromClient, LeaderEpoch: 0}); err != nil {
		t.Fatalf("an unverified append: %v", err)
	}
}

// Under transaction version 2 the producer's next transaction has the
// epoch its previous one's marker carries: that marker does not end the
// next one's verification, as in Kafka 4.4; a batch of the new epoch is
// not part of the previous transaction still open here.
func TestTransactionVerificationAcrossAnEpochBump(t *testing.T) {
	l := openTest(t, t.TempDir(), testConfig())
	defer l.Close()
	const pid = 9
	verified := func(g VerificationGuard) AppendOptions {
		return AppendOptions{Origin: FromClient, LeaderEpoch: 0, VerifyTransaction: true, VerificationGuard: g}
	}
	g0, err := l.StartTransactionVerification(pid, 0, true)
	if err != nil || g0 == 0 {
		t.Fatalf("first verification: %d, %v", g0, err)
	}
	if _, err := l.Append(makeTxnBatch(t, 1, 1, pid, 0, 0), verified(g0)); err != nil {
		t.Fatal(err)
	}
	// The next transaction (epoch 1) starts writing before the marker of
	// the first, which carries epoch 1, lands.
	g1, err := l.StartTransactionVerification(pid, 1, true)
	if err != nil || g1 == 0 {
		t.Fatalf("a new epoch while the old transaction is open: guard %d, %v; want one", g1, err)
	}
	if _, err := appendMarker(l, pid, 1, 0, record.ControlCommit, 2); err != nil {
		t.Fatal(err)
	}
	if _, err := l.Append(makeTxnBatch(t, 1, 1, pid, 1, 0), verified(g1)); err != nil {
		t.Fatalf("the verified batch of the next transaction after the previous marker: %v", err)
	}
	if _, err := l.StartTransactionVerification(pid, 0, true); !errors.Is(err, ErrInvalidProducerEpoch) {
		t.Fatalf("an older epoch: %v, want ErrInvalidProducerEpoch", err)
	}
}
