package legacy

import (
	"bytes"
	"errors"
	"fmt"
	"testing"

	"github.com/karst-broker/karst/internal/record"
)

// drain reads a converter to its end, returning every chunk.
func drain(t *testing.T, c *DownConverter) [][]byte {
	t.Helper()
	var chunks [][]byte
	total := int64(0)
	for {
		chunk := c.Next(nil)
		if len(chunk) == 0 {
			break
		}
		chunks = append(chunks, chunk)
		if total += int64(len(chunk)); total > c.Size() {
			t.Fatalf("%d bytes past Size %d", total, c.Size())
		}
	}
	if total != c.Size() {
		t.Fatalf("%d bytes returned, Size %d", total, c.Size())
	}
	return chunks
}

// fetchedMessages reads a fetched set as an old consumer does: whole
// messages until one is partial, wrappers opened.
func fetchedMessages(t *testing.T, set []byte) (offsets []int64, values []string) {
	t.Helper()
	var m Message
	for {
		n, err := parseMessage(set, &m)
		if errors.Is(err, ErrPartialMessage) {
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		set = set[n:]
		if m.Codec() == record.CodecNone {
			offsets, values = append(offsets, m.Offset), append(values, string(m.Value))
			continue
		}
		inner, err := Decompress(m.Codec(), m.Value, 1<<30)
		if err != nil {
			t.Fatal(err)
		}
		io, iv := fetchedMessages(t, inner)
		for i := range io {
			if m.Magic == 1 {
				io[i] += m.Offset - int64(len(io)-1)
			}
		}
		offsets, values = append(offsets, io...), append(values, iv...)
	}
}

func segment(t *testing.T, batches ...record.Batch) []byte {
	var out []byte
	for _, b := range batches {
		out = append(out, b...)
	}
	return out
}

func TestDownConverterServesEveryBatchButControl(t *testing.T) {
	marker := record.Batch(record.BuildMarker(nil, record.Marker{ProducerID: 7, ProducerEpoch: 0, Type: record.ControlCommit}))
	marker.SetBaseOffset(17)
	seg := segment(t, v2Batch(t, record.CodecNone, 10, record.CreateTime, 4, 3), v2Batch(t, record.CodecGzip, 14, record.CreateTime, 3, 3),
		marker, v2Batch(t, record.CodecSnappy, 18, record.CreateTime, 2, 3))
	for _, magic := range []int8{0, 1} {
		c, err := NewDownConverter(bytes.NewReader(seg), 0, int64(len(seg)), magic, 12, nil)
		if err != nil {
			t.Fatal(err)
		}
		offsets, _ := fetchedMessages(t, bytes.Join(drain(t, c), nil))
		// The uncompressed batch starts at the fetch offset; the
		// compressed ones are whole; the marker is gone.
		if want := "[12 13 14 15 16 18 19]"; fmt.Sprint(offsets) != want {
			t.Fatalf("magic %d: offsets %v, want %s", magic, offsets, want)
		}
	}
}

func TestDownConverterKeepsOnlyWhatKeepSays(t *testing.T) {
	seg := segment(t, v2Batch(t, record.CodecNone, 0, record.CreateTime, 2, 1), v2Batch(t, record.CodecNone, 2, record.CreateTime, 2, 1))
	c, err := NewDownConverter(bytes.NewReader(seg), 0, int64(len(seg)), 1, 0, func(b record.Batch) bool { return b.BaseOffset() != 0 })
	if err != nil {
		t.Fatal(err)
	}
	if offsets, _ := fetchedMessages(t, bytes.Join(drain(t, c), nil)); fmt.Sprint(offsets) != "[2 3]" {
		t.Fatalf("offsets %v", offsets)
	}
}

// TestDownConverterHoldsAChunkAtATime: 16 MiB of batches come out in
// chunks of about chunkSourceBytes converted, never the whole set.
func TestDownConverterHoldsAChunkAtATime(t *testing.T) {
	var seg []byte
	for off := int64(0); len(seg) < 16<<20; off += 50 {
		seg = append(seg, v2Batch(t, record.CodecNone, off, record.CreateTime, 50, 40)...)
	}
	c, err := NewDownConverter(bytes.NewReader(seg), 0, int64(len(seg)), 1, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	largest := 0
	for _, chunk := range drain(t, c) {
		largest = max(largest, len(chunk))
	}
	if largest > 2*chunkSourceBytes {
		t.Fatalf("a chunk of %d bytes", largest)
	}
}

// TestDownConverterAnswersASizeForAnOversizedFirstBatch: when the slice
// ends inside its first batch (a Fetch v0-2 whose max bytes is below the
// batch), the set is the slice's length of overflow message, which old
// consumers report as a message larger than their fetch size, as Kafka 3.x
// answered.
func TestDownConverterAnswersASizeForAnOversizedFirstBatch(t *testing.T) {
	seg := segment(t, v2Batch(t, record.CodecNone, 5, record.CreateTime, 3, 100))
	c, err := NewDownConverter(bytes.NewReader(seg), 0, 100, 0, 5, nil)
	if err != nil {
		t.Fatal(err)
	}
	set := bytes.Join(drain(t, c), nil)
	if len(set) != 100 || !bytes.Equal(set[:8], bytes.Repeat([]byte{0xff}, 8)) {
		t.Fatalf("set %x", set)
	}
	if offsets, _ := fetchedMessages(t, set); len(offsets) != 0 {
		t.Fatalf("offsets %v from a partial batch", offsets)
	}
}

// TestDownConverterGrowsToItsFirstBatch: the converted first batch is sent
// whole even when it is larger than the slice it came from.
func TestDownConverterGrowsToItsFirstBatch(t *testing.T) {
	seg := segment(t, v2Batch(t, record.CodecNone, 0, record.CreateTime, 40, 1), v2Batch(t, record.CodecNone, 40, record.CreateTime, 40, 1))
	first := len(v2Batch(t, record.CodecNone, 0, record.CreateTime, 40, 1))
	c, err := NewDownConverter(bytes.NewReader(seg), 0, int64(first), 1, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	if c.Size() <= int64(first) {
		t.Fatalf("size %d, slice %d: magic 1 is larger than v2", c.Size(), first)
	}
	if offsets, _ := fetchedMessages(t, bytes.Join(drain(t, c), nil)); len(offsets) != 40 {
		t.Fatalf("%d messages of the first batch", len(offsets))
	}
}

func TestDownConverterRefusesAZstdFirstBatch(t *testing.T) {
	seg := segment(t, v2Batch(t, record.CodecZstd, 0, record.CreateTime, 2, 1))
	if _, err := NewDownConverter(bytes.NewReader(seg), 0, int64(len(seg)), 1, 0, nil); !errors.Is(err, ErrUnsupportedCodec) {
		t.Fatalf("%v", err)
	}
}
