package record

import (
	"errors"
	"io"
	"testing"
)

func FuzzSplitter(f *testing.F) {
	f.Add(buildBatch(f, CodecNone, 2))
	f.Add(append(buildBatch(f, CodecGzip, 3), buildBatch(f, CodecNone, 1)...))
	f.Add([]byte{0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0, 2})
	f.Fuzz(func(t *testing.T, data []byte) {
		s := NewSplitter(data, 1<<20)
		total := 0
		for {
			b, err := s.Next()
			if err != nil {
				var be *BatchError
				if !errors.As(err, &be) || be.Pos != total {
					t.Fatalf("error %v at wrong position (want %d)", err, total)
				}
				return
			}
			if b == nil {
				if total != len(data) {
					t.Fatal("stopped early")
				}
				return
			}
			if !b.ValidCRC() || int(b.BatchLength())+LogOverhead != len(b) {
				t.Fatal("invalid batch returned")
			}
			total += len(b)
			_ = b.ForEachRecord(1<<20, func(*Record) error { return nil })
		}
	})
}

func FuzzRecords(f *testing.F) {
	f.Add(Batch(buildBatch(f, CodecNone, 3)).RecordsData(), int32(3), int8(0))
	f.Add(Batch(buildBatch(f, CodecZstd, 3)).RecordsData(), int32(3), int8(4))
	f.Add(Batch(buildBatch(f, CodecSnappy, 3)).RecordsData(), int32(3), int8(2))
	f.Add(Batch(buildBatch(f, CodecLZ4, 3)).RecordsData(), int32(3), int8(3))
	f.Add(Batch(buildBatch(f, CodecGzip, 3)).RecordsData(), int32(3), int8(1))
	f.Fuzz(func(t *testing.T, data []byte, count int32, codec int8) {
		out, err := Decompress(nil, Codec(codec&7), data, 1<<20)
		if err != nil {
			return
		}
		if len(out) > 1<<20 {
			t.Fatal("cap exceeded")
		}
		rr := NewRecordReader(out, count)
		var r Record
		for i := 0; i < 1<<20; i++ {
			if err := rr.Next(&r); err != nil {
				if err != io.EOF && !errors.Is(err, ErrCorruptRecords) {
					t.Fatal(err)
				}
				return
			}
		}
	})
}
