package console

import (
	"context"
	"sort"
	"sync"
	"time"

	"github.com/karst-broker/karst/internal/metrics"
)

// sampler keeps the broker's counters at a fixed interval over a window,
// from which the overview draws rates: the console shows the last minutes
// even when nothing scrapes the broker.
type sampler struct {
	m      *metrics.Metrics
	every  time.Duration
	keep   int
	mu     sync.Mutex
	ring   []sample // oldest first
	nowFor func() time.Time
}

type sample struct {
	at time.Time
	metrics.Totals
}

func newSampler(m *metrics.Metrics, every, window time.Duration) *sampler {
	return &sampler{m: m, every: every, keep: int(window/every) + 1, nowFor: time.Now}
}

func (s *sampler) run(ctx context.Context) {
	s.take()
	t := time.NewTicker(s.every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			s.take()
		}
	}
}

func (s *sampler) take() {
	if s.m == nil {
		return
	}
	next := sample{at: s.nowFor(), Totals: s.m.Totals()}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ring = append(s.ring, next)
	if len(s.ring) > s.keep {
		s.ring = append(s.ring[:0], s.ring[len(s.ring)-s.keep:]...)
	}
}

// point is one interval's rate, at its end.
type point struct {
	At    time.Time
	Value float64
}

// series is one chart's points and its most recent value.
type series struct {
	Name   string
	Unit   string
	Points []point
}

// Last is the newest point's value, or 0.
func (s series) Last() float64 {
	if len(s.Points) == 0 {
		return 0
	}
	return s.Points[len(s.Points)-1].Value
}

// Max is the largest value.
func (s series) Max() float64 {
	m := 0.0
	for _, p := range s.Points {
		m = max(m, p.Value)
	}
	return m
}

// throughput is the rates per second between consecutive samples.
func (s *sampler) throughput() []series {
	s.mu.Lock()
	defer s.mu.Unlock()
	rate := func(name, unit string, of func(sample) float64) series {
		out := series{Name: name, Unit: unit}
		for i := 1; i < len(s.ring); i++ {
			prev, cur := s.ring[i-1], s.ring[i]
			secs := cur.at.Sub(prev.at).Seconds()
			if secs <= 0 {
				continue
			}
			out.Points = append(out.Points, point{At: cur.at, Value: max(0, of(cur)-of(prev)) / secs})
		}
		return out
	}
	requests := func(smp sample) float64 {
		n := 0.0
		for _, r := range smp.Requests {
			n += float64(r.Count)
		}
		return n
	}
	return []series{
		rate("Messages in", "msg/s", func(smp sample) float64 { return smp.MessagesIn }),
		rate("Bytes in", "B/s", func(smp sample) float64 { return smp.BytesIn }),
		rate("Bytes out", "B/s", func(smp sample) float64 { return smp.BytesOut }),
		rate("Requests", "req/s", requests),
	}
}

// latency is the mean request time of each API that was answered in the
// window, per interval (an interval without requests has no point).
func (s *sampler) latency() []series {
	s.mu.Lock()
	defer s.mu.Unlock()
	byAPI := map[string]*series{}
	for i := 1; i < len(s.ring); i++ {
		prev, cur := s.ring[i-1], s.ring[i]
		for api, r := range cur.Requests {
			before := prev.Requests[api]
			if r.Count <= before.Count {
				continue
			}
			ser := byAPI[api]
			if ser == nil {
				ser = &series{Name: api, Unit: "ms"}
				byAPI[api] = ser
			}
			ser.Points = append(ser.Points, point{At: cur.at, Value: (r.TimeMs - before.TimeMs) / float64(r.Count-before.Count)})
		}
	}
	out := make([]series, 0, len(byAPI))
	for _, ser := range byAPI {
		out = append(out, *ser)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}
