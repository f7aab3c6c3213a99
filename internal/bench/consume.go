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
	// Consumers splits the topic's partitions among this many franz-go
	// clients reading at once (default 1). One client keeps one fetch in
	// flight per broker and decodes it before asking for the next, so
	// alone it leaves cores idle; several load the broker as a consumer
	// group's members would. Partition p goes to client p mod Consumers.
	Consumers int
}

func (cfg *ConsumeConfig) defaults() {
	defaultBounds(&cfg.Topic, &cfg.Records, &cfg.Duration)
	if cfg.Consumers < 1 {
		cfg.Consumers = 1
	}
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
	if cfg.Consumers > 1 {
		res.SetInt("consumers", int64(cfg.Consumers))
	}
	clients, err := consumeClients(ctx, cfg, opts)
	if err != nil {
		res.Fail(err)
		return res
	}
	defer func() {
		for _, cl := range clients {
			cl.Close()
		}
	}()
	loop, stop := pollEach(ctx, clients, cfg.Records)
	defer stop()
	runConsume(ctx, cfg, res, loop)
	return res
}

// consumeClients makes the run's clients: cfg.Consumers of them, each
// reading its share of the topic's partitions from their start.
func consumeClients(ctx context.Context, cfg ConsumeConfig, opts []kgo.Opt) ([]*kgo.Client, error) {
	listCtx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	starts, err := listOffsets(listCtx, cfg.Addr, cfg.Topic, logStart)
	if err != nil {
		return nil, err
	}
	shares := make([]map[int32]kgo.Offset, cfg.Consumers)
	for p := range starts {
		i := int(p) % cfg.Consumers
		if shares[i] == nil {
			shares[i] = map[int32]kgo.Offset{}
		}
		shares[i][p] = kgo.NewOffset().AtStart()
	}
	var clients []*kgo.Client
	for _, share := range shares {
		if share == nil {
			continue // more consumers than partitions
		}
		cl, err := newClient(cfg.Addr, append(opts,
			kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{cfg.Topic: share}))...)
		if err != nil {
			for _, made := range clients {
				made.Close()
			}
			return nil, err
		}
		clients = append(clients, cl)
	}
	return clients, nil
}

// polled is what one client's poll counted.
type polled struct {
	records, bytes int64
	err            error
}

// pollEach polls every client in a goroutine of its own, until records
// are taken between them, and hands the counts to runConsume's loop as
// they come. stop ends the goroutines and waits for them.
func pollEach(ctx context.Context, clients []*kgo.Client, records int64) (loop consumeLoop, stop func()) {
	ctx, cancel := context.WithCancel(ctx)
	counts := make(chan polled)
	var (
		wg   sync.WaitGroup
		left atomic.Int64
	)
	left.Store(records)
	for _, cl := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for want := left.Load(); ctx.Err() == nil && want > 0; want = left.Load() {
				n, b, err := pollRecords(ctx, cl, int(min(want, 1<<20)))
				left.Add(-n)
				select {
				case counts <- polled{n, b, err}:
				case <-ctx.Done():
					return
				}
				if err != nil {
					return
				}
			}
		}()
	}
	loop.poll = func(runCtx context.Context, _ int64) (records, bytes int64, err error) {
		select {
		case c := <-counts:
			return c.records, c.bytes, c.err
		case <-runCtx.Done():
			return 0, 0, nil
		}
	}
	return loop, func() { cancel(); wg.Wait() }
}

// pollRecords takes at most most records of what one client has fetched
// and counts them. A poll ended by ctx is not an error.
func pollRecords(ctx context.Context, cl *kgo.Client, most int) (records, bytes int64, err error) {
	fs := cl.PollRecords(ctx, most)
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
}
