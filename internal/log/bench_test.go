package log

import (
	"context"
	"github.com/karst-broker/karst/internal/record"
	"path/filepath"
	"testing"
)

func BenchmarkAppend(b *testing.B) {
	cfg := testConfig()
	cfg.SegmentIndexBytes = 10 << 20
	l := openTest(b, filepath.Join(b.TempDir(), "t-0"), cfg)
	defer l.Close()
	batch := makeBatch(b, 10, 1, "0123456789012345678901234567890123456789")
	b.SetBytes(int64(len(batch)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := l.Append(batch, AppendOptions{LeaderEpoch: 0}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkAppendIdempotent(b *testing.B) {
	cfg := testConfig()
	cfg.SegmentIndexBytes = 10 << 20
	l := openTest(b, filepath.Join(b.TempDir(), "t-0"), cfg)
	defer l.Close()
	batch := makeProducerBatch(b, 10, 1, "0123456789012345678901234567890123456789", 9, 0, 0)
	rb := batchView(batch)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		rb.setSequence(int32(i * 10))
		if _, err := l.Append(batch, AppendOptions{LeaderEpoch: 0}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkAppendDurable(b *testing.B) {
	cfg := testConfig()
	cfg.SegmentIndexBytes = 10 << 20
	l := openTest(b, filepath.Join(b.TempDir(), "t-0"), cfg)
	defer l.Close()
	ctx := context.Background()
	batch := makeBatch(b, 10, 1, "0123456789012345678901234567890123456789")
	b.ReportAllocs()
	b.SetParallelism(8)
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		mine := append([]byte(nil), batch...)
		for pb.Next() {
			res, err := l.Append(mine, AppendOptions{LeaderEpoch: 0})
			if err == nil {
				err = l.WaitDurable(ctx, res.LastOffset)
			}
			if err != nil {
				b.Fatal(err)
			}
		}
	})
}

func BenchmarkRead(b *testing.B) {
	cfg := testConfig()
	cfg.SegmentIndexBytes = 10 << 20
	l := openTest(b, filepath.Join(b.TempDir(), "t-0"), cfg)
	defer l.Close()
	batch := makeBatch(b, 10, 1, "0123456789012345678901234567890123456789")
	for i := 0; i < 10000; i++ {
		if _, err := l.Append(batch, AppendOptions{}); err != nil {
			b.Fatal(err)
		}
	}
	leo := l.LogEndOffset()
	buf := make([]byte, 64<<10)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		var err error
		if buf, _, err = l.ReadBytes(buf, int64(i*7919)%leo, 16<<10, true); err != nil {
			b.Fatal(err)
		}
	}
}

type batchView []byte

func (v batchView) setSequence(seq int32) {
	v[53], v[54], v[55], v[56] = byte(seq>>24), byte(seq>>16), byte(seq>>8), byte(seq)
	recordBatch(v).UpdateCRC()
}

type recordBatch = record.Batch
