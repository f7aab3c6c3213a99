// Package log owns the partition log in Apache Kafka's on-disk format, so a
// directory written by Kafka 3.x/4.x can be served by Karst and the reverse.
//
// # Files
//
// A partition directory "<topic>-<partition>" holds segments named by their
// base offset in 20 digits:
//
//	00000000000000000000.log        record batches exactly as stored (package record)
//	00000000000000000000.index      sparse offset index: {relOffset int32, position int32}
//	00000000000000000000.timeindex  time index: {timestamp int64, relOffset int32}
//	00000000000000000000.txnindex   aborted transactions (only once the segment has one)
//	00000000000000004096.snapshot   idempotent producer state at that offset
//	leader-epoch-checkpoint         "0", count, "epoch startOffset" lines
//	partition.metadata              "version: 0", "topic_id: <base64 uuid>"
//
// Index entries are written as Kafka's LogSegment.append writes them: when
// more than index.interval.bytes have been appended since the last entry,
// the next batch gets an offset entry (its last offset -> its position) and
// the time index gets (max timestamp so far, offset of that batch) if the
// timestamp grew. Index files are preallocated to segment.index.bytes while
// their segment is active and trimmed to their entries on roll and close.
//
// The log dir root holds meta.properties and the offset checkpoints
// (recovery-point-offset-checkpoint, log-start-offset-checkpoint,
// replication-offset-checkpoint); logdir.go reads and writes them, and the
// broker decides when.
//
// # Recovery
//
// Open validates every batch (length, magic, CRC32C, increasing offsets) of
// the segment holding Config.RecoveryPoint and of all later ones, rebuilds
// their indexes, truncates the first segment with a bad tail at the last
// good batch and deletes the segments after it; each cut is logged at WARN.
// Earlier segments only get an index sanity check (rebuilt if it fails).
// Producer state comes from the newest snapshot plus a replay of the batch
// headers after it.
//
// # Transactions
//
// A transactional batch opens its producer's transaction in the partition;
// a commit or abort marker (a control batch the transaction coordinator
// appends with Origin FromCoordinator) closes it. The open transactions
// (Kafka's ongoingTxns) hold the last stable offset back:
// LSO = min(max(first offset of the oldest open transaction, log start),
// high watermark). read_committed reads (ReadIsolated with ReadCommitted)
// stop there, at a byte position Append remembered, and list the aborted
// transactions their bytes overlap. Each abort appends a 34-byte entry to
// the marker's segment's .txnindex (txn_index.go), in Kafka's format, and
// the entry's LSO field lets a reader stop scanning early. Recovery empties
// the txnindex of every segment it validates and refills it while
// replaying producer state (producer_load.go), so a kill -9 leaves the
// same bytes as a clean run, and an open transaction stays open, its LSO
// held, until its marker comes.
//
// # Durability
//
// Append writes to the page cache and returns offsets. With GroupCommit
// (the default) the caller then blocks in WaitDurable until the log's single
// flusher goroutine has finished an fsync covering its last offset; one
// fsync serves every append that arrived before it started. With PageCache,
// Kafka's flush.messages / flush.ms drive flushing and WaitDurable returns
// at once. RecoveryPoint is what has been fsynced.
//
// # Storage failures
//
// A failed write, fsync or index reservation (a full disk: ENOSPC) takes
// the log offline: that append or wait fails with ErrStorage, every later
// one too, and Config.DirFailures (Kafka's LogDirFailureChannel) is told
// the log dir failed, so the broker can stop serving it. Index blocks are
// reserved with fallocate before the records are written (index_alloc.go),
// so a full disk is an error, never a SIGBUS from the memory-mapped index.
//
// # Concurrency
//
// See the Log type: one RWMutex, writes (append, roll, retention) exclusive,
// index lookups shared, file I/O for reads outside the lock. Many producers
// may call Append concurrently (they serialize on the lock; CRC checks run
// before it), and fetches read while appends happen. Long-polling fetches
// park on AppendSignal / WaitForData.
package log
