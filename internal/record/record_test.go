package record

import (
	"bytes"
	"errors"
	"fmt"
	"testing"
)

func sampleRecords(n int) []Record {
	rs := make([]Record, n)
	for i := range rs {
		rs[i] = Record{
			TimestampDelta: int64(i * 10),
			Key:            []byte(fmt.Sprintf("key-%d", i)),
			Value:          bytes.Repeat([]byte{byte('a' + i%26)}, 100+i),
		}
		if i%3 == 0 {
			rs[i].Key = nil
			rs[i].Headers = []Header{{Key: []byte("h"), Value: []byte("v")}, {Key: []byte("n"), Value: nil}}
		}
	}
	return rs
}

func buildBatch(t testing.TB, codec Codec, n int) []byte {
	t.Helper()
	b, err := Build(nil, BatchHeader{BaseTimestamp: 1000, ProducerID: -1, ProducerEpoch: -1, BaseSequence: -1, Codec: codec}, sampleRecords(n))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestHeaderFields(t *testing.T) {
	raw, err := Build(nil, BatchHeader{BaseOffset: 7, PartitionLeaderEpoch: 3, BaseTimestamp: 1000,
		ProducerID: 42, ProducerEpoch: 2, BaseSequence: 9, Attributes: TransactionalBit, Codec: CodecGzip}, sampleRecords(5))
	if err != nil {
		t.Fatal(err)
	}
	b, n, err := ParseBatch(raw, 0)
	if err != nil || n != len(raw) {
		t.Fatalf("parse: %v %d", err, n)
	}
	checks := []struct {
		name      string
		got, want int64
	}{
		{"baseOffset", b.BaseOffset(), 7},
		{"batchLength", int64(b.BatchLength()), int64(len(raw) - LogOverhead)},
		{"leaderEpoch", int64(b.PartitionLeaderEpoch()), 3},
		{"magic", int64(b.Magic()), 2},
		{"lastOffsetDelta", int64(b.LastOffsetDelta()), 4},
		{"baseTimestamp", b.BaseTimestamp(), 1000},
		{"maxTimestamp", b.MaxTimestamp(), 1040},
		{"producerId", b.ProducerID(), 42},
		{"producerEpoch", int64(b.ProducerEpoch()), 2},
		{"baseSequence", int64(b.BaseSequence()), 9},
		{"lastSequence", int64(b.LastSequence()), 13},
		{"recordCount", int64(b.RecordCount()), 5},
		{"lastOffset", b.LastOffset(), 11},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s = %d, want %d", c.name, c.got, c.want)
		}
	}
	if b.Codec() != CodecGzip || !b.IsTransactional() || b.IsControl() || b.TimestampType() != CreateTime {
		t.Errorf("attributes wrong: %x", b.Attributes())
	}
}

func TestInPlaceSetters(t *testing.T) {
	raw := buildBatch(t, CodecNone, 3)
	b := Batch(raw)
	crc := b.CRC()
	b.SetBaseOffset(1 << 40)
	b.SetPartitionLeaderEpoch(17)
	if b.CRC() != crc || !b.ValidCRC() {
		t.Fatal("baseOffset/leaderEpoch must not affect the CRC")
	}
	if b.BaseOffset() != 1<<40 || b.PartitionLeaderEpoch() != 17 {
		t.Fatal("setters did not stick")
	}
	b.SetLogAppendTime(99999)
	if !b.ValidCRC() || b.MaxTimestamp() != 99999 || b.TimestampType() != LogAppendTime {
		t.Fatal("SetLogAppendTime")
	}
}

func TestIncrementSequence(t *testing.T) {
	if IncrementSequence(0x7fffffff, 1) != 0 || IncrementSequence(0x7ffffffe, 3) != 1 || IncrementSequence(5, 2) != 7 {
		t.Fatal("wrap")
	}
}

func TestSplitter(t *testing.T) {
	var all []byte
	for i := 0; i < 4; i++ {
		all = append(all, buildBatch(t, CodecNone, i+1)...)
	}
	s := NewSplitter(all, 0)
	n := 0
	for {
		b, err := s.Next()
		if err != nil {
			t.Fatal(err)
		}
		if b == nil {
			break
		}
		n++
		if int(b.RecordCount()) != n {
			t.Fatalf("batch %d count %d", n, b.RecordCount())
		}
	}
	if n != 4 || !s.Done() {
		t.Fatalf("got %d batches", n)
	}
}

func TestSplitterErrors(t *testing.T) {
	good := buildBatch(t, CodecNone, 2)
	badCRC := append([]byte(nil), good...)
	badCRC[len(badCRC)-1] ^= 0xff
	badMagic := append([]byte(nil), good...)
	badMagic[MagicOffset] = 1
	tooShort := append([]byte(nil), good...)
	tooShort[11] = 10 // batchLength 10 < header
	tooShort[8], tooShort[9], tooShort[10] = 0, 0, 0
	negative := append([]byte(nil), good...)
	negative[8] = 0xff
	cases := []struct {
		name string
		buf  []byte
		want error
		pos  int
	}{
		{"truncated header", append(append([]byte(nil), good...), good[:10]...), ErrTruncated, len(good)},
		{"truncated body", append(append([]byte(nil), good...), good[:len(good)-1]...), ErrTruncated, len(good)},
		{"bad crc", append(append([]byte(nil), good...), badCRC...), ErrBadCRC, len(good)},
		{"bad magic", badMagic, ErrBadMagic, 0},
		{"too short", tooShort, ErrLengthOutOfRange, 0},
		{"negative", negative, ErrLengthOutOfRange, 0},
	}
	for _, c := range cases {
		s := NewSplitter(c.buf, 0)
		var err error
		for err == nil {
			var b Batch
			b, err = s.Next()
			if b == nil && err == nil {
				break
			}
		}
		var be *BatchError
		if !errors.Is(err, c.want) || !errors.As(err, &be) || be.Pos != c.pos {
			t.Errorf("%s: got %v, want %v at %d", c.name, err, c.want, c.pos)
		}
	}
	s := NewSplitter(good, len(good)-1)
	if _, err := s.Next(); !errors.Is(err, ErrLengthOutOfRange) {
		t.Errorf("max size: %v", err)
	}
}

