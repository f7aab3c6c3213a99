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
	rss := startRSSSampler(cfg.Pid)

	runCtx, cancel := context.WithTimeout(ctx, cfg.Duration)
	defer cancel()
	start := time.Now()
	var records, byteCount int64
	var fetchErr error
	last := start // when the last record arrived: a drained topic's idle tail is not throughput
	for records < cfg.Records && runCtx.Err() == nil {
		fs := cl.PollRecords(runCtx, int(min(cfg.Records-records, 1<<20)))
		fs.EachError(func(t string, p int32, err error) {
			if !errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, context.Canceled) && fetchErr == nil {
				fetchErr = fmt.Errorf("fetch %s[%d]: %w", t, p, err)
			}
		})
		if fetchErr != nil {
			break
		}
		n := records
		fs.EachRecord(func(r *kgo.Record) {
			records++
			byteCount += int64(len(r.Value) + len(r.Key))
		})
		if records > n {
			last = time.Now()
		}
	}
	res.setThroughput(last.Sub(start), records, byteCount)
	if records < cfg.Records {
		res.SetInt("short", 1)
	}
	rss.finish(res)
	if fetchErr != nil {
		res.Fail(fetchErr)
	} else if records == 0 {
		res.Fail(errors.New("consume: no record read"))
	}
	return res
}
