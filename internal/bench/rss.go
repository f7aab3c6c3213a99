package bench

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"sync"
	"time"
)

// ReadRSS returns the resident set size of process pid in KiB, from the
// VmRSS line of /proc/PID/status.
func ReadRSS(pid int) (int64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	return parseVmRSS(b)
}

// parseVmRSS finds "VmRSS:    1234 kB" in a /proc status file.
func parseVmRSS(status []byte) (int64, error) {
	for len(status) > 0 {
		line := status
		if i := bytes.IndexByte(status, '\n'); i >= 0 {
			line, status = status[:i], status[i+1:]
		} else {
			status = nil
		}
		rest, ok := bytes.CutPrefix(line, []byte("VmRSS:"))
		if !ok {
			continue
		}
		f := bytes.Fields(rest)
		if len(f) != 2 || string(f[1]) != "kB" {
			return 0, fmt.Errorf("bench: odd VmRSS line %q", line)
		}
		return strconv.ParseInt(string(f[0]), 10, 64)
	}
	return 0, fmt.Errorf("bench: no VmRSS in status")
}

// rssSampler samples a process's RSS in the background during a run so
// that a result carries the broker's peak memory, not just a snapshot.
type rssSampler struct {
	pid   int
	stop  chan struct{}
	done  chan struct{}
	mu    sync.Mutex
	start int64
	peak  int64
	err   error
}

const rssSampleEvery = 100 * time.Millisecond

// startRSSSampler starts sampling pid; pid <= 0 gives a sampler that
// reports nothing.
func startRSSSampler(pid int) *rssSampler {
	s := &rssSampler{pid: pid, stop: make(chan struct{}), done: make(chan struct{})}
	if pid <= 0 {
		close(s.done)
		return s
	}
	s.start, s.err = ReadRSS(pid)
	s.peak = s.start
	go func() {
		defer close(s.done)
		t := time.NewTicker(rssSampleEvery)
		defer t.Stop()
		for {
			select {
			case <-s.stop:
				return
			case <-t.C:
				s.sample()
			}
		}
	}()
	return s
}

func (s *rssSampler) sample() int64 {
	v, err := ReadRSS(s.pid)
	s.mu.Lock()
	defer s.mu.Unlock()
	if err != nil {
		if s.err == nil {
			s.err = err
		}
		return 0
	}
	if v > s.peak {
		s.peak = v
	}
	return v
}

// finish stops sampling and adds rss_start_kb, rss_end_kb and rss_peak_kb
// to res.
func (s *rssSampler) finish(res *Result) {
	if s.pid <= 0 {
		return
	}
	close(s.stop)
	<-s.done
	end := s.sample()
	s.mu.Lock()
	defer s.mu.Unlock()
	res.SetInt("pid", int64(s.pid))
	res.SetInt("rss_start_kb", s.start)
	res.SetInt("rss_end_kb", end)
	res.SetInt("rss_peak_kb", s.peak)
	if s.err != nil {
		res.SetString("rss_error", s.err.Error())
	}
}
