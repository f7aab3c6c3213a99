package log

import "errors"

// Sentinel errors. The handler maps them to Kafka error codes (in brackets).
var (
	ErrCorruptRecord        = errors.New("log: corrupt record batch")                 // CORRUPT_MESSAGE (2)
	ErrInvalidRecord        = errors.New("log: invalid record")                       // INVALID_RECORD (87)
	ErrMessageTooLarge      = errors.New("log: batch larger than max.message.bytes")  // MESSAGE_TOO_LARGE (10)
	ErrInvalidTimestamp     = errors.New("log: timestamp out of range")               // INVALID_TIMESTAMP (32)
	ErrOffsetOutOfRange     = errors.New("log: offset out of range")                  // OFFSET_OUT_OF_RANGE (1)
	ErrOutOfOrderSequence   = errors.New("log: out of order sequence number")         // OUT_OF_ORDER_SEQUENCE_NUMBER (45)
	ErrInvalidProducerEpoch = errors.New("log: producer epoch is older than current") // INVALID_PRODUCER_EPOCH (47)
	ErrInvalidTxnState      = errors.New("log: invalid transaction state")            // INVALID_TXN_STATE (48)
	// ErrTransactionCoordinatorFenced: a marker from an older coordinator
	// epoch than one already written for the producer.
	ErrTransactionCoordinatorFenced = errors.New("log: transaction marker from a fenced coordinator") // TRANSACTION_COORDINATOR_FENCED (52)
	ErrClosed                       = errors.New("log: closed")                                       // NOT_LEADER_OR_FOLLOWER (6) / KAFKA_STORAGE_ERROR (56)
	ErrStorage                      = errors.New("log: storage error")                                // KAFKA_STORAGE_ERROR (56)
)
