package bench

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// ProduceConfig bounds a Produce run.
type ProduceConfig struct {
	Addr       string
	Topic      string        // default "karst-bench"
	Partitions int32         // created with this many (default 6)
	RecordSize int           // value bytes per record (default 1024)
	Records    int64         // stop after this many (default 1,000,000)
	Duration   time.Duration // or after this long (default 10s)
	Producer   ProducerConfig
	Pid        int // broker pid whose RSS to sample, 0 for none
}

func (c *ProduceConfig) defaults() {
	defaultBounds(&c.Topic, &c.Records, &c.Duration)
	if c.Partitions <= 0 {
		c.Partitions = 6
	}
	if c.RecordSize <= 0 {
		c.RecordSize = 1024
	}
}

// defaultBounds fills the bounds Produce and Consume share where unset, so
// that a consume run reads what a produce run with the same flags wrote.
func defaultBounds(topic *string, records *int64, duration *time.Duration) {
	if *topic == "" {
		*topic = "karst-bench"
	}
	if *records <= 0 {
		*records = 1_000_000
	}
	if *duration <= 0 {
		*duration = 10 * time.Second
	}
}

// Produce creates the topic if needed and writes records of RecordSize
// random bytes to it as fast as the broker acknowledges them, until
// Records or Duration. Throughput counts acknowledged records over the
// time from the first send to the last acknowledgement; latency is per
// record from Produce to its acknowledgement (including time buffered).
func Produce(ctx context.Context, cfg ProduceConfig) *Result {
	cfg.defaults()
	res := NewResult("produce")
	res.SetString("topic", cfg.Topic)
	res.SetInt("partitions", int64(cfg.Partitions))
	res.SetInt("record_size", int64(cfg.RecordSize))
	res.SetInt("acks", int64(cfg.Producer.Acks))
	opts, err := cfg.Producer.opts()
	if err != nil {
		res.Fail(err)
		return res
	}
	setupCtx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := EnsureTopic(setupCtx, cfg.Addr, cfg.Topic, cfg.Partitions); err != nil {
		res.Fail(err)
		return res
	}
	cl, err := newClient(cfg.Addr, append(opts, kgo.DefaultProduceTopic(cfg.Topic))...)
	if err != nil {
		res.Fail(err)
		return res
	}
	defer cl.Close()
	rss := startRSSSampler(cfg.Pid)

	value := randomValue(cfg.RecordSize, 1)
	clock := startCoarseClock()
	defer clock.Stop()
	var (
		acked, failed atomic.Int64
		mu            sync.Mutex
		h             Histogram
		firstErr      firstError
		// Records are recycled once their promise has run (the client
		// is done with a record then), so the loop allocates nothing
		// per record.
		records = sync.Pool{New: func() any { return new(kgo.Record) }}
	)
	// One callback for every record. Latency is from the record's
	// Timestamp, set when the loop hands it over, at the clock's 1 ms
	// resolution.
	promise := func(r *kgo.Record, err error) {
		if err != nil {
			failed.Add(1)
			firstErr.set(err)
			return
		}
		acked.Add(1)
		mu.Lock()
		h.RecordDuration(clock.Since(r.Timestamp))
		mu.Unlock()
		*r = kgo.Record{}
		records.Put(r)
	}

	start := time.Now()
	end := start.Add(cfg.Duration)
	var sent int64
	for sent < cfg.Records && ctx.Err() == nil && failed.Load() == 0 {
		now := clock.Now()
		if now.After(end) {
			break
		}
		r := records.Get().(*kgo.Record)
		r.Value, r.Timestamp = value, now
		cl.Produce(ctx, r, promise)
		sent++
	}
	// What was sent in time still counts; waiting for it is bounded.
	flushCtx, cancelFlush := context.WithTimeout(ctx, 30*time.Second)
	defer cancelFlush()
	flushErr := cl.Flush(flushCtx)
	elapsed := time.Since(start)

	n := acked.Load()
	res.SetThroughput(elapsed, n, n*int64(cfg.RecordSize))
	mu.Lock()
	res.setLatency(&h)
	mu.Unlock()
	res.SetInt("failed", failed.Load())
	rss.finish(res)
	mu.Lock()
	defer mu.Unlock()
	if err := firstErr.get(); err != nil {
		res.Fail(fmt.Errorf("produce: %w", err))
	} else if flushErr != nil {
		res.Fail(fmt.Errorf("flush: %w", flushErr))
	} else if n == 0 {
		res.Fail(errors.New("produce: no record acknowledged"))
	}
	return res
}
