package bench

import (
	"context"
	"errors"
	"time"
)

// consumeLoop is how one consumer reads: Consume's franz-go client or
// ConsumeRaw's hand-written fetches. The run around it is runConsume's.
type consumeLoop struct {
	// poll reads one round, at most want records (a hint), and returns
	// the records and key plus value bytes it counted. An error ends the
	// run and fails it; a poll cut short by the end of ctx returns none.
	poll func(ctx context.Context, want int64) (records, bytes int64, err error)
	// interrupt, if set, unblocks a poll that does not watch its context
	// once the run ends (a bare connection).
	interrupt func()
	// report, if set, adds the consumer's own fields after the throughput.
	report func(*Result)
}

// runConsume polls until cfg.Records are read or cfg.Duration passes and
// puts the rate into res. Throughput ends at the last record read: a
// drained topic's idle tail is not throughput. Reading fewer records than
// asked is not an error if the topic held fewer (short=1 says so); reading
// none is.
func runConsume(ctx context.Context, cfg ConsumeConfig, res *Result, loop consumeLoop) {
	rss := startRSSSampler(cfg.Pid)
	runCtx, cancel := context.WithTimeout(ctx, cfg.Duration)
	defer cancel()
	if loop.interrupt != nil {
		defer context.AfterFunc(runCtx, loop.interrupt)()
	}
	start := time.Now()
	last := start
	var records, byteCount int64
	var pollErr error
	for records < cfg.Records && runCtx.Err() == nil {
		n, b, err := loop.poll(runCtx, cfg.Records-records)
		records += n
		byteCount += b
		if n > 0 {
			last = time.Now()
		}
		if err != nil {
			pollErr = err
			break
		}
	}
	res.SetThroughput(last.Sub(start), records, byteCount)
	if loop.report != nil {
		loop.report(res)
	}
	if records < cfg.Records {
		res.SetInt("short", 1)
	}
	rss.finish(res)
	if pollErr != nil {
		res.Fail(pollErr)
	} else if records == 0 {
		res.Fail(errors.New("consume: no record read"))
	}
}
