package quota

// sample is one window of a sampled statistic (Kafka's SampledStat.Sample).
// Times are milliseconds.
type sample struct {
	value     float64
	events    int64
	start     int64
	lastEvent int64
}

func (s *sample) reset(now int64) { *s = sample{start: now, lastEvent: now} }

// Window is a sampled statistic's shape: Num windows of Size milliseconds
// (Kafka's MetricConfig samples and timeWindowMs).
type Window struct {
	Num    int
	SizeMs int64
}

// sampled is Kafka's SampledStat over a windowed sum: Num+1 samples, one
// of them the "overlapping" sample that started before the monitored
// window but still has events in it.
type sampled struct {
	samples []sample
	current int
}

func (s *sampled) currentSample(now int64) *sample {
	if len(s.samples) == 0 {
		s.samples = append(s.samples, sample{start: now, lastEvent: now})
	}
	return &s.samples[s.current]
}

func (s *sampled) record(w Window, value float64, now int64) {
	cur := s.currentSample(now)
	if now-cur.start >= w.SizeMs {
		cur = s.advance(w, now)
	}
	cur.value += value
	cur.events++
	cur.lastEvent = now
}

func (s *sampled) advance(w Window, now int64) *sample {
	s.current = (s.current + 1) % (w.Num + 1)
	if s.current >= len(s.samples) {
		s.samples = append(s.samples, sample{start: now, lastEvent: now})
		return &s.samples[s.current]
	}
	cur := &s.samples[s.current]
	cur.reset(now)
	return cur
}

// purge resets the samples with no event within the monitored window.
func (s *sampled) purge(w Window, now int64) {
	expireAge := int64(w.Num) * w.SizeMs
	for i := range s.samples {
		if now-s.samples[i].lastEvent >= expireAge {
			s.samples[i].reset(now)
		}
	}
}

func (s *sampled) sum(w Window, now int64) (value float64, events int64) {
	s.purge(w, now)
	for _, x := range s.samples {
		value += x.value
		events += x.events
	}
	return value, events
}

func (s *sampled) oldest(now int64) *sample {
	if len(s.samples) == 0 {
		s.samples = append(s.samples, sample{start: now, lastEvent: now})
	}
	oldest := &s.samples[0]
	for i := 1; i < len(s.samples); i++ {
		if s.samples[i].start < oldest.start {
			oldest = &s.samples[i]
		}
	}
	return oldest
}

// rate is Kafka's Rate over a WindowedSum, per second.
type rate struct{ sampled }

// windowSize is Rate.windowSize: the time since the oldest live sample,
// but never less than Num-1 full windows, and at least 1 ms.
func (r *rate) windowSize(w Window, now int64) int64 {
	r.purge(w, now)
	total := now - r.oldest(now).start
	full := total / w.SizeMs
	if minFull := int64(w.Num - 1); full < minFull {
		total += (minFull - full) * w.SizeMs
	}
	return max(total, 1)
}

// measure is the rate per second at now.
func (r *rate) measure(w Window, now int64) float64 {
	v, _ := r.sum(w, now)
	return v / (float64(r.windowSize(w, now)) / 1000)
}

// avg is Kafka's Avg: the mean of the values recorded in the live windows.
type avg struct{ sampled }

func (a *avg) measure(w Window, now int64) float64 {
	v, n := a.sum(w, now)
	if n == 0 {
		return 0
	}
	return v / float64(n)
}

// tokenBucket is Kafka's TokenBucket (KIP-599): it fills at bound per
// second up to bound × Num × window seconds, and records take tokens out,
// possibly below zero. It starts full (Kafka's starts at time 0).
type tokenBucket struct {
	tokens     float64
	lastUpdate int64
}

func burst(w Window, bound float64) float64 {
	return float64(w.Num) * float64(w.SizeMs) / 1000 * bound
}

func (t *tokenBucket) refill(w Window, bound float64, now int64) {
	t.tokens = min(burst(w, bound), t.tokens+bound*float64(now-t.lastUpdate)/1000)
	t.lastUpdate = now
}

func (t *tokenBucket) measure(w Window, bound float64, now int64) float64 {
	t.refill(w, bound, now)
	return t.tokens
}

func (t *tokenBucket) record(w Window, bound, value float64, now int64) {
	t.refill(w, bound, now)
	t.tokens = min(burst(w, bound), t.tokens-value)
}
