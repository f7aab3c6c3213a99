package txn

import (
	"time"

	"github.com/karst-broker/karst/internal/config"
)

// Config holds the broker settings the coordinator follows (Kafka's
// transaction.* keys).
type Config struct {
	// MaxTimeout is transaction.max.timeout.ms: the largest
	// transaction.timeout.ms a producer may ask for.
	MaxTimeout time.Duration
	// IDExpiration is transactional.id.expiration.ms: how long an idle
	// transactional id is remembered.
	IDExpiration time.Duration
	// AbortTimedOutInterval is
	// transaction.abort.timed.out.transaction.cleanup.interval.ms.
	AbortTimedOutInterval time.Duration
	// RemoveExpiredInterval is
	// transaction.remove.expired.transaction.cleanup.interval.ms.
	RemoveExpiredInterval time.Duration
	// StatePartitions is transaction.state.log.num.partitions: the
	// partition count before __transaction_state exists (StateTopic
	// creates it with the same setting).
	StatePartitions int32
	// AddPartitionsWait bounds how long adding partitions waits for the
	// producer's previous transaction to complete (its markers) before it
	// is answered CONCURRENT_TRANSACTIONS; negative does not wait.
	AddPartitionsWait time.Duration
}

// DefaultConfig is Kafka's defaults.
func DefaultConfig() Config {
	return Config{
		MaxTimeout:            15 * time.Minute,
		IDExpiration:          7 * 24 * time.Hour,
		AbortTimedOutInterval: 10 * time.Second,
		RemoveExpiredInterval: time.Hour,
		StatePartitions:       50,
		AddPartitionsWait:     2 * time.Second,
	}
}

// ConfigFrom reads the coordinator's settings from the broker's; nil
// gives Kafka's defaults.
func ConfigFrom(b *config.Broker) Config {
	cfg := DefaultConfig()
	if b == nil {
		return cfg
	}
	ms := func(key string) time.Duration { return time.Duration(b.Int(key)) * time.Millisecond }
	cfg.MaxTimeout = ms("transaction.max.timeout.ms")
	cfg.IDExpiration = ms("transactional.id.expiration.ms")
	cfg.AbortTimedOutInterval = ms("transaction.abort.timed.out.transaction.cleanup.interval.ms")
	cfg.RemoveExpiredInterval = ms("transaction.remove.expired.transaction.cleanup.interval.ms")
	cfg.StatePartitions = b.Int("transaction.state.log.num.partitions")
	return cfg
}

func (c *Config) fillDefaults() {
	d := DefaultConfig()
	if c.MaxTimeout <= 0 {
		c.MaxTimeout = d.MaxTimeout
	}
	if c.IDExpiration <= 0 {
		c.IDExpiration = d.IDExpiration
	}
	if c.AbortTimedOutInterval <= 0 {
		c.AbortTimedOutInterval = d.AbortTimedOutInterval
	}
	if c.RemoveExpiredInterval <= 0 {
		c.RemoveExpiredInterval = d.RemoveExpiredInterval
	}
	if c.AddPartitionsWait == 0 {
		c.AddPartitionsWait = d.AddPartitionsWait
	}
	if c.StatePartitions <= 0 {
		c.StatePartitions = d.StatePartitions
	}
}

// Clock is where the coordinator reads the time; tests replace it.
type Clock interface{ Now() time.Time }

// SystemClock is the wall clock.
type SystemClock struct{}

// Now returns time.Now().
func (SystemClock) Now() time.Time { return time.Now() }
