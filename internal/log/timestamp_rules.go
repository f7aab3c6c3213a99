package log

import (
	"fmt"
	"math"
	"time"

	"github.com/karst-broker/karst/internal/record"
)

// timestampRules are message.timestamp.{type,before.max.ms,after.max.ms}:
// a CreateTime batch whose timestamps lie too far from the broker's clock
// is refused with INVALID_TIMESTAMP, as Kafka refuses it.
type timestampRules struct {
	createTime bool
	before     time.Duration
	after      time.Duration
}

func newTimestampRules(cfg Config) *timestampRules {
	return &timestampRules{createTime: cfg.TimestampType == record.CreateTime, before: cfg.TimestampBeforeMax, after: cfg.TimestampAfterMax}
}

// check tests a batch from its header: maxTimestamp against the future
// bound and baseTimestamp (the first record's) against the past bound, so
// that the records need not be decompressed. Records without a timestamp
// (-1) are not checked, as in Kafka.
func (r *timestampRules) check(b record.Batch, now time.Time) error {
	if !r.createTime {
		return nil
	}
	nowMs := now.UnixMilli()
	if ts := b.MaxTimestamp(); ts != record.NoTimestamp && r.after < math.MaxInt64 && ts > nowMs+r.after.Milliseconds() {
		return r.outOfRange(ts, b.BaseOffset(), nowMs)
	}
	if ts := b.BaseTimestamp(); ts != record.NoTimestamp && r.before < math.MaxInt64 && ts < nowMs-r.before.Milliseconds() {
		return r.outOfRange(ts, b.BaseOffset(), nowMs)
	}
	return nil
}

func (r *timestampRules) outOfRange(ts, offset, nowMs int64) error {
	lo, hi := "-inf", "+inf"
	if r.before < math.MaxInt64 {
		lo = fmt.Sprint(nowMs - r.before.Milliseconds())
	}
	if r.after < math.MaxInt64 {
		hi = fmt.Sprint(nowMs + r.after.Milliseconds())
	}
	return fmt.Errorf("%w: timestamp %d of message with offset %d is out of range; it must be within [%s, %s]", ErrInvalidTimestamp, ts, offset, lo, hi)
}
