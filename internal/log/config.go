package log

import (
	"math"
	"time"

	"github.com/karst-broker/karst/internal/record"
)

// Durability selects when an append counts as on disk.
type Durability int8

const (
	// GroupCommit (Karst's default): WaitDurable blocks until an fsync that
	// covers the offset has finished; concurrent appenders share one fsync.
	GroupCommit Durability = iota
	// PageCache is Kafka's default: appends stay in the page cache and are
	// flushed by flush.messages / flush.ms (and on roll and close);
	// WaitDurable returns at once.
	PageCache
)

// Config is a partition's log configuration. Field comments name the Kafka
// topic config each one carries; the config package maps keys to fields.
type Config struct {
	SegmentBytes       int64         // segment.bytes (default 1 GiB)
	SegmentTime        time.Duration // segment.ms (default 7 days)
	SegmentIndexBytes  int           // segment.index.bytes (default 10 MiB)
	IndexIntervalBytes int           // index.interval.bytes (default 4096)
	RetentionTime      time.Duration // retention.ms; < 0 keeps forever (default 7 days)
	RetentionBytes     int64         // retention.bytes; < 0 unlimited (default -1)
	// RetentionOff: cleanup.policy leaves out "delete" (compact only), so
	// retention.ms and retention.bytes delete nothing, as in Kafka.
	RetentionOff         bool
	FlushMessages        int64                // flush.messages (PageCache mode; default MaxInt64)
	FlushInterval        time.Duration        // flush.ms (PageCache mode; default MaxInt64 ms)
	TimestampType        record.TimestampType // message.timestamp.type (CreateTime / LogAppendTime)
	MaxMessageBytes      int                  // max.message.bytes: largest batch accepted (default 1048588)
	TimestampBeforeMax   time.Duration        // message.timestamp.before.max.ms: how far a CreateTime timestamp may lie in the past (default unlimited)
	TimestampAfterMax    time.Duration        // message.timestamp.after.max.ms: how far it may lie in the future (default 1 hour)
	FileDeleteDelay      time.Duration        // file.delete.delay.ms: deleted segments' files stay open this long for in-flight sendfile (default 60 s)
	ProducerIDExpiration time.Duration        // producer.id.expiration.ms (broker; default 1 day)
	MaxDecompressedBytes int                  // cap on a batch's decompressed size when records must be read (timestamp lookup)
	Compaction           CompactionConfig     // what the log cleaner reads (cleanup.policy=compact and its keys)

	Durability Durability

	// Not topic configs: the state the broker keeps for this partition in
	// the log dir's checkpoint files.
	RecoveryPoint  int64 // from recovery-point-offset-checkpoint; segments from here on are validated at Open
	LogStartOffset int64 // from log-start-offset-checkpoint
	// CleanShutdown: the log dir carried Kafka's clean-shutdown marker, so
	// the active segment is trusted (indexes checked, records not) at Open.
	CleanShutdown bool
	// Syncer shares fsyncs with the other logs of the log dir (nil: each
	// log fsyncs its own files).
	Syncer *DirSyncer
	// DirFailures is told when a storage error takes the log offline
	// (nil: the error is only returned and logged).
	DirFailures *LogDirFailureChannel

	// Now is the clock (nil = time.Now); tests replace it.
	Now func() time.Time
}

// DefaultConfig returns Kafka's defaults with Karst's group-commit durability.
func DefaultConfig() Config {
	return Config{
		SegmentBytes:         1 << 30,
		SegmentTime:          7 * 24 * time.Hour,
		SegmentIndexBytes:    10 << 20,
		IndexIntervalBytes:   4096,
		RetentionTime:        7 * 24 * time.Hour,
		RetentionBytes:       -1,
		FlushMessages:        math.MaxInt64,
		FlushInterval:        math.MaxInt64,
		TimestampType:        record.CreateTime,
		MaxMessageBytes:      1048588,
		TimestampBeforeMax:   math.MaxInt64,
		TimestampAfterMax:    time.Hour,
		FileDeleteDelay:      time.Minute,
		ProducerIDExpiration: 24 * time.Hour,
		MaxDecompressedBytes: 64 << 20,
		Durability:           GroupCommit,
	}
}

// withDefaults fills zero fields so a partially filled Config is usable.
func (c Config) withDefaults() Config {
	d := DefaultConfig()
	if c.SegmentBytes <= 0 {
		c.SegmentBytes = d.SegmentBytes
	}
	if c.SegmentTime <= 0 {
		c.SegmentTime = d.SegmentTime
	}
	if c.SegmentIndexBytes <= 0 {
		c.SegmentIndexBytes = d.SegmentIndexBytes
	}
	if c.SegmentIndexBytes < 4*timeIndexEntrySize {
		c.SegmentIndexBytes = 4 * timeIndexEntrySize
	}
	if c.IndexIntervalBytes == 0 {
		c.IndexIntervalBytes = d.IndexIntervalBytes
	}
	if c.IndexIntervalBytes < 0 { // index every batch
		c.IndexIntervalBytes = 0
	}
	if c.TimestampBeforeMax <= 0 {
		c.TimestampBeforeMax = d.TimestampBeforeMax
	}
	if c.TimestampAfterMax <= 0 {
		c.TimestampAfterMax = d.TimestampAfterMax
	}
	if c.FlushMessages <= 0 {
		c.FlushMessages = d.FlushMessages
	}
	if c.FlushInterval <= 0 {
		c.FlushInterval = d.FlushInterval
	}
	if c.MaxMessageBytes <= 0 {
		c.MaxMessageBytes = d.MaxMessageBytes
	}
	if c.FileDeleteDelay < 0 {
		c.FileDeleteDelay = 0
	}
	if c.ProducerIDExpiration <= 0 {
		c.ProducerIDExpiration = d.ProducerIDExpiration
	}
	if c.MaxDecompressedBytes <= 0 {
		c.MaxDecompressedBytes = d.MaxDecompressedBytes
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	return c
}
