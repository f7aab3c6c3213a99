package server

import (
	"encoding/binary"
	"errors"
	"fmt"
	"unsafe"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// Produce is the one request whose frames are routinely megabytes, and
// nearly all of those bytes are record batches, which kmsg keeps as
// slices of the frame. Charging it decodeFactor per byte would refuse or
// serialise ordinary large produces, so its cost is counted instead: one
// walk of the body, as kmsg's ProduceRequest.ReadFrom reads it, sums what
// that decode allocates (the topic and partition slices, copied names, a
// map per non-empty tag section). The walk allocates nothing. It also
// refuses what Kafka's parser refuses and kmsg lets through: a null
// topics or partitions array ("non-nullable field ... was serialized as
// null").

var (
	errNullArray  = fmt.Errorf("%w (an array)", errNullField)
	errNullString = fmt.Errorf("%w (a string)", errNullField)
	errNullBytes  = fmt.Errorf("%w (bytes)", errNullField)
	errTruncated  = errors.New("body ends inside a field")
)

const (
	produceTopicSize     = int64(unsafe.Sizeof(kmsg.ProduceRequestTopic{}))
	producePartitionSize = int64(unsafe.Sizeof(kmsg.ProduceRequestTopicPartition{}))
	// A copied string or a slice's backing array is rounded up to a size
	// class: at most an eighth above its size, or 16 bytes for tiny ones.
	sizeClassSlack = 16
	// tagMapBase and tagMapEntry bound a kmsg.Tags map of n entries:
	// tagMapBase + n*tagMapEntry covers its header, groups and every
	// growth on the way (TestTagMapCostBound measures it).
	tagMapBase  = 512
	tagMapEntry = 256
	// stringHeaderSize is the *string kmsg allocates for a nullable one.
	stringHeaderSize = int64(unsafe.Sizeof(""))
)

// allocationCost is what allocating n bytes costs at most once rounded.
func allocationCost(n int64) int64 {
	if n <= 0 {
		return 0
	}
	return n + n/8 + sizeClassSlack
}

// elementsCost is what kmsg's append(a, make([]T, l)...) of l elements of
// size bytes costs: one allocation, but two under the race detector,
// whose instrumented build does not fuse the make into the append (CI
// runs the tests with -race).
func elementsCost(l, size int64) int64 { return 2 * allocationCost(l*size) }

// produceDecodeCost returns the most ReadFrom may allocate decoding body
// as a ProduceRequest of version, or an error for a body Kafka refuses.
func produceDecodeCost(version int16, body []byte) (int64, error) {
	w := bodyWalk{src: body, flexible: version >= 9}
	var cost int64
	if version >= 3 {
		if n := w.length(stringWidth); n >= 0 {
			cost += allocationCost(stringHeaderSize) + allocationCost(int64(n))
			w.skip(n)
		}
	}
	w.skip(2 + 4) // acks, timeout
	topics, elements, err := w.array(produceTopicSize)
	if err != nil {
		return 0, err
	}
	cost += elements
	for range topics {
		if w.bad {
			return 0, errTruncated // before counting on: a count can be 2^31
		}
		if version >= 13 {
			w.skip(16) // topic id
		} else {
			n := w.length(stringWidth)
			if n < 0 {
				return 0, errNullString
			}
			cost += allocationCost(int64(n))
			w.skip(n)
		}
		partitions, elements, err := w.array(producePartitionSize)
		if err != nil {
			return 0, err
		}
		cost += elements
		for range partitions {
			if w.bad {
				return 0, errTruncated
			}
			w.skip(4) // partition index
			w.skip(max(w.length(arrayWidth), 0))
			if err := w.addTags(&cost); err != nil {
				return 0, err
			}
		}
		if err := w.addTags(&cost); err != nil {
			return 0, err
		}
	}
	if err := w.addTags(&cost); err != nil {
		return 0, err
	}
	if w.bad {
		return 0, errTruncated
	}
	return cost, nil
}

// bodyWalk reads the primitives of Kafka's encoding without allocating.
// Once a read runs past the end it is bad and reads zeros.
type bodyWalk struct {
	src      []byte
	flexible bool
	bad      bool
}

func (w *bodyWalk) skip(n int) {
	if n < 0 || n > len(w.src) {
		w.bad, w.src = true, nil
		return
	}
	w.src = w.src[n:]
}

// next returns the next n bytes, or nil past the end.
func (w *bodyWalk) next(n int) []byte {
	if n > len(w.src) {
		w.skip(n)
		return nil
	}
	b := w.src[:n]
	w.src = w.src[n:]
	return b
}

func (w *bodyWalk) int16() int16 {
	if b := w.next(2); b != nil {
		return int16(binary.BigEndian.Uint16(b))
	}
	return 0
}

func (w *bodyWalk) int32() int32 {
	if b := w.next(4); b != nil {
		return int32(binary.BigEndian.Uint32(b))
	}
	return 0
}

// uvarint reads an unsigned varint as kbin does: at most 5 bytes, a
// fifth above 0x0f being an overflow.
func (w *bodyWalk) uvarint() uint32 {
	var v uint32
	for i := range 5 {
		if i >= len(w.src) || i == 4 && w.src[i] > 0x0f {
			w.skip(len(w.src) + 1)
			return 0
		}
		c := w.src[i]
		v |= uint32(c&0x7f) << (7 * i)
		if c < 0x80 {
			w.src = w.src[i+1:]
			return v
		}
	}
	panic("unreachable: the fifth byte ends the varint")
}

// compactLength is a compact length: the uvarint less one, -1 for null.
func (w *bodyWalk) compactLength() int { return int(int32(w.uvarint() - 1)) }

// Widths of the length prefixes of non-flexible versions.
const (
	stringWidth = 2 // strings
	arrayWidth  = 4 // arrays and byte arrays
)

// length reads a length prefix: compact in flexible versions, else an
// integer of width bytes. It is negative for null (kmsg reads any
// negative array length as empty; Kafka's parser refuses it).
func (w *bodyWalk) length(width int) int {
	switch {
	case w.flexible:
		return w.compactLength()
	case width == stringWidth:
		return int(w.int16())
	}
	return int(w.int32())
}

// array reads a non-nullable array's length and returns it with what
// kmsg allocates for its elements.
func (w *bodyWalk) array(elementSize int64) (int, int64, error) {
	n, err := w.arrayLength(false)
	if err != nil {
		return 0, 0, err
	}
	return n, elementsCost(int64(n), elementSize), nil
}

// arrayLength reads an array's length, -1 for a null one where nullable,
// refusing what Kafka's parser refuses: a null where the schema has none,
// and more elements than Kafka's cap (which a body of that many bytes
// could otherwise hold, since every element takes at least one). A length
// that runs past the body is errTruncated, left for kmsg to fail on.
func (w *bodyWalk) arrayLength(nullable bool) (int, error) {
	n := w.length(arrayWidth)
	switch {
	case n > maxCollectionLength:
		return 0, fmt.Errorf("%w: %d", errCollectionTooLarge, n)
	case w.bad:
		return 0, errTruncated
	case n < 0 && !nullable:
		return 0, errNullArray
	case n < 0:
		return -1, nil
	case n > len(w.src):
		return 0, errTruncated
	}
	return n, nil
}

// addTags skips a tag section, adding what decoding it allocates to cost.
func (w *bodyWalk) addTags(cost *int64) error {
	n, err := w.tags()
	*cost += n
	return err
}

// tags skips a tag section (flexible versions only) and returns what
// decoding it allocates, or errTooManyTaggedFields past Kafka's cap.
func (w *bodyWalk) tags() (int64, error) {
	if !w.flexible {
		return 0, nil
	}
	n := w.uvarint()
	if n > maxTaggedFields {
		return 0, fmt.Errorf("%w: %d", errTooManyTaggedFields, n)
	}
	for i := uint32(0); i < n && !w.bad; i++ {
		w.uvarint() // key
		w.skip(int(w.uvarint()))
	}
	if n == 0 || w.bad {
		return 0, nil
	}
	return tagMapBase + int64(n)*tagMapEntry, nil
}