func TestRecordsRoundTripAllCodecs(t *testing.T) {
	for _, codec := range []Codec{CodecNone, CodecGzip, CodecSnappy, CodecLZ4, CodecZstd} {
		t.Run(codec.String(), func(t *testing.T) {
			want := sampleRecords(50)
			raw := buildBatch(t, codec, 50)
			b, _, err := ParseBatch(raw, 0)
			if err != nil {
				t.Fatal(err)
			}
			if b.Codec() != codec {
				t.Fatalf("codec %v", b.Codec())
			}
			i := 0
			err = b.ForEachRecord(0, func(r *Record) error {
				w := want[i]
				if r.OffsetDelta != int32(i) || r.TimestampDelta != w.TimestampDelta ||
					!bytes.Equal(r.Key, w.Key) || (r.Key == nil) != (w.Key == nil) || !bytes.Equal(r.Value, w.Value) ||
					len(r.Headers) != len(w.Headers) {
					return fmt.Errorf("record %d differs", i)
				}
				for j, h := range r.Headers {
					if !bytes.Equal(h.Key, w.Headers[j].Key) || (h.Value == nil) != (w.Headers[j].Value == nil) {
						return fmt.Errorf("header %d/%d differs", i, j)
					}
				}
				i++
				return nil
			})
			if err != nil || i != 50 {
				t.Fatalf("err %v after %d records", err, i)
			}
			if codec != CodecNone {
				if _, err := b.Records(nil, 100); !errors.Is(err, ErrTooLarge) {
					t.Fatalf("cap not enforced: %v", err)
				}
			}
		})
	}
}

func TestRawSnappy(t *testing.T) {
	var raw []byte
	for _, r := range sampleRecords(3) {
		raw = AppendRecord(raw, &r)
	}
	framed, _ := Compress(nil, CodecSnappy, raw)
	out, err := Decompress(nil, CodecSnappy, framed[xerialHeaderLen+4:], 0)
	if err != nil || !bytes.Equal(out, raw) {
		t.Fatalf("raw snappy: %v", err)
	}
}

func TestZipBomb(t *testing.T) {
	big := make([]byte, 8<<20)
	for _, codec := range []Codec{CodecGzip, CodecSnappy, CodecLZ4, CodecZstd} {
		c, err := Compress(nil, codec, big)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Decompress(nil, codec, c, 1<<20); !errors.Is(err, ErrTooLarge) {
			t.Errorf("%v: %v", codec, err)
		}
	}
}

func TestCorruptRecords(t *testing.T) {
	raw := buildBatch(t, CodecNone, 3)
	b := Batch(raw)
	binary := []byte(b)
	binary[len(binary)-1] ^= 0x7f // breaks the last record, CRC no longer matters here
	err := b.ForEachRecord(0, func(*Record) error { return nil })
	if err == nil {
		t.Log("mutation happened to stay decodable")
	}
	// wrong count
	rr := NewRecordReader(b.RecordsData(), 2)
	var r Record
	for i := 0; i < 2; i++ {
		if err := rr.Next(&r); err != nil {
			t.Fatal(err)
		}
	}
	if err := rr.Next(&r); !errors.Is(err, ErrCorruptRecords) {
		t.Fatalf("trailing bytes not reported: %v", err)
	}
}

func BenchmarkSplitAndCRC(b *testing.B) {
	var all []byte
	for i := 0; i < 16; i++ {
		all = append(all, buildBatch(b, CodecNone, 10)...)
	}
	b.SetBytes(int64(len(all)))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		s := NewSplitter(all, 0)
		for {
			bt, err := s.Next()
			if err != nil {
				b.Fatal(err)
			}
			if bt == nil {
				break
			}
		}
	}
}

func TestValidateRecords(t *testing.T) {
	for _, codec := range []Codec{CodecNone, CodecLZ4} {
		b := Batch(buildBatch(t, codec, 7))
		if err := ValidateRecords(b, 0); err != nil {
			t.Fatalf("%v: %v", codec, err)
		}
	}
	b := Batch(buildBatch(t, CodecNone, 3))
	b[offLastOffsetDelta+3] = 5 // claims six records
	if err := ValidateRecords(b, 0); !errors.Is(err, ErrCorruptRecords) {
		t.Fatalf("mismatch not found: %v", err)
	}
}

func TestParseBatchRefusesNoBytes(t *testing.T) {
	if b, n, err := ParseBatch(nil, 0); err == nil || b != nil || n != 0 {
		t.Fatalf("ParseBatch(nil) = %v, %d, %v", b, n, err)
	}
}
