package legacy

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"testing"

	"github.com/pierrec/lz4/v4"

	"github.com/karst-broker/karst/internal/record"
	"github.com/karst-broker/karst/internal/record/legacy/legacytest"
)

// guideMessage lays out one message field by field in the order of the 0.8
// protocol guide, independently of appendMessage.
var guideMessage = legacytest.Message

func TestDecodeReadsTheGuidesLayout(t *testing.T) {
	set := append(guideMessage(0, 0, 0, 0, []byte("k1"), []byte("v1")),
		guideMessage(0, 0, 0, 0, nil, []byte("v2"))...)
	s, err := Decode(set, 0)
	if err != nil {
		t.Fatal(err)
	}
	if s.Magic != 0 || s.Codec != record.CodecNone || len(s.Entries) != 2 {
		t.Fatalf("set %+v", s)
	}
	if string(s.Entries[0].Key) != "k1" || string(s.Entries[0].Value) != "v1" || s.Entries[1].Key != nil ||
		s.Entries[0].Timestamp != record.NoTimestamp {
		t.Fatalf("entries %+v", s.Entries)
	}
	v1 := guideMessage(7, 1, 0, 1700000000123, []byte("k"), nil)
	s, err = Decode(v1, 0)
	if err != nil {
		t.Fatal(err)
	}
	if s.Magic != 1 || s.Entries[0].Timestamp != 1700000000123 || s.Entries[0].Value != nil {
		t.Fatalf("magic 1 %+v", s)
	}
	if got := appendMessage(nil, 7, 1, 0, 1700000000123, []byte("k"), nil); !bytes.Equal(got, v1) {
		t.Fatalf("appendMessage differs from the guide's layout:\n%x\n%x", got, v1)
	}
}

// wrapper compresses inner with codec into one guide-laid-out wrapper message.
func wrapper(t *testing.T, magic int8, codec record.Codec, offset, timestamp int64, inner []byte) []byte {
	t.Helper()
	var value []byte
	var err error
	switch codec {
	case record.CodecLZ4:
		value = appendLZ4Frame(nil, inner, magic == 0)
	default:
		if value, err = record.Compress(nil, codec, inner); err != nil {
			t.Fatal(err)
		}
	}
	return guideMessage(offset, magic, int8(codec), timestamp, nil, value)
}

func TestDecodeOpensWrappersOfEveryCodec(t *testing.T) {
	for _, magic := range []int8{0, 1} {
		for _, codec := range []record.Codec{record.CodecGzip, record.CodecSnappy, record.CodecLZ4} {
			t.Run(fmt.Sprintf("magic%d-%s", magic, codec), func(t *testing.T) {
				var inner []byte
				for i := range 3 {
					inner = append(inner, guideMessage(int64(i), magic, 0, 1000+int64(i), []byte{'k', byte('0' + i)}, bytes.Repeat([]byte{byte(i)}, 5000))...)
				}
				set := wrapper(t, magic, codec, 2, 2000, inner)
				s, err := Decode(set, 0)
				if err != nil {
					t.Fatal(err)
				}
				if s.Codec != codec || len(s.Entries) != 3 {
					t.Fatalf("set codec %s, %d entries", s.Codec, len(s.Entries))
				}
				for i, e := range s.Entries {
					wantTS := record.NoTimestamp
					if magic == 1 {
						wantTS = 1000 + int64(i)
					}
					if e.Timestamp != wantTS || !bytes.Equal(e.Value, bytes.Repeat([]byte{byte(i)}, 5000)) || string(e.Key) != "k"+string(rune('0'+i)) {
						t.Fatalf("entry %d: ts %d key %q", i, e.Timestamp, e.Key)
					}
				}
			})
		}
	}
}

