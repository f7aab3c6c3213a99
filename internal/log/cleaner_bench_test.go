package log

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/karst-broker/karst/internal/record"
)

// BenchmarkClean cleans a log of 64 MiB: 262,144 records of 256-byte
// values over 10,000 keys in batches of 64 (uncompressed), in 8 MiB
// segments; it reports the log's bytes cleaned per second.
func BenchmarkClean(b *testing.B) {
	value := []byte(strings.Repeat("v", 256))
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		cfg := compactConfig()
		cfg.SegmentBytes = 8 << 20
		cfg.SegmentIndexBytes = 1 << 20
		cfg.Durability = PageCache
		l := openTest(b, b.TempDir()+"/bench-0", cfg)
		n := 0
		for n < 262_144 {
			rs := make([]record.Record, 64)
			for j := range rs {
				rs[j] = record.Record{Key: []byte(fmt.Sprintf("key-%05d", (n+j)*7919%10_000)), Value: value}
			}
			batch, err := record.Build(nil, record.BatchHeader{BaseTimestamp: 1, ProducerID: -1, ProducerEpoch: -1, BaseSequence: -1}, rs)
			if err != nil {
				b.Fatal(err)
			}
			mustAppend(b, l, batch)
			n += 64
		}
		c := l.CleanableSection(-1, time.Now())
		size := l.Size()
		b.StartTimer()
		st, err := l.Clean(b.Context(), c, CleanerSettings{DedupeBufferBytes: 128 << 20, LoadFactor: 0.9}, time.Now())
		b.StopTimer()
		if err != nil {
			b.Fatal(err)
		}
		b.SetBytes(size) // the log's size; each byte is read twice (offset map, then rewrite)
		b.ReportMetric(float64(st.BytesWritten)/float64(st.BytesRead)*100, "recopy%")
		l.Close()
	}
}
