package bench

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"
)

// APIVersionsConfig bounds an ApiVersions run.
type APIVersionsConfig struct {
	Addr     string
	Conns    int           // connections, each with its own pipeline (default 1)
	Window   int           // requests outstanding per connection (default 64)
	Requests int64         // total requests over all connections (default 1,000,000)
	Duration time.Duration // stop sending after this long (default 10s)
	Version  int16         // ApiVersions version to send, 1-4 (0 or out of range: 3, what current clients send first)
	Pid      int           // broker pid whose RSS to sample, 0 for none
}

func (c *APIVersionsConfig) defaults() {
	if c.Conns <= 0 {
		c.Conns = 1
	}
	if c.Window <= 0 {
		c.Window = 64
	}
	if c.Requests <= 0 {
		c.Requests = 1_000_000
	}
	if c.Duration <= 0 {
		c.Duration = 10 * time.Second
	}
	if c.Version <= 0 || c.Version > 4 {
		c.Version = 3
	}
}

// APIVersions sends ApiVersions requests as fast as the broker answers
// them: Conns connections, each keeping Window requests in flight and
// checking that responses come back in order with the right correlation
// id. It reports req_per_s and the per-request latency (write to answer).
func APIVersions(ctx context.Context, cfg APIVersionsConfig) *Result {
	cfg.defaults()
	res := NewResult("apiversions")
	res.SetInt("conns", int64(cfg.Conns))
	res.SetInt("window", int64(cfg.Window))
	rss := startRSSSampler(cfg.Pid)

	conns := make([]*rawConn, 0, cfg.Conns)
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	tmpl := apiVersionsRequest(cfg.Version)
	dialCtx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	for i := 0; i < cfg.Conns; i++ {
		c, err := dialRaw(dialCtx, cfg.Addr)
		if err != nil {
			res.Fail(fmt.Errorf("dial %d: %w", i, err))
			return res
		}
		conns = append(conns, c)
		// One full round trip first: the run measures a working broker.
		if err := c.roundTrip(append([]byte(nil), tmpl...), cfg.Version, -1); err != nil {
			res.Fail(fmt.Errorf("first ApiVersions on conn %d: %w", i, err))
			return res
		}
	}

	var budget atomic.Int64
	budget.Store(cfg.Requests)
	deadline := time.Now().Add(cfg.Duration)
	hists := make([]Histogram, cfg.Conns)
	counts := make([]int64, cfg.Conns)
	errs := make([]error, cfg.Conns)
	var wg sync.WaitGroup
	start := time.Now()
	for i, c := range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			counts[i], errs[i] = pipeline(ctx, c, tmpl, cfg.Window, &budget, deadline, &hists[i])
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)

	var total int64
	var h Histogram
	for i := range conns {
		total += counts[i]
		h.Merge(&hists[i])
	}
	res.SetInt("requests", total)
	res.SetFloat("secs", elapsed.Seconds())
	res.SetFloat("req_per_s", float64(total)/elapsed.Seconds())
	res.setLatency(&h)
	rss.finish(res)
	res.Fail(errors.Join(errs...))
	return res
}

// pipeline keeps up to window requests in flight on c until the shared
// budget runs out or the deadline passes, and records each request's
// latency into h. It returns how many responses were checked.
func pipeline(ctx context.Context, c *rawConn, tmpl []byte, window int, budget *atomic.Int64, deadline time.Time, h *Histogram) (int64, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	// The reader hands back a slot for every answer; the writer takes one
	// for every request, so at most window requests are ever outstanding.
	slots := make(chan struct{}, window)
	for i := 0; i < window; i++ {
		slots <- struct{}{}
	}
	// sent carries each request's send time to the reader, in order; the
	// writer closes it when it stops, which is how the reader knows when
	// the last answer has arrived.
	sent := make(chan time.Time, window)
	// A stalled broker must not hang the run.
	c.conn.SetDeadline(deadline.Add(10 * time.Second))
	defer c.conn.SetDeadline(time.Time{})

	writeErr := make(chan error, 1)
	go func() {
		defer close(sent)
		buf := make([]byte, 0, window*len(tmpl))
		id := int32(0)
		claim := func() bool {
			if budget.Add(-1) < 0 {
				return false
			}
			buf = append(buf, tmpl...)
			patchCorrelationID(buf[len(buf)-len(tmpl):], id)
			id++
			return true
		}
		for {
			select {
			case <-slots:
			case <-ctx.Done():
				writeErr <- nil
				return
			}
			if time.Now().After(deadline) || !claim() {
				writeErr <- nil
				return
			}
			n := 1
		more: // batch every free slot into one write
			for {
				select {
				case <-slots:
					if !claim() {
						slots <- struct{}{}
						break more
					}
					n++
				default:
					break more
				}
			}
			now := time.Now()
			for i := 0; i < n; i++ {
				sent <- now
			}
			if _, err := c.conn.Write(buf); err != nil {
				writeErr <- err
				return
			}
			buf = buf[:0]
		}
	}()

	var got int64
	var readErr error
	for t0 := range sent {
		frame, err := readFrame(c.r, c.buf, maxResponseFrame)
		if err != nil {
			readErr = err
			break
		}
		c.buf = frame[:0]
		corr, code, err := apiVersionsHead(frame)
		if err != nil {
			readErr = err
			break
		}
		if corr != int32(got) {
			readErr = fmt.Errorf("bench: correlation id %d, want %d", corr, got)
			break
		}
		if code != 0 {
			readErr = fmt.Errorf("bench: ApiVersions error code %d", code)
			break
		}
		h.RecordDuration(time.Since(t0))
		got++
		slots <- struct{}{}
	}
	if readErr != nil {
		cancel()
		for range sent { // let the writer finish
		}
	}
	return got, errors.Join(readErr, <-writeErr)
}
