package server

import (
	"testing"
)

// BenchmarkPipelinedRequests sends small requests down one connection as
// fast as the server answers them: the per-request cost of the reader's
// path (frame, slot, request memory, decode budget, dispatch, writer).
// "limits=off" is the server without queued.max.request.bytes or decode
// budgets, the path as it was before they existed.
func BenchmarkPipelinedRequests(b *testing.B) {
	for _, tc := range []struct {
		name string
		cfg  Config
	}{
		{"limits=off", Config{DecodeBudget: -1}},
		{"decode-budget", Config{}},
		{"decode-budget+queued.max.request.bytes", Config{QueuedMaxRequestBytes: 100 << 20}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			_, addr := startBenchServer(b, tc.cfg)
			c := dialTest(b, addr)
			frame := apiVersions(1)
			b.ReportAllocs()
			b.ResetTimer()
			go func() {
				for range b.N {
					if _, err := c.Write(frame); err != nil {
						return
					}
				}
			}()
			for range b.N {
				if _, err := readResponse(c); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
