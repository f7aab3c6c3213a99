// Package txn owns producer ids and the transaction coordinator.
//
// Producer ids are handed out to idempotent and transactional producers
// from blocks reserved in the cluster metadata (ProducerIDs).
//
// The transaction coordinator keeps, per transactional id, Kafka's
// TransactionMetadata: the producer id and epoch, the transaction timeout,
// the partitions of the open transaction and its state:
//
//	Empty -> Ongoing -> PrepareCommit -> CompleteCommit
//	  ^        |    \-> PrepareAbort  -> CompleteAbort
//	  |        |                              |
//	  +--------+-------- InitProducerId ------+  (and AddPartitions from
//	                                             a Complete state opens the
//	                                             next transaction)
//
// Dead and PrepareEpochFence exist in the numbering (the state byte of
// __transaction_state) but are never stored: an expired id is a
// tombstone, and an epoch fence is written as PrepareAbort with the epoch
// bumped.
//
// The coordinator runs on the coordinator runtime (internal/coordinator):
// one shard per partition of __transaction_state, whose records are
// Kafka's TransactionLogKey/TransactionLogValue. An operation (a request,
// or a timer) validates against the durable state and returns the record
// of the new state; the state changes only when that record is durable
// and replayed, by the same Replay that loads the partition. While a
// record of a transactional id is on its way the id answers
// CONCURRENT_TRANSACTIONS, as in Kafka. No state change waits for the
// disk and no shard lock is held over a data partition's append.
// EndTxn answers once PrepareCommit or PrepareAbort is durable; the
// markers (MarkerWriter: WriteTxnMarkers, to each partition's leader),
// the group hook (CompleteOffsets) and the Complete state follow as calls
// out of the state machine (Options.Go), and a failure there leaves the
// transaction prepared, completed again a second later. Time comes from
// the runtime's clock: keyed timers abort each open transaction at its
// timeout and forget each idle transactional id, rather than scans. A
// broker that stops in any phase finds on load what to do: a prepared
// transaction has its markers written again and completes; an open one
// is aborted once its timeout passes.
//
// Zombie fencing: InitProducerId bumps the epoch (over an open
// transaction, it aborts that transaction with one more bump and asks the
// client to retry), so requests with an older epoch get PRODUCER_FENCED
// and its writes INVALID_PRODUCER_EPOCH. A transactional write is allowed
// only into a partition of the producer's open transaction
// (AppendInTransaction, KIP-890 part 1 done in-process); the append counts
// as a writer of the transaction, whose markers wait for its writers, so
// no write of a transaction can land after its markers.
//
// Transaction version 2 (KIP-890 part 2, v2.go): EndTxn v5 bumps the epoch
// of every transaction (moving to a new producer id when the epochs run
// out), so a delayed EndTxn or write of an earlier transaction is fenced
// from a later one; Produce v12 adds partitions on the producer's behalf
// (AddPartitionsImplicit).
package txn
