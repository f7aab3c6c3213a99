package record

import (
	"bytes"
	"fmt"
	"testing"
)

func TestRecompressKeepsRecordsAndHeader(t *testing.T) {
	var recs []Record
	for i := range 30 {
		recs = append(recs, Record{TimestampDelta: int64(i), Key: []byte(fmt.Sprint("k", i)), Value: bytes.Repeat([]byte("v"), i),
			Headers: []Header{{Key: []byte("h"), Value: []byte("x")}}})
	}
	orig, err := Build(nil, BatchHeader{BaseOffset: 5, BaseTimestamp: 1000, ProducerID: 9, ProducerEpoch: 1, BaseSequence: 3, Codec: CodecGzip}, recs)
	if err != nil {
		t.Fatal(err)
	}
	for _, codec := range []Codec{CodecNone, CodecSnappy, CodecLZ4, CodecZstd, CodecGzip} {
		b, err := Recompress(nil, Batch(orig), codec, DefaultMaxDecompressed)
		if err != nil {
			t.Fatalf("%v: %v", codec, err)
		}
		if b.Codec() != codec || !b.ValidCRC() || int(b.BatchLength())+LogOverhead != len(b) {
			t.Fatalf("%v: codec %v, crc ok %v, length %d of %d", codec, b.Codec(), b.ValidCRC(), b.BatchLength(), len(b))
		}
		if b.BaseOffset() != 5 || b.ProducerID() != 9 || b.BaseSequence() != 3 || b.RecordCount() != 30 || b.MaxTimestamp() != Batch(orig).MaxTimestamp() {
			t.Fatalf("%v: header changed", codec)
		}
		i := 0
		err = b.ForEachRecord(DefaultMaxDecompressed, func(r *Record) error {
			if !bytes.Equal(r.Key, recs[i].Key) || !bytes.Equal(r.Value, recs[i].Value) || r.TimestampDelta != recs[i].TimestampDelta {
				return fmt.Errorf("record %d differs", i)
			}
			i++
			return nil
		})
		if err != nil || i != 30 {
			t.Fatalf("%v: %v after %d records", codec, err, i)
		}
	}
}
