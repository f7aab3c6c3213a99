package log

import (
	"sync/atomic"

	"github.com/karst-broker/karst/internal/record"
)

// VerificationGuard names one verification of a producer's transaction
// in a partition (Kafka's VerificationGuard). The zero guard is Kafka's
// SENTINEL: no verification.
type VerificationGuard uint64

// lastGuard makes every guard unique, so that a verification answered
// for one transaction cannot pass for the next (the ABA case Kafka's
// UnifiedLog describes).
var lastGuard atomic.Uint64

// verification is a producer's verification in progress (Kafka's
// VerificationStateEntry): created before the transaction coordinator is
// asked, dropped by the producer's next transactional batch or marker.
type verification struct {
	guard VerificationGuard
	// epoch is the newest epoch verified for (Kafka keeps the lowest
	// sequence too, against out-of-order retries; Karst does not).
	epoch int16
	// supportsEpochBump: a transaction version 2 verification, whose
	// transaction has the epoch the previous one's marker carries.
	supportsEpochBump bool
	createdMs         int64
}

// StartTransactionVerification begins the verification of a producer's
// transaction before its first write to the partition, as Kafka 4.4's
// UnifiedLog.maybeStartTransactionVerification: with the producer's
// transaction of that epoch already open here it returns the zero guard
// (nothing to verify: the coordinator cannot end that transaction without
// a marker here); otherwise the guard to pass in AppendOptions once the
// coordinator has verified the partition. A marker written meanwhile
// drops the guard, so the verified batch is refused rather than left
// hanging after its transaction ended; under transaction version 2
// (supportsEpochBump) the marker of the previous transaction, which
// carries the new epoch, does not. An epoch older than the partition's is
// ErrInvalidProducerEpoch.
func (l *Log) StartTransactionVerification(producerID int64, epoch int16, supportsEpochBump bool) (VerificationGuard, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if e := l.producers.producers[producerID]; e != nil {
		if e.epoch != record.NoProducerEpoch && epoch < e.epoch {
			return 0, ErrInvalidProducerEpoch
		}
		if e.openAt(epoch) {
			return 0, nil
		}
	}
	v, ok := l.producers.verifications[producerID]
	if !ok {
		v = verification{guard: VerificationGuard(lastGuard.Add(1)), epoch: epoch, supportsEpochBump: supportsEpochBump,
			createdMs: l.now().UnixMilli()}
	}
	v.epoch = max(v.epoch, epoch)
	l.producers.verifications[producerID] = v
	return v.guard, nil
}

// openAt: the producer's transaction of epoch is open in the partition
// (Kafka's hasOngoingTransaction).
func (e *producerEntry) openAt(epoch int16) bool {
	return e.currentTxnFirstOffset >= 0 && e.epoch == epoch
}

// verified: a transactional batch of producerID that opens a transaction
// here carries the guard of the producer's verification in progress.
func (m *producerStateManager) verified(producerID int64, guard VerificationGuard) bool {
	v, ok := m.verifications[producerID]
	return ok && guard != 0 && v.guard == guard
}

// endsVerification: writing b, a transactional batch or marker, ends the
// producer's verification in progress, except the marker of the previous
// transaction that a transaction version 2 verification awaits.
func (m *producerStateManager) endsVerification(b record.Batch) bool {
	v, ok := m.verifications[b.ProducerID()]
	return ok && !(v.supportsEpochBump && b.IsControl() && b.ProducerEpoch() == v.epoch)
}
