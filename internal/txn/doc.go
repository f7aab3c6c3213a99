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
// The core is a deterministic state machine, like the group
// coordinator's: every change comes from a call (a request, or Tick for
// the passage of time), time comes from a replaceable Clock, and the
// world is reached only through interfaces. State changes are records for
// a Store (the broker's is StateTopic, the internal topic
// __transaction_state in Kafka's TransactionLogKey/TransactionLogValue
// format); markers go to a MarkerWriter (the broker's is LogMarkers,
// control batches appended to the partition logs); the group coordinator
// hears about committed or aborted offsets through the CompleteOffsets
// hook. Load rebuilds the state by replaying the store.
//
// A state change is written while the coordinator's lock is held (so the
// log has the changes in their order) and takes effect once durable;
// until then the transactional id is pending and other changes to it are
// answered CONCURRENT_TRANSACTIONS, as in Kafka. EndTxn answers once
// PrepareCommit or PrepareAbort is durable; the markers, the group hook
// and the Complete state follow in the background (Options.Go), and a
// failure there leaves the transaction prepared for Tick to retry. A
// broker that stops in any phase finds on Load what to do: a prepared
// transaction has its markers written again and completes; an open one is
// aborted once its timeout passes.
//
// Zombie fencing: InitProducerId bumps the epoch (over an open
// transaction, it aborts that transaction with one more bump and asks the
// client to retry), so requests with an older epoch get PRODUCER_FENCED
// and its writes INVALID_PRODUCER_EPOCH. A transactional write is allowed
// only into a partition of the producer's open transaction
// (AppendInTransaction, KIP-890 part 1 done in-process), under the
// coordinator's lock, so no write of a transaction can land after its
// markers.
//
// Transaction version 2 (KIP-890 part 2, v2.go): EndTxn v5 bumps the epoch
// of every transaction (moving to a new producer id when the epochs run
// out), so a delayed EndTxn or write of an earlier transaction is fenced
// from a later one; Produce v12 adds partitions on the producer's behalf
// (AddPartitionsImplicit).
package txn
