package server

import (
	"fmt"
	"net"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// hostileRSSBound is how far the broker's resident memory may grow over
// a hostile case: generous, since the heap and the process include what
// the test itself builds, yet far below the gigabytes the cases once cost.
const hostileRSSBound = 512 << 20

// metadataLatencyDeadline is the longest a bystander's Metadata request
// may take during a hostile case: only a broker that stopped serving it
// would miss it.
const metadataLatencyDeadline = 10 * time.Second

// hostileWatch, while a hostile case runs, samples the resident memory of
// the broker's process and sends Metadata requests, one at a time, on a
// connection of its own, timing each answer.
type hostileWatch struct {
	t         testing.TB
	pid       int
	bound     int64
	before    int64
	stop      chan struct{}
	done      sync.WaitGroup
	peak      int64
	latencies []time.Duration
	err       error
}

// watchHostile starts watching the broker at addr, which runs as process
// pid, within hostileRSSBound.
func watchHostile(t testing.TB, pid int, addr string) *hostileWatch {
	t.Helper()
	return watchUpTo(t, pid, addr, hostileRSSBound)
}

// watchUpTo is watchHostile with a bound of its own on the RSS growth.
func watchUpTo(t testing.TB, pid int, addr string, bound int64) *hostileWatch {
	t.Helper()
	w := &hostileWatch{t: t, pid: pid, bound: bound, stop: make(chan struct{})}
	w.before = w.rss()
	w.peak = w.before
	c := dialTest(t, addr)
	req := kmsg.NewPtrMetadataRequest()
	req.SetVersion(12)
	req.Topics = []kmsg.MetadataRequestTopic{} // none: brokers and cluster only
	// One answer before the case starts: the connection has been
	// accepted, not merely queued in the listen backlog.
	if err := w.metadata(c, req, 0); err != nil {
		t.Fatalf("the bystander's first Metadata: %v", err)
	}
	w.done.Add(2)
	go func() {
		defer w.done.Done()
		tick := time.NewTicker(5 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-w.stop:
				return
			case <-tick.C:
				w.peak = max(w.peak, w.rss())
			}
		}
	}()
	go func() {
		defer w.done.Done()
		for id := int32(1); ; id++ {
			select {
			case <-w.stop:
				return
			default:
			}
			if w.err = w.metadata(c, req, id); w.err != nil {
				return
			}
			time.Sleep(time.Millisecond) // a client polling, not a flood
		}
	}()
	return w
}

// metadata sends req on c as correlation id and times its answer.
func (w *hostileWatch) metadata(c net.Conn, req *kmsg.MetadataRequest, id int32) error {
	start := time.Now()
	c.SetDeadline(start.Add(metadataLatencyDeadline))
	if _, err := c.Write(encodeRequest(req, id)); err != nil {
		return err
	}
	got, err := readResponse(c)
	if err == nil && got != id {
		err = fmt.Errorf("answer to correlation id %d, want %d", got, id)
	}
	if err == nil {
		w.latencies = append(w.latencies, time.Since(start))
	}
	return err
}

// rss is the resident memory of the watched process.
func (w *hostileWatch) rss() int64 {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", w.pid))
	if err != nil {
		return 0 // the process has ended, or there is no /proc
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, _ := strconv.ParseInt(strings.Fields(rest)[0], 10, 64)
			return kb << 10
		}
	}
	return 0
}

// finish stops watching, logs the figures and fails the test if the
// bystander was not served or the resident memory grew past the bound.
func (w *hostileWatch) finish(what string) {
	w.t.Helper()
	close(w.stop)
	w.done.Wait()
	after := w.rss()
	lat := slices.Clone(w.latencies)
	slices.Sort(lat)
	var p50, most time.Duration
	if len(lat) > 0 {
		p50, most = lat[len(lat)/2], lat[len(lat)-1]
	}
	w.t.Logf("%s: RSS %d MiB before, %d MiB at most, %d MiB after; bystander Metadata: %d answered, median %v, slowest %v",
		what, w.before>>20, w.peak>>20, after>>20, len(lat), p50, most)
	if w.err != nil {
		w.t.Fatalf("%s: the bystander's Metadata failed: %v", what, w.err)
	}
	if len(lat) == 0 {
		w.t.Fatalf("%s: the bystander's Metadata was never answered", what)
	}
	if w.before > 0 && w.peak-w.before > w.bound {
		w.t.Fatalf("%s: RSS grew %d MiB, bound %d MiB", what, (w.peak-w.before)>>20, w.bound>>20)
	}
}