func TestMagicOneWrapperLogAppendTimeStampsItsMessages(t *testing.T) {
	inner := append(guideMessage(0, 1, 0, 5, nil, []byte("a")), guideMessage(1, 1, 0, 6, nil, []byte("b"))...)
	set := wrapper(t, 1, record.CodecGzip, 1, 0, inner)
	// Set the wrapper's LogAppendTime bit and timestamp, then fix its CRC.
	set[LogOverhead+5] |= attrLogAppendTime
	binary.BigEndian.PutUint64(set[LogOverhead+6:], 99)
	binary.BigEndian.PutUint32(set[LogOverhead:], crc32.ChecksumIEEE(set[LogOverhead+4:]))
	s, err := Decode(set, 0)
	if err != nil {
		t.Fatal(err)
	}
	if !s.LogAppendTime || s.Entries[0].Timestamp != 99 || s.Entries[1].Timestamp != 99 {
		t.Fatalf("%+v", s)
	}
}

// TestDecodeTakesRepeatedInnerOffsets: inner offsets that repeat (0.8.2's
// producer writes 0 for every inner message) are taken, in the order the
// wrapper holds them, since the log assigns offsets anyway.
func TestDecodeTakesRepeatedInnerOffsets(t *testing.T) {
	for _, c := range []struct {
		name string
		set  []byte
	}{
		{"all zero, magic 0", wrapper(t, 0, record.CodecSnappy, 1, 0,
			append(guideMessage(0, 0, 0, 0, nil, []byte("a")), guideMessage(0, 0, 0, 0, nil, []byte("b"))...))},
		{"all zero, magic 1", wrapper(t, 1, record.CodecGzip, 1, 1,
			append(guideMessage(0, 1, 0, 1, nil, []byte("a")), guideMessage(0, 1, 0, 1, nil, []byte("b"))...))},
	} {
		s, err := Decode(c.set, 0)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if len(s.Entries) != 2 || string(s.Entries[0].Value) != "a" || string(s.Entries[1].Value) != "b" {
			t.Fatalf("%s: entries %+v", c.name, s.Entries)
		}
	}
}

func TestDecodeRefusesWhatKafkaRefuses(t *testing.T) {
	good := guideMessage(0, 1, 0, 1, []byte("k"), []byte("v"))
	badCRC := bytes.Clone(good)
	badCRC[len(badCRC)-1] ^= 1
	badMagic := guideMessage(0, 2, 0, 1, nil, nil)
	inner := guideMessage(0, 1, 0, 1, nil, []byte("x"))
	nested := wrapper(t, 1, record.CodecGzip, 0, 1, wrapper(t, 1, record.CodecGzip, 0, 1, inner))
	backwards := wrapper(t, 1, record.CodecGzip, 1, 1,
		append(guideMessage(1, 1, 0, 1, nil, []byte("a")), guideMessage(0, 1, 0, 1, nil, []byte("b"))...))
	mixed := append(bytes.Clone(good), guideMessage(0, 0, 0, 0, nil, []byte("v"))...)
	zstd := guideMessage(0, 1, int8(record.CodecZstd), 1, nil, []byte("whatever"))
	empty := wrapper(t, 1, record.CodecGzip, 0, 1, nil)
	for _, c := range []struct {
		name string
		set  []byte
		want error
	}{
		{"bad CRC", badCRC, ErrBadCRC},
		{"magic 2", badMagic, ErrBadMagic},
		{"nested wrapper", nested, ErrNestedWrapper},
		{"inner offsets backwards", backwards, ErrInnerOffsets},
		{"mixed magic", mixed, ErrMixedMagic},
		{"zstd", zstd, ErrUnsupportedCodec},
		{"empty wrapper", empty, ErrEmptyWrapper},
		{"truncated", good[:len(good)-1], ErrPartialMessage},
		{"empty set", nil, ErrCorrupt},
		{"size below a header", append(make([]byte, 8), 0, 0, 0, 3, 1, 2, 3), ErrCorrupt},
	} {
		if _, err := Decode(c.set, 0); !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", c.name, err, c.want)
		}
	}
}

func TestDecodeBoundsDecompression(t *testing.T) {
	inner := guideMessage(0, 1, 0, 1, nil, make([]byte, 1<<20))
	for _, codec := range []record.Codec{record.CodecGzip, record.CodecSnappy, record.CodecLZ4} {
		set := wrapper(t, 1, codec, 0, 1, inner)
		if _, err := Decode(set, 64<<10); !errors.Is(err, record.ErrTooLarge) {
			t.Errorf("%s: %v, want ErrTooLarge", codec, err)
		}
	}
}

