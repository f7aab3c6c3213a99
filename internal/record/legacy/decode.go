package legacy

import (
	"errors"

	"github.com/karst-broker/karst/internal/record"
)

var errTooLarge = record.ErrTooLarge

// Entry is one record of a MessageSet after its wrappers are opened. Key and
// Value alias the request's bytes or the decompressed buffer.
type Entry struct {
	Timestamp int64
	Key       []byte
	Value     []byte
}

// Set is a decoded MessageSet: what a Produce v0-2 partition carries.
type Set struct {
	Magic int8
	// Codec is the codec of its compressed wrappers (CodecNone when there
	// are none), which Kafka takes as the producer's compression.
	Codec record.Codec
	// LogAppendTime is set when a magic 1 wrapper asked for log append
	// time for its messages.
	LogAppendTime bool
	Entries       []Entry
}

// Decode reads a whole MessageSet as a Produce request carries it: every
// message complete and its CRC right, one magic throughout, wrappers opened
// (at most maxDecompressed bytes in all), no wrapper inside a wrapper, inner
// offsets never going backwards. Any fault refuses the whole set. Repeated
// inner offsets are taken, since the log assigns offsets anyway and real
// clients write them so: 0.8.2's producer writes 0 for every inner message.
func Decode(data []byte, maxDecompressed int) (Set, error) {
	var s Set
	if maxDecompressed <= 0 {
		maxDecompressed = record.DefaultMaxDecompressed
	}
	budget := maxDecompressed
	var m Message
	for first := true; len(data) > 0; first = false {
		n, err := parseMessage(data, &m)
		if err != nil {
			return Set{}, err
		}
		data = data[n:]
		if first {
			s.Magic = m.Magic
		} else if m.Magic != s.Magic {
			return Set{}, ErrMixedMagic
		}
		codec := m.Codec()
		if codec == record.CodecNone {
			s.Entries = append(s.Entries, Entry{Timestamp: m.Timestamp, Key: m.Key, Value: m.Value})
			continue
		}
		s.Codec = codec
		inner, err := Decompress(codec, m.Value, budget)
		if err != nil {
			return Set{}, err
		}
		budget -= len(inner)
		wrapperTime := m.TimestampType() == record.LogAppendTime
		if wrapperTime {
			s.LogAppendTime = true
		}
		if err := s.appendInner(inner, m.Magic, wrapperTime, m.Timestamp); err != nil {
			return Set{}, err
		}
	}
	if len(s.Entries) == 0 {
		return Set{}, ErrCorrupt
	}
	return s, nil
}

// appendInner adds the messages of one wrapper's decompressed set.
func (s *Set) appendInner(inner []byte, magic int8, wrapperTime bool, wrapperTimestamp int64) error {
	var m Message
	count := 0
	last := int64(-1)
	for len(inner) > 0 {
		n, err := parseMessage(inner, &m)
		if errors.Is(err, ErrPartialMessage) {
			return ErrCorrupt
		}
		if err != nil {
			return err
		}
		inner = inner[n:]
		if m.Magic != magic {
			return ErrMixedMagic
		}
		if m.Codec() != record.CodecNone {
			return ErrNestedWrapper
		}
		if count > 0 && m.Offset < last {
			return ErrInnerOffsets
		}
		last = m.Offset
		count++
		ts := m.Timestamp
		if wrapperTime {
			ts = wrapperTimestamp
		}
		s.Entries = append(s.Entries, Entry{Timestamp: ts, Key: m.Key, Value: m.Value})
	}
	if count == 0 {
		return ErrEmptyWrapper
	}
	return nil
}

// Decompress opens a wrapper message's value: at most max bytes, lz4 frames
// with the correct descriptor checksum or with the broken one of magic 0
// clients (KAFKA-3160).
func Decompress(codec record.Codec, src []byte, max int) ([]byte, error) {
	if codec == record.CodecLZ4 {
		return decodeLZ4Frame(nil, src, max)
	}
	out, err := record.Decompress(nil, codec, src, max)
	if errors.Is(err, record.ErrTooLarge) {
		return nil, err
	}
	if err != nil {
		return nil, ErrCorrupt
	}
	return out, nil
}

// AppendBatch appends the set's entries as one v2 batch (base offset 0; the
// log assigns offsets) compressed with codec. Magic 0 entries carry no
// timestamp; timestampType is what the topic's message.timestamp.type makes
// of them, and a set that asked for log append time gets it whatever the
// topic says, as Kafka's validator does.
func (s *Set) AppendBatch(dst []byte, codec record.Codec, timestampType record.TimestampType) ([]byte, error) {
	base := record.NoTimestamp
	for _, e := range s.Entries {
		if e.Timestamp != record.NoTimestamp && (base == record.NoTimestamp || e.Timestamp < base) {
			base = e.Timestamp
		}
	}
	records := make([]record.Record, len(s.Entries))
	for i, e := range s.Entries {
		records[i] = record.Record{Key: e.Key, Value: e.Value}
		if base != record.NoTimestamp {
			records[i].TimestampDelta = e.Timestamp - base
		}
	}
	var attrs int16
	if timestampType == record.LogAppendTime || s.LogAppendTime {
		attrs |= record.TimestampTypeBit
	}
	return record.Build(dst, record.BatchHeader{
		BaseTimestamp:        base,
		PartitionLeaderEpoch: record.NoPartitionLeaderEp,
		Attributes:           attrs,
		ProducerID:           -1,
		ProducerEpoch:        -1,
		BaseSequence:         record.NoSequence,
		Codec:                codec,
	}, records)
}
