package handler

import (
	"errors"

	"github.com/twmb/franz-go/pkg/kerr"

	"github.com/karst-broker/karst/internal/group"
	"github.com/karst-broker/karst/internal/metadata"
	"github.com/karst-broker/karst/internal/txn"
)

// txns returns the transaction coordinator; nil when this broker runs
// without one (then transactional APIs answer COORDINATOR_NOT_AVAILABLE).
func (b *Broker) txns() *txn.Coordinator { return b.opts.Txns }

// txnVerifier is what Produce asks before a transactional write: the
// configured one, else the local coordinator.
func (b *Broker) txnVerifier() txn.Verifier {
	if b.opts.TxnVerifier != nil {
		return b.opts.TxnVerifier
	}
	if b.opts.Txns != nil {
		return b.opts.Txns
	}
	return nil
}

// txnCode turns a transaction coordinator error into a wire error code.
// Versions before fencedSince predate PRODUCER_FENCED (KIP-588) and get
// INVALID_PRODUCER_EPOCH instead, as Kafka answers old clients.
func txnCode(err error, version, fencedSince int16) int16 {
	if err == nil {
		return 0
	}
	var ke *kerr.Error
	if errors.As(err, &ke) {
		if ke == kerr.ProducerFenced && version < fencedSince {
			return kerr.InvalidProducerEpoch.Code
		}
		return ke.Code
	}
	return kerr.UnknownServerError.Code
}

// offsetsPartitionFor is the __consumer_offsets partition of a group:
// what AddOffsetsToTxn adds to a transaction.
func (b *Broker) offsetsPartitionFor(groupID string) int32 {
	n := group.DefaultConfig().OffsetsTopicPartitions
	if t, ok := b.image().Topic(metadata.ConsumerOffsetsTopic); ok {
		n = int32(len(t.Partitions))
	} else if gc := b.groups(); gc != nil {
		n = gc.Config().OffsetsTopicPartitions
	}
	return group.PartitionFor(groupID, n)
}
