package coordinator

import (
	"fmt"
	"io"
	"log/slog"
	"sync/atomic"
	"testing"
)

// BenchmarkWrite measures the runtime's write path (operation, batch,
// append, durability wait, replay, answer) over a MemoryLog, one writer
// and many: with many, writes that arrive while a batch is in flight
// share the next one.
func BenchmarkWrite(b *testing.B) {
	for _, writers := range []int{1, 64} {
		b.Run(fmt.Sprintf("writers=%d", writers), func(b *testing.B) {
			logs := NewMemoryLogs()
			rt := New(Options[*kvShard]{Logs: logs, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
				NewShard: func(ctx *Context) *kvShard { return &kvShard{ctx: ctx, kv: map[string]string{}} }})
			if err := rt.Load(0); err != nil {
				b.Fatal(err)
			}
			var n atomic.Int64
			b.SetParallelism(writers)
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					key := fmt.Sprint("k", n.Add(1))
					if _, err := Write(rt, 0, func(*kvShard) (Result[struct{}], error) {
						return Result[struct{}]{Records: []Record{{Key: []byte(key), Value: []byte("v")}}}, nil
					}); err != nil {
						b.Fatal(err)
					}
				}
			})
			b.StopTimer()
			if batches := logs.Partition(0).Batches(); batches > 0 {
				b.ReportMetric(float64(b.N)/float64(batches), "records/batch")
			}
		})
	}
}
