package metrics

import (
	"testing"
	"time"
)

// benchRequests is a mix of what a busy broker answers.
var benchRequests = [...]struct{ key, version int16 }{
	{0, 9}, {1, 13}, {3, 12}, {8, 8}, {9, 8}, {12, 4}, {18, 3}, {1, 16},
}

func BenchmarkRequestMetric(b *testing.B) {
	m := New()
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		r := benchRequests[i%len(benchRequests)]
		m.Request(r.key, r.version, time.Millisecond)
	}
}
