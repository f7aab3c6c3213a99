package coordinator

import (
	"fmt"
	"io"
	"log/slog"
	"sync/atomic"
	"testing"
	"time"

	klog "github.com/karst-broker/karst/internal/log"
)

// BenchmarkWriteToDisk is BenchmarkWrite over a partition log on disk
// that acknowledges after fsync (group commit).
func BenchmarkWriteToDisk(b *testing.B) {
	for _, writers := range []int{1, 64} {
		b.Run(fmt.Sprintf("writers=%d", writers), func(b *testing.B) {
			l, err := klog.Open(b.TempDir(), klog.Config{}, slog.New(slog.NewTextHandler(io.Discard, nil)))
			if err != nil {
				b.Fatal(err)
			}
			defer l.Close()
			pl := NewPartitionLog(l, time.Now, func() (int32, error) { return 0, nil })
			benchWrites(b, oneLog{pl}, writers)
		})
	}
}

type oneLog struct{ PartitionLog }

func (o oneLog) Open(int32) (PartitionLog, error) { return o.PartitionLog, nil }

// BenchmarkWrite measures the runtime's write path (operation, batch,
// append, durability wait, replay, answer) over a MemoryLog, one writer
// and many: with many, writes that arrive while a batch is in flight
// share the next one.
func BenchmarkWrite(b *testing.B) {
	for _, writers := range []int{1, 64} {
		b.Run(fmt.Sprintf("writers=%d", writers), func(b *testing.B) {
			logs := NewMemoryLogs()
			benchWrites(b, logs, writers)
			if batches := logs.Partition(0).Batches(); batches > 0 {
				b.ReportMetric(float64(b.N)/float64(batches), "records/batch")
			}
		})
	}
}

// benchWrites runs b.N one-record writes from writers goroutines per CPU.
func benchWrites(b *testing.B, logs Logs, writers int) {
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
	rt.UnloadAll()
}
