package bench

import (
	"math"
	"math/rand/v2"
	"sort"
	"testing"
)

func TestBucketsAreContiguousAndOrdered(t *testing.T) {
	// Every bucket's range starts right after the previous one ends.
	prevHigh := int64(-1)
	for i := 0; i < histogramBuckets; i++ {
		high := bucketHigh(i)
		if high <= prevHigh {
			t.Fatalf("bucket %d high %d <= previous %d", i, high, prevHigh)
		}
		if got := bucketOf(prevHigh + 1); got != i {
			t.Fatalf("bucketOf(%d) = %d, want %d", prevHigh+1, got, i)
		}
		if got := bucketOf(high); got != i {
			t.Fatalf("bucketOf(%d) = %d, want %d", high, got, i)
		}
		prevHigh = high
		if high == math.MaxInt64 {
			if i != histogramBuckets-1 {
				t.Fatalf("MaxInt64 reached at bucket %d of %d", i, histogramBuckets)
			}
			break
		}
	}
	if prevHigh != math.MaxInt64 {
		t.Fatalf("buckets end at %d, not MaxInt64", prevHigh)
	}
}

func TestHistogramEmpty(t *testing.T) {
	var h Histogram
	if h.Count() != 0 || h.Quantile(0.5) != 0 || h.Max() != 0 || h.Mean() != 0 {
		t.Fatalf("empty histogram not zero: %+v", h)
	}
}

func TestHistogramExactBelow256(t *testing.T) {
	var h Histogram
	for v := int64(1); v <= 200; v++ {
		h.Record(v)
	}
	if got := h.Quantile(0.5); got != 100 {
		t.Errorf("p50 = %d, want 100", got)
	}
	if got := h.Quantile(0.99); got != 198 {
		t.Errorf("p99 = %d, want 198", got)
	}
	if h.Min() != 1 || h.Max() != 200 || h.Count() != 200 {
		t.Errorf("min/max/count = %d/%d/%d", h.Min(), h.Max(), h.Count())
	}
	if h.Mean() != 100.5 {
		t.Errorf("mean = %v", h.Mean())
	}
}

// Against exact percentiles of a wide, skewed sample, the answer is never
// below the true value and at most 1/128 above it.
func TestHistogramQuantileErrorBound(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var h Histogram
	vals := make([]int64, 100000)
	for i := range vals {
		v := int64(math.Exp(rng.Float64()*25)) + int64(rng.IntN(1000)) // 0 .. ~7e10
		vals[i] = v
		h.Record(v)
	}
	sort.Slice(vals, func(i, j int) bool { return vals[i] < vals[j] })
	for _, q := range []float64{0.01, 0.1, 0.5, 0.9, 0.99, 0.999, 0.9999} {
		rank := int(math.Ceil(q*float64(len(vals)))) - 1
		want := vals[rank]
		got := h.Quantile(q)
		if got < want || float64(got-want) > float64(want)/subBucketCount+1 {
			t.Errorf("q%v = %d, exact %d (error %.4f%%)", q, got, want, 100*float64(got-want)/float64(want))
		}
	}
	if h.Quantile(1) != vals[len(vals)-1] || h.Quantile(0) != vals[0] {
		t.Errorf("q0/q1 = %d/%d, want %d/%d", h.Quantile(0), h.Quantile(1), vals[0], vals[len(vals)-1])
	}
}

func TestHistogramMergeAndExtremes(t *testing.T) {
	var a, b Histogram
	a.Record(-5) // counts as zero
	a.Record(10)
	b.Record(math.MaxInt64)
	b.Record(1_000_000)
	a.Merge(&b)
	a.Merge(nil)
	a.Merge(&Histogram{})
	if a.Count() != 4 || a.Min() != 0 || a.Max() != math.MaxInt64 {
		t.Fatalf("count/min/max = %d/%d/%d", a.Count(), a.Min(), a.Max())
	}
	if got := a.Quantile(0.75); got < 1_000_000 || got > 1_000_000+1_000_000/subBucketCount {
		t.Errorf("p75 = %d", got)
	}
	if got := a.Quantile(0.999); got != math.MaxInt64 {
		t.Errorf("p99.9 = %d", got)
	}
}