func TestLZ4FrameChecksums(t *testing.T) {
	// The library's writer computes the descriptor checksum correctly; ours
	// must agree with it for magic 1 and differ for magic 0, and the
	// library's reader must refuse the broken one, as Kafka 0.10's did.
	var lib bytes.Buffer
	w := lz4.NewWriter(&lib)
	_ = w.Apply(lz4.BlockSizeOption(lz4.Block64Kb), lz4.ChecksumOption(false))
	_, _ = w.Write([]byte("hello hello hello"))
	_ = w.Close()
	desc := lib.Bytes()[4:6]
	if got, want := byte(xxh32(desc)>>8), lib.Bytes()[6]; got != want {
		t.Fatalf("xxh32 checksum %x, library %x", got, want)
	}
	payload := bytes.Repeat([]byte("karst legacy "), 20000)
	for _, broken := range []bool{false, true} {
		frame := appendLZ4Frame(nil, payload, broken)
		out, err := io.ReadAll(lz4.NewReader(bytes.NewReader(frame)))
		if broken && err == nil {
			t.Errorf("library read a frame with the broken checksum")
		}
		if !broken && (err != nil || !bytes.Equal(out, payload)) {
			t.Errorf("library reading our frame: %v", err)
		}
		got, err := decodeLZ4Frame(nil, frame, 1<<30)
		if err != nil || !bytes.Equal(got, payload) {
			t.Errorf("broken=%v: our reader: %v", broken, err)
		}
	}
	got, err := decodeLZ4Frame(nil, lib.Bytes(), 1<<20)
	if err != nil || string(got) != "hello hello hello" {
		t.Fatalf("reading the library's frame: %q %v", got, err)
	}
}

// v2Batch builds a batch at baseOffset of n records with headers, each value
// valueRepeats copies of a short text.
func v2Batch(t testing.TB, codec record.Codec, baseOffset int64, tsType record.TimestampType, n, valueRepeats int) record.Batch {
	t.Helper()
	records := make([]record.Record, n)
	for i := range records {
		records[i] = record.Record{
			TimestampDelta: int64(i * 10),
			Key:            fmt.Appendf(nil, "key-%d", i),
			Value:          bytes.Repeat(fmt.Appendf(nil, "value-%d ", i), valueRepeats),
			Headers:        []record.Header{{Key: []byte("h"), Value: []byte("dropped")}},
		}
	}
	records[0].Key = nil
	var attrs int16
	if tsType == record.LogAppendTime {
		attrs = record.TimestampTypeBit
	}
	b, err := record.Build(nil, record.BatchHeader{BaseOffset: baseOffset, BaseTimestamp: 1_700_000_000_000,
		Attributes: attrs, ProducerID: -1, ProducerEpoch: -1, BaseSequence: -1, Codec: codec,
		PartitionLeaderEpoch: 3}, records)
	if err != nil {
		t.Fatal(err)
	}
	return record.Batch(b)
}

