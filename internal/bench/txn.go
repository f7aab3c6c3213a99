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

// TxnConfig bounds a Txn run.
type TxnConfig struct {
	Addr          string
	Topic         string        // default "karst-bench-txn-<partitions>"
	Partitions    int32         // created with this many; records spread over them (default 1)
	RecordsPerTxn int           // records per transaction (default 10)
	RecordSize    int           // value bytes per record (default 1024)
	Producers     int           // concurrent transactional producers, one client each (default 1)
	Txns          int64         // stop after this many committed transactions over all producers (default unbounded)
	Duration      time.Duration // or after this long (default 10s)
	Pid           int           // broker pid whose RSS to sample, 0 for none
}

func (c *TxnConfig) defaults() {
	if c.Partitions <= 0 {
		c.Partitions = 1
	}
	if c.Topic == "" {
		c.Topic = fmt.Sprintf("karst-bench-txn-%d", c.Partitions)
	}
	if c.RecordsPerTxn <= 0 {
		c.RecordsPerTxn = 10
	}
	if c.RecordSize <= 0 {
		c.RecordSize = 1024
	}
	if c.Producers <= 0 {
		c.Producers = 1
	}
	if c.Txns <= 0 {
		c.Txns = 1 << 62
	}
	if c.Duration <= 0 {
		c.Duration = 10 * time.Second
	}
}

// Txn runs Producers transactional producers (franz-go, one
// transactional.id each), each committing transactions back to back:
// BeginTransaction, RecordsPerTxn records spread round-robin over the
// topic's partitions, flush, EndTransaction(commit). It reports committed
// transactions and records per second, and the time of one transaction
// from begin to the end of the commit (p50/p99/p999/max).
func Txn(ctx context.Context, cfg TxnConfig) *Result {
	cfg.defaults()
	res := NewResult("txn")
	res.SetString("topic", cfg.Topic)
	res.SetInt("partitions", int64(cfg.Partitions))
	res.SetInt("records_per_txn", int64(cfg.RecordsPerTxn))
	res.SetInt("record_size", int64(cfg.RecordSize))
	res.SetInt("producers", int64(cfg.Producers))
	setupCtx, cancelSetup := context.WithTimeout(ctx, 30*time.Second)
	defer cancelSetup()
	if err := EnsureTopic(setupCtx, cfg.Addr, cfg.Topic, cfg.Partitions); err != nil {
		res.Fail(err)
		return res
	}
	// Fresh transactional ids per run, so a run never waits for an
	// earlier run's transaction to time out.
	idPrefix := fmt.Sprintf("karst-bench-txn-%d", time.Now().UnixNano())
	clients := make([]*kgo.Client, cfg.Producers)
	defer func() {
		for _, cl := range clients {
			if cl != nil {
				cl.Close()
			}
		}
	}()
	for i := range clients {
		cl, err := newClient(cfg.Addr,
			kgo.TransactionalID(fmt.Sprintf("%s-%d", idPrefix, i)),
			kgo.DefaultProduceTopic(cfg.Topic),
			kgo.RecordPartitioner(kgo.ManualPartitioner()),
			kgo.ProducerLinger(0),
		)
		if err != nil {
			res.Fail(err)
			return res
		}
		clients[i] = cl
	}
	rss := startRSSSampler(cfg.Pid)

	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		claimed  atomic.Int64 // transactions started, to stop at Txns
		mu       sync.Mutex
		h        Histogram
		firstErr firstError
		wg       sync.WaitGroup
	)
	value := randomValue(cfg.RecordSize, 3)
	start := time.Now()
	end := start.Add(cfg.Duration)
	for i, cl := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var local Histogram
			err := txnLoop(runCtx, end, cl, &cfg, value, int32(i), &claimed, &local)
			if err != nil {
				firstErr.set(err)
				cancel() // one failing producer ends the run
			}
			mu.Lock()
			h.Merge(&local)
			mu.Unlock()
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)

	txns := int64(h.Count())
	records := txns * int64(cfg.RecordsPerTxn)
	res.SetThroughput(elapsed, records, records*int64(cfg.RecordSize))
	res.SetInt("txns", txns)
	if secs := elapsed.Seconds(); secs > 0 {
		res.SetFloat("txn_per_s", float64(txns)/secs)
	}
	res.setLatency(&h)
	rss.finish(res)
	if err := firstErr.get(); err != nil {
		res.Fail(fmt.Errorf("txn: %w", err))
	} else if txns == 0 {
		res.Fail(errors.New("txn: no transaction committed"))
	}
	return res
}

// txnLoop commits transactions on cl until end, until ctx ends or until
// claimed reaches cfg.Txns, recording each committed one's duration in h.
// A transaction begun before end is finished (bounded), so a run leaves no
// open or aborted transaction behind unless it is interrupted.
func txnLoop(ctx context.Context, end time.Time, cl *kgo.Client, cfg *TxnConfig, value []byte, producer int32, claimed *atomic.Int64, h *Histogram) error {
	recs := make([]*kgo.Record, cfg.RecordsPerTxn)
	for i := range recs {
		recs[i] = &kgo.Record{}
	}
	// Each producer starts at a different partition so that several
	// producers with one record per partition do not all begin at
	// partition 0.
	next := producer % cfg.Partitions
	for ctx.Err() == nil && time.Now().Before(end) && claimed.Add(1) <= cfg.Txns {
		begin := time.Now()
		if err := cl.BeginTransaction(); err != nil {
			return fmt.Errorf("begin: %w", err)
		}
		for _, r := range recs {
			*r = kgo.Record{Value: value, Partition: next}
			next = (next + 1) % cfg.Partitions
		}
		err := commitTxn(ctx, cl, recs)
		if err != nil {
			abortTxn(cl)
			if ctx.Err() != nil {
				return nil // interrupted, or another producer failed
			}
			return err
		}
		h.RecordDuration(time.Since(begin))
	}
	return nil
}

// commitTxn produces recs, waits for them, and commits, within a bound so
// that a broker that stops answering fails the run instead of hanging it.
func commitTxn(ctx context.Context, cl *kgo.Client, recs []*kgo.Record) error {
	opCtx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := cl.ProduceSync(opCtx, recs...).FirstErr(); err != nil {
		return fmt.Errorf("produce: %w", err)
	}
	if err := cl.EndTransaction(opCtx, kgo.TryCommit); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	return nil
}

// abortTxn ends a transaction that failed or was interrupted, bounded, so
// the broker is not left with an open transaction holding back the last
// stable offset until its timeout.
func abortTxn(cl *kgo.Client) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := cl.AbortBufferedRecords(ctx); err != nil {
		return
	}
	_ = cl.EndTransaction(ctx, kgo.TryAbort)
}
