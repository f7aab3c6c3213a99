package legacy

import (
	"bytes"
	"testing"

	"github.com/karst-broker/karst/internal/record"
)

// FuzzDecode holds Decode to never panicking, and to up-converting whatever
// it accepts into a batch that holds the same records.
func FuzzDecode(f *testing.F) {
	f.Add(guideMessage(0, 0, 0, 0, []byte("k"), []byte("v")))
	f.Add(guideMessage(3, 1, 0, 42, nil, []byte("v")))
	for _, codec := range []record.Codec{record.CodecGzip, record.CodecSnappy} {
		inner := append(guideMessage(0, 1, 0, 1, nil, []byte("a")), guideMessage(1, 1, 0, 2, []byte("k"), nil)...)
		v, _ := record.Compress(nil, codec, inner)
		f.Add(guideMessage(1, 1, int8(codec), 2, nil, v))
	}
	f.Add(guideMessage(1, 0, int8(record.CodecLZ4), 0, nil,
		appendLZ4Frame(nil, guideMessage(0, 0, 0, 0, nil, []byte("lz4")), true)))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := Decode(data, 1<<20)
		if err != nil {
			return
		}
		out, err := s.AppendBatch(nil, record.CodecNone, record.CreateTime)
		if err != nil {
			t.Fatal(err)
		}
		b, _, err := record.ParseBatch(out, len(out))
		if err != nil {
			t.Fatal(err)
		}
		i := 0
		if err := b.ForEachRecord(0, func(r *record.Record) error {
			if !bytes.Equal(r.Key, s.Entries[i].Key) || !bytes.Equal(r.Value, s.Entries[i].Value) {
				t.Fatalf("record %d differs", i)
			}
			i++
			return nil
		}); err != nil || i != len(s.Entries) {
			t.Fatalf("%v after %d of %d", err, i, len(s.Entries))
		}
	})
}

// FuzzDownConvert holds down-conversion of any batch that parses to never
// panicking, and to producing a set that Decode reads back.
func FuzzDownConvert(f *testing.F) {
	for _, codec := range []record.Codec{record.CodecNone, record.CodecGzip, record.CodecLZ4} {
		f.Add(append([]byte{1}, v2Batch(f, codec, 10, record.CreateTime, 3, 2)...))
		f.Add(append([]byte{0}, v2Batch(f, codec, 10, record.LogAppendTime, 2, 2)...))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) == 0 {
			return
		}
		magic := int8(data[0] & 1)
		data = data[1:]
		b, _, err := record.ParseBatch(data, len(data))
		if err != nil {
			return
		}
		out, err := AppendDownConverted(nil, b, magic, 0, 1<<20)
		if err != nil || len(out) == 0 {
			return
		}
		if _, err := Decode(out, 1<<22); err != nil {
			t.Fatalf("down-converted set does not decode: %v", err)
		}
	})
}

func FuzzDecodeLZ4Frame(f *testing.F) {
	f.Add(appendLZ4Frame(nil, []byte("some bytes some bytes"), false))
	f.Add(appendLZ4Frame(nil, bytes.Repeat([]byte{7}, 70000), true))
	f.Fuzz(func(t *testing.T, data []byte) {
		out, err := decodeLZ4Frame(nil, data, 1<<20)
		if err == nil && len(out) > 1<<20 {
			t.Fatalf("%d bytes past the bound", len(out))
		}
	})
}

// FuzzDownConverter holds the lazy converter, over any bytes a segment
// slice might hold, to never panicking and to making exactly Size bytes.
func FuzzDownConverter(f *testing.F) {
	f.Add(int64(0), int64(0), []byte(v2Batch(f, record.CodecGzip, 3, record.CreateTime, 4, 2)))
	f.Add(int64(5), int64(1), append([]byte(v2Batch(f, record.CodecNone, 0, record.CreateTime, 9, 1)), 1, 2, 3))
	f.Fuzz(func(t *testing.T, from, cut int64, seg []byte) {
		length := int64(len(seg)) - max(min(cut, int64(len(seg))), 0)
		c, err := NewDownConverter(bytes.NewReader(seg), 0, length, int8(from&1), from, nil)
		if err != nil {
			return
		}
		total := int64(0)
		for chunk := c.Next(nil); len(chunk) > 0; chunk = c.Next(nil) {
			total += int64(len(chunk))
		}
		if total != c.Size() {
			t.Fatalf("%d bytes made, Size %d", total, c.Size())
		}
	})
}