func TestDownConversionRoundTrips(t *testing.T) {
	for _, magic := range []int8{0, 1} {
		for _, codec := range []record.Codec{record.CodecNone, record.CodecGzip, record.CodecSnappy, record.CodecLZ4} {
			for _, tsType := range []record.TimestampType{record.CreateTime, record.LogAppendTime} {
				t.Run(fmt.Sprintf("magic%d-%s-ts%d", magic, codec, tsType), func(t *testing.T) {
					b := v2Batch(t, codec, 1000, tsType, 7, 100)
					out, err := AppendDownConverted(nil, b, magic, 0, 0)
					if err != nil {
						t.Fatal(err)
					}
					offsets := topOffsets(t, out)
					if codec == record.CodecNone && len(offsets) != 7 || codec != record.CodecNone && (len(offsets) != 1 || offsets[0] != 1006) {
						t.Fatalf("top-level offsets %v", offsets)
					}
					s, err := Decode(out, 0)
					if err != nil {
						t.Fatal(err)
					}
					if s.Magic != magic || s.Codec != codec || len(s.Entries) != 7 {
						t.Fatalf("magic %d codec %s entries %d", s.Magic, s.Codec, len(s.Entries))
					}
					for i, e := range s.Entries {
						wantTS := record.NoTimestamp
						if magic == 1 {
							wantTS = 1_700_000_000_000 + int64(i*10)
							if tsType == record.LogAppendTime {
								wantTS = b.MaxTimestamp()
							}
						}
						wantKey := fmt.Appendf(nil, "key-%d", i)
						if i == 0 {
							wantKey = nil
						}
						if e.Timestamp != wantTS || !bytes.Equal(e.Key, wantKey) ||
							!bytes.Equal(e.Value, bytes.Repeat(fmt.Appendf(nil, "value-%d ", i), 100)) {
							t.Fatalf("entry %d: ts %d (want %d) key %q", i, e.Timestamp, wantTS, e.Key)
						}
					}
					// Up again: the records come back byte for byte.
					up, err := s.AppendBatch(nil, codec, record.CreateTime)
					if err != nil {
						t.Fatal(err)
					}
					ub, _, err := record.ParseBatch(up, len(up))
					if err != nil {
						t.Fatal(err)
					}
					i := 0
					if err := ub.ForEachRecord(0, func(r *record.Record) error {
						if !bytes.Equal(r.Value, s.Entries[i].Value) || len(r.Headers) != 0 {
							return fmt.Errorf("record %d differs", i)
						}
						if magic == 1 && ub.BaseTimestamp()+r.TimestampDelta != s.Entries[i].Timestamp {
							return fmt.Errorf("record %d timestamp %d", i, ub.BaseTimestamp()+r.TimestampDelta)
						}
						i++
						return nil
					}); err != nil || i != 7 {
						t.Fatalf("up-converted: %v after %d", err, i)
					}
				})
			}
		}
	}
}

// topOffsets answers the offsets of a set's top-level messages.
func topOffsets(t *testing.T, set []byte) []int64 {
	var out []int64
	var m Message
	for len(set) > 0 {
		n, err := parseMessage(set, &m)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, m.Offset)
		set = set[n:]
	}
	return out
}

func TestMagicOneInnerOffsetsAreRelative(t *testing.T) {
	b := v2Batch(t, record.CodecGzip, 500, record.CreateTime, 3, 100)
	for _, c := range []struct {
		magic int8
		want  []int64
	}{{0, []int64{500, 501, 502}}, {1, []int64{0, 1, 2}}} {
		out, err := AppendDownConverted(nil, b, c.magic, 0, 0)
		if err != nil {
			t.Fatal(err)
		}
		var w Message
		if _, err := parseMessage(out, &w); err != nil {
			t.Fatal(err)
		}
		inner, err := record.Decompress(nil, record.CodecGzip, w.Value, 0)
		if err != nil {
			t.Fatal(err)
		}
		if got := topOffsets(t, inner); fmt.Sprint(got) != fmt.Sprint(c.want) {
			t.Errorf("magic %d inner offsets %v, want %v", c.magic, got, c.want)
		}
	}
}

func TestDownConversionRefusesZstd(t *testing.T) {
	b := v2Batch(t, record.CodecZstd, 0, record.CreateTime, 2, 100)
	if _, err := AppendDownConverted(nil, b, 1, 0, 0); !errors.Is(err, ErrUnsupportedCodec) {
		t.Fatalf("%v", err)
	}
}

func TestUpConversionOfMagicZeroHasNoTimestamp(t *testing.T) {
	s, err := Decode(guideMessage(0, 0, 0, 0, nil, []byte("v")), 0)
	if err != nil {
		t.Fatal(err)
	}
	out, err := s.AppendBatch(nil, record.CodecNone, record.CreateTime)
	if err != nil {
		t.Fatal(err)
	}
	b := record.Batch(out)
	if b.BaseTimestamp() != record.NoTimestamp || b.MaxTimestamp() != record.NoTimestamp || b.TimestampType() != record.CreateTime {
		t.Fatalf("base %d max %d type %d", b.BaseTimestamp(), b.MaxTimestamp(), b.TimestampType())
	}
}
