package bench

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// ConsumeConfig bounds a Consume run.
type ConsumeConfig struct {
	Addr     string
	Topic    string        // default "karst-bench"
	Records  int64         // stop after this many (default 1,000,000)
	Duration time.Duration // or after this long (default 10s)
	// FetchMaxBytes and PartitionMaxBytes are fetch.max.bytes and
	// max.partition.fetch.bytes; 0 keeps franz-go's defaults.
	FetchMaxBytes     int32
	PartitionMaxBytes int32
	Pid               int    // broker pid whose RSS to sample, 0 for none
	Isolation         string // read_uncommitted (default) or read_committed
}

func (cfg *ConsumeConfig) defaults() {
	defaultBounds(&cfg.Topic, &cfg.Records, &cfg.Duration)
}

// Consume reads Topic from the start of every partition, without a group,
// until it has read Records records or Duration passes, and reports the
// rate. Run Produce first to fill the topic. Reading fewer records than
// asked is not an error if the topic held fewer (short=1 says so).
func Consume(ctx context.Context, cfg ConsumeConfig) *Result {
	cfg.defaults()
	res := NewResult("consume")
	res.SetString("topic", cfg.Topic)
	opts := []kgo.Opt{
		kgo.ConsumeTopics(cfg.Topic),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
		// A partition that is read to its end should not hold the run:
		// wait briefly for more, then check the bounds again.
		kgo.FetchMaxWait(500 * time.Millisecond),
	}
	isolation, err := isolationOpt(cfg.Isolation)
	if err != nil {
		res.Fail(err)
		return res
	}
	opts = append(opts, isolation)
	if cfg.Isolation != "" {
		res.SetString("isolation", cfg.Isolation)
	}
	if cfg.FetchMaxBytes > 0 {
		opts = append(opts, kgo.FetchMaxBytes(cfg.FetchMaxBytes))
	}
	if cfg.PartitionMaxBytes > 0 {
		opts = append(opts, kgo.FetchMaxPartitionBytes(cfg.PartitionMaxBytes))
	}
	cl, err := newClient(cfg.Addr, opts...)
	if err != nil {
		res.Fail(err)
		return res
	}
	defer cl.Close()
	runConsume(ctx, cfg, res, consumeLoop{poll: func(ctx context.Context, want int64) (records, bytes int64, err error) {
		fs := cl.PollRecords(ctx, int(min(want, 1<<20)))
		fs.EachError(func(t string, p int32, fetchErr error) {
			if !errors.Is(fetchErr, context.DeadlineExceeded) && !errors.Is(fetchErr, context.Canceled) && err == nil {
				err = fmt.Errorf("fetch %s[%d]: %w", t, p, fetchErr)
			}
		})
		if err != nil {
			return 0, 0, err
		}
		fs.EachRecord(func(r *kgo.Record) {
			records++
			bytes += int64(len(r.Value) + len(r.Key))
		})
		return records, bytes, nil
	}})
	return res
}
