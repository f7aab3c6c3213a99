package bench

import (
	"math"
	"math/bits"
	"time"
)

// subBucketBits sets the histogram's precision: each power-of-two range of
// values is split into 2^subBucketBits equal sub-buckets, so any recorded
// value is known to within 1/2^subBucketBits (under 0.8%) of itself.
const (
	subBucketBits  = 7
	subBucketCount = 1 << subBucketBits
	// Values below 2*subBucketCount map to their own bucket; each further
	// power of two adds subBucketCount buckets, up to bits.Len64 == 63.
	histogramBuckets = (63-subBucketBits-1)*subBucketCount + 2*subBucketCount
)

// Histogram counts non-negative int64 values (nanoseconds, for latencies)
// in log-linear buckets, like HdrHistogram: exact below 256, and within
// 0.8% above. The zero value is ready to use. It is not safe for concurrent
// use; give each goroutine its own and Merge them.
type Histogram struct {
	counts []uint64
	total  uint64
	sum    float64
	min    int64
	max    int64
}

// bucketOf returns the bucket index of v (v >= 0).
func bucketOf(v int64) int {
	shift := bits.Len64(uint64(v)) - subBucketBits - 1
	if shift <= 0 {
		return int(v)
	}
	return shift*subBucketCount + int(v>>uint(shift))
}

// bucketHigh is the largest value that falls into bucket i.
func bucketHigh(i int) int64 {
	if i < 2*subBucketCount {
		return int64(i)
	}
	shift := i/subBucketCount - 1
	sub := int64(i%subBucketCount + subBucketCount)
	high := (sub+1)<<uint(shift) - 1
	if high < 0 { // the last buckets reach past MaxInt64
		return math.MaxInt64
	}
	return high
}

// Record adds one value; negative values count as zero.
func (h *Histogram) Record(v int64) {
	if v < 0 {
		v = 0
	}
	if h.counts == nil {
		h.counts = make([]uint64, histogramBuckets)
	}
	h.counts[bucketOf(v)]++
	if h.total == 0 || v < h.min {
		h.min = v
	}
	if v > h.max {
		h.max = v
	}
	h.total++
	h.sum += float64(v)
}

// RecordDuration adds d in nanoseconds.
func (h *Histogram) RecordDuration(d time.Duration) { h.Record(int64(d)) }

// Merge adds every value counted in o.
func (h *Histogram) Merge(o *Histogram) {
	if o == nil || o.total == 0 {
		return
	}
	if h.counts == nil {
		h.counts = make([]uint64, histogramBuckets)
	}
	for i, c := range o.counts {
		h.counts[i] += c
	}
	if h.total == 0 || o.min < h.min {
		h.min = o.min
	}
	if o.max > h.max {
		h.max = o.max
	}
	h.total += o.total
	h.sum += o.sum
}

// Count is the number of recorded values.
func (h *Histogram) Count() uint64 { return h.total }

// Min and Max are the exact smallest and largest recorded values (0 when
// empty).
func (h *Histogram) Min() int64 { return h.min }

// Max is the exact largest recorded value.
func (h *Histogram) Max() int64 { return h.max }

// Mean is the exact average of the recorded values.
func (h *Histogram) Mean() float64 {
	if h.total == 0 {
		return 0
	}
	return h.sum / float64(h.total)
}

// Quantile returns a value v such that a fraction q (0..1) of the recorded
// values are <= v, within the histogram's precision. As in HdrHistogram it
// answers the highest value of the bucket holding that rank, clamped to the
// exact min and max, so it never understates a latency.
func (h *Histogram) Quantile(q float64) int64 {
	if h.total == 0 {
		return 0
	}
	if q <= 0 {
		return h.min
	}
	if q >= 1 {
		return h.max
	}
	rank := uint64(math.Ceil(q * float64(h.total)))
	if rank < 1 {
		rank = 1
	}
	var seen uint64
	for i, c := range h.counts {
		seen += c
		if seen >= rank {
			v := bucketHigh(i)
			if v > h.max {
				v = h.max
			}
			if v < h.min {
				v = h.min
			}
			return v
		}
	}
	return h.max
}

// nsToMs converts nanoseconds to fractional milliseconds for reports.
func nsToMs(ns int64) float64 { return float64(ns) / 1e6 }
