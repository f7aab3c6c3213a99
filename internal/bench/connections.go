package bench

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"
)

// ConnectionsConfig bounds a Connections run.
type ConnectionsConfig struct {
	Addr    string
	Conns   int           // idle connections to open (default 1000, at most 10,000)
	Dialers int           // connections opened at once (default 32)
	Hold    time.Duration // keep them open this long after the last one opened
	Timeout time.Duration // bound on the whole run (default 60s)
	Pid     int           // broker pid whose RSS is read before and after
}

// MaxConnections is the largest Conns that Connections accepts.
const MaxConnections = 10_000

// Connections opens Conns connections, each answering one ApiVersions,
// holds them idle, reads the broker's RSS, and then checks that every one
// still answers before closing them all. With a Pid it reports
// rss_before_kb (before the first dial), rss_after_kb (all open) and
// rss_per_conn_kb.
func Connections(ctx context.Context, cfg ConnectionsConfig) *Result {
	if cfg.Conns <= 0 {
		cfg.Conns = 1000
	}
	if cfg.Dialers <= 0 {
		cfg.Dialers = 32
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = 60 * time.Second
	}
	res := NewResult("connections")
	res.SetInt("conns", int64(cfg.Conns))
	if cfg.Conns > MaxConnections {
		res.Fail(fmt.Errorf("conns %d above the limit of %d", cfg.Conns, MaxConnections))
		return res
	}
	if _, err := raiseOpenFiles(uint64(cfg.Conns) + 256); err != nil {
		res.Fail(fmt.Errorf("raising RLIMIT_NOFILE: %w", err))
		return res
	}
	ctx, cancel := context.WithTimeout(ctx, cfg.Timeout)
	defer cancel()

	var before int64
	if cfg.Pid > 0 {
		var err error
		if before, err = ReadRSS(cfg.Pid); err != nil {
			res.Fail(err)
			return res
		}
		res.SetInt("rss_before_kb", before)
	}

	const version = 3
	conns := make([]*rawConn, cfg.Conns)
	defer func() {
		for _, c := range conns {
			if c != nil {
				c.Close()
			}
		}
	}()
	start := time.Now()
	err := forEach(ctx, cfg.Conns, cfg.Dialers, func(i int) error {
		c, err := dialRaw(ctx, cfg.Addr)
		if err != nil {
			return fmt.Errorf("dial %d: %w", i, err)
		}
		conns[i] = c
		if dl, ok := ctx.Deadline(); ok {
			c.conn.SetDeadline(dl)
		}
		return c.roundTrip(apiVersionsRequest(version), version, 0)
	})
	open := time.Since(start)
	res.SetFloat("open_secs", open.Seconds())
	if err != nil {
		res.Fail(err)
		return res
	}
	if cfg.Hold > 0 {
		select {
		case <-time.After(cfg.Hold):
		case <-ctx.Done():
		}
	}
	if cfg.Pid > 0 {
		after, err := ReadRSS(cfg.Pid)
		if err != nil {
			res.Fail(err)
			return res
		}
		res.SetInt("rss_after_kb", after)
		res.SetFloat("rss_per_conn_kb", float64(after-before)/float64(cfg.Conns))
	}
	// Idle is only interesting if the broker kept every connection.
	var alive atomic.Int64
	err = forEach(ctx, cfg.Conns, cfg.Dialers, func(i int) error {
		if err := conns[i].roundTrip(apiVersionsRequest(version), version, 1); err != nil {
			return fmt.Errorf("conn %d after holding: %w", i, err)
		}
		alive.Add(1)
		return nil
	})
	res.SetInt("alive", alive.Load())
	res.Fail(err)
	return res
}

// forEach runs fn(0..n-1) on `workers` goroutines and returns the first
// few errors; it stops handing out work once one fails or ctx ends.
func forEach(ctx context.Context, n, workers int, fn func(i int) error) error {
	var next atomic.Int64
	var mu sync.Mutex
	var errs []error
	var failed atomic.Bool
	var wg sync.WaitGroup
	for w := 0; w < min(workers, n); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !failed.Load() && ctx.Err() == nil {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				if err := fn(i); err != nil {
					failed.Store(true)
					mu.Lock()
					if len(errs) < 3 {
						errs = append(errs, err)
					}
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	if len(errs) == 0 && ctx.Err() != nil && int(next.Load()) < n {
		return ctx.Err()
	}
	return errors.Join(errs...)
}
