package bench

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// E2EConfig bounds an end-to-end latency run.
type E2EConfig struct {
	Addr       string
	Topic      string        // default "karst-bench-e2e"
	Partitions int32         // default 6
	RecordSize int           // value bytes per record, at least 16 (default 1024)
	Rate       int           // records per second (default 10,000)
	Duration   time.Duration // default 10s
	Drain      time.Duration // after the last send, wait this long for stragglers (default 5s)
	// Warmup is how long at the start is sent and received but left out of
	// the latencies: it covers the clients' first metadata and connections
	// (and a JVM broker's JIT). Default 1s; negative for none.
	Warmup   time.Duration
	Producer ProducerConfig
	Pid      int // broker pid whose RSS to sample, 0 for none
}

// stampSize is what each e2e value starts with: a run id (so records from
// an earlier run in the same topic are ignored) and the send time in
// nanoseconds since the run started (monotonic, same process).
const stampSize = 16

func stamp(value []byte, runID uint64, sentNs int64) {
	binary.BigEndian.PutUint64(value, runID)
	binary.BigEndian.PutUint64(value[8:], uint64(sentNs))
}

// readStamp returns the send time of a value stamped by run runID.
func readStamp(value []byte, runID uint64) (int64, bool) {
	if len(value) < stampSize || binary.BigEndian.Uint64(value) != runID {
		return 0, false
	}
	return int64(binary.BigEndian.Uint64(value[8:])), true
}

// pace returns how many records should have been sent after elapsed at
// rate per second.
func pace(elapsed time.Duration, rate int) int64 {
	return int64(elapsed.Seconds() * float64(rate))
}

// E2E produces at a fixed Rate for Duration, each record stamped with its
// send time, while a consumer in this process reads the topic from the
// offsets it had before the first send; the latency of a record is its
// receive time minus its send time. It reports p50/p99/p999/max over all
// records received after Warmup, and lost for records acknowledged but not
// received in time.
func E2E(ctx context.Context, cfg E2EConfig) *Result {
	if cfg.Topic == "" {
		cfg.Topic = "karst-bench-e2e"
	}
	if cfg.Partitions <= 0 {
		cfg.Partitions = 6
	}
	if cfg.RecordSize <= 0 {
		cfg.RecordSize = 1024
	}
	cfg.RecordSize = max(cfg.RecordSize, stampSize)
	if cfg.Rate <= 0 {
		cfg.Rate = 10_000
	}
	if cfg.Duration <= 0 {
		cfg.Duration = 10 * time.Second
	}
	if cfg.Drain <= 0 {
		cfg.Drain = 5 * time.Second
	}
	if cfg.Warmup == 0 {
		cfg.Warmup = time.Second
	}
	cfg.Warmup = max(cfg.Warmup, 0)
	res := NewResult("e2e")
	res.SetString("topic", cfg.Topic)
	res.SetInt("rate", int64(cfg.Rate))
	res.SetInt("record_size", int64(cfg.RecordSize))
	res.SetFloat("warmup_s", cfg.Warmup.Seconds())
	popts, err := cfg.Producer.opts()
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
	ends, err := listOffsets(setupCtx, cfg.Addr, cfg.Topic, logEnd)
	if err != nil {
		res.Fail(err)
		return res
	}
	starts := make(map[int32]kgo.Offset, len(ends))
	for p, o := range ends {
		starts[p] = kgo.NewOffset().At(o)
	}
	consumer, err := newClient(cfg.Addr, kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{cfg.Topic: starts}), kgo.FetchMaxWait(time.Second))
	if err != nil {
		res.Fail(err)
		return res
	}
	defer consumer.Close()
	producer, err := newClient(cfg.Addr, append(popts, kgo.DefaultProduceTopic(cfg.Topic))...)
	if err != nil {
		res.Fail(err)
		return res
	}
	defer producer.Close()
	rss := startRSSSampler(cfg.Pid)

	runID := uint64(time.Now().UnixNano())
	base := time.Now()
	var sent, acked, produceFailed atomic.Int64
	var sendingDone atomic.Bool
	var produceErr firstError
	promise := func(_ *kgo.Record, err error) {
		if err != nil {
			produceFailed.Add(1)
			produceErr.set(err)
			return
		}
		acked.Add(1)
	}

	// The consumer runs until it has every acknowledged record after the
	// producer stopped, or the drain time passes.
	type consumed struct {
		h        Histogram
		received int64
		err      error
	}
	out := make(chan consumed, 1)
	consumeCtx, stopConsume := context.WithCancel(ctx)
	defer stopConsume()
	go func() {
		var c consumed
		for consumeCtx.Err() == nil {
			// sendingDone is set after Flush: every record is acked or failed.
			if sendingDone.Load() && c.received >= acked.Load() {
				break
			}
			pollCtx, cancel := context.WithTimeout(consumeCtx, 200*time.Millisecond)
			fs := consumer.PollFetches(pollCtx)
			cancel()
			now := time.Since(base)
			fs.EachError(func(t string, p int32, err error) {
				if c.err == nil && !errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, context.Canceled) {
					c.err = fmt.Errorf("fetch %s[%d]: %w", t, p, err)
				}
			})
			fs.EachRecord(func(r *kgo.Record) {
				if at, ok := readStamp(r.Value, runID); ok {
					if at >= int64(cfg.Warmup) {
						c.h.Record(int64(now) - at)
					}
					c.received++
				}
			})
		}
		out <- c
	}()

	// Pace from a 1 ms tick: each tick sends what the rate owes so far, so
	// a slow tick is caught up rather than lost.
	tick := time.NewTicker(time.Millisecond)
	end := base.Add(cfg.Duration)
	for produceFailed.Load() == 0 && ctx.Err() == nil {
		now := time.Now()
		if now.After(end) {
			break
		}
		for due := pace(now.Sub(base), cfg.Rate); sent.Load() < due; {
			v := make([]byte, cfg.RecordSize)
			stamp(v, runID, int64(time.Since(base)))
			producer.Produce(ctx, &kgo.Record{Value: v}, promise)
			sent.Add(1)
		}
		<-tick.C
	}
	tick.Stop()
	flushCtx, cancelFlush := context.WithTimeout(ctx, cfg.Drain)
	flushErr := producer.Flush(flushCtx)
	cancelFlush()
	sendingDone.Store(true)
	elapsed := time.Since(base)

	var c consumed
	select {
	case c = <-out:
	case <-time.After(cfg.Drain):
		stopConsume()
		c = <-out
	}
	res.SetFloat("secs", elapsed.Seconds())
	res.SetInt("sent", sent.Load())
	res.SetInt("acked", acked.Load())
	res.SetInt("received", c.received)
	res.SetInt("lost", max(0, acked.Load()-c.received))
	res.SetInt("measured", int64(c.h.Count()))
	res.SetFloat("records_per_s", float64(c.received)/elapsed.Seconds())
	res.setLatency(&c.h)
	rss.finish(res)
	var perr error
	if err := produceErr.get(); err != nil {
		perr = fmt.Errorf("produce: %w", err)
	}
	switch {
	case perr != nil:
		res.Fail(perr)
	case flushErr != nil:
		res.Fail(fmt.Errorf("flush: %w", flushErr))
	case c.err != nil:
		res.Fail(c.err)
	case c.received == 0:
		res.Fail(errors.New("e2e: no record received"))
	}
	return res
}
