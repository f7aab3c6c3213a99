package handler

import (
	"encoding/binary"
	"os"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// BodyPart is a piece of a response body: bytes, a region of a segment
// file that the server sends with sendfile, never copying it through user
// space, or Length bytes that Stream makes as they are written.
type BodyPart struct {
	Bytes  []byte
	File   *os.File
	Offset int64
	Length int64
	Stream ChunkStream
}

// ChunkStream makes a body part a chunk at a time, so that what it makes is
// never held whole: Next appends the next chunk to dst, and nothing once
// the part's Length bytes have been made.
type ChunkStream interface {
	Next(dst []byte) []byte
}

// fileRegion is where a fetched partition's records lie on disk, or, with
// stream set, the length of what stream makes of them (down-conversion).
type fileRegion struct {
	file   *os.File
	offset int64
	length int64
	stream ChunkStream
}

// encodeFetchBody writes a Fetch response body exactly as kmsg would
// (versions 0–18; of the tagged fields, only a partition's CurrentLeader,
// which Karst sets beside NOT_LEADER_OR_FOLLOWER), except
// that a partition's records come from a file region when it has one:
// regions[k] for the k-th partition in encoding order (over all topics),
// none when k is past the end or the region is empty. kmsg cannot do this:
// it only knows records as []byte.
//
// All byte parts are windows into one buffer, sized to fit: a fetch is
// answered many times a second per consumer.
func encodeFetchBody(resp *kmsg.FetchResponse, regions []fileRegion) []BodyPart {
	v := resp.Version
	flexible := v >= 12
	withRecords := 0
	for _, r := range regions {
		if r.length > 0 {
			withRecords++
		}
	}
	parts := make([]BodyPart, 0, 2*withRecords+1)
	b := make([]byte, 0, fetchBodySizeBound(resp))
	start, k := 0, 0 // start of the current byte part; partition index
	if v >= 1 {
		b = binary.BigEndian.AppendUint32(b, uint32(resp.ThrottleMillis))
	}
	if v >= 7 {
		b = binary.BigEndian.AppendUint16(b, uint16(resp.ErrorCode))
		b = binary.BigEndian.AppendUint32(b, uint32(resp.SessionID))
	}
	b = appendArrayLen(b, len(resp.Topics), flexible)
	for ti := range resp.Topics {
		t := &resp.Topics[ti]
		if v <= 12 {
			b = appendString(b, t.Topic, flexible)
		} else {
			b = append(b, t.TopicID[:]...)
		}
		b = appendArrayLen(b, len(t.Partitions), flexible)
		for pi := range t.Partitions {
			p := &t.Partitions[pi]
			b = binary.BigEndian.AppendUint32(b, uint32(p.Partition))
			b = binary.BigEndian.AppendUint16(b, uint16(p.ErrorCode))
			b = binary.BigEndian.AppendUint64(b, uint64(p.HighWatermark))
			if v >= 4 {
				b = binary.BigEndian.AppendUint64(b, uint64(p.LastStableOffset))
			}
			if v >= 5 {
				b = binary.BigEndian.AppendUint64(b, uint64(p.LogStartOffset))
			}
			if v >= 4 {
				b = appendAbortedTransactions(b, p.AbortedTransactions, flexible)
			}
			if v >= 11 {
				b = binary.BigEndian.AppendUint32(b, uint32(p.PreferredReadReplica))
			}
			var r fileRegion
			if k < len(regions) {
				r = regions[k]
			}
			k++
			if r.length > 0 {
				b = appendArrayLen(b, int(r.length), flexible)
				// The window's capacity ends with it, so no append
				// through it can reach the bytes that follow.
				parts = append(parts, BodyPart{Bytes: b[start:len(b):len(b)]}, BodyPart{File: r.file, Offset: r.offset, Length: r.length, Stream: r.stream})
				start = len(b)
			} else if p.RecordBatches == nil {
				b = appendNullLen(b, flexible)
			} else {
				b = appendArrayLen(b, len(p.RecordBatches), flexible)
				b = append(b, p.RecordBatches...)
			}
			if flexible {
				b = appendPartitionTags(b, p)
			}
		}
		if flexible {
			b = append(b, 0)
		}
	}
	if flexible {
		b = append(b, 0)
	}
	return append(parts, BodyPart{Bytes: b[start:len(b):len(b)]})
}

// appendAbortedTransactions writes a partition's aborted transactions (v4+),
// null when the list is.
func appendAbortedTransactions(b []byte, aborted []kmsg.FetchResponseTopicPartitionAbortedTransaction, flexible bool) []byte {
	if aborted == nil {
		return appendNullLen(b, flexible)
	}
	b = appendArrayLen(b, len(aborted), flexible)
	for _, a := range aborted {
		b = binary.BigEndian.AppendUint64(b, uint64(a.ProducerID))
		b = binary.BigEndian.AppendUint64(b, uint64(a.FirstOffset))
		if flexible {
			b = append(b, 0)
		}
	}
	return b
}

// appendPartitionTags writes a partition's tagged fields: CurrentLeader
// (tag 1) when it is not the default, as kmsg writes it.
func appendPartitionTags(b []byte, p *kmsg.FetchResponseTopicPartition) []byte {
	if p.CurrentLeader.LeaderID == -1 && p.CurrentLeader.LeaderEpoch == -1 {
		return append(b, 0)
	}
	b = append(b, 1, 1, currentLeaderSize) // one field: tag 1, its size
	b = binary.BigEndian.AppendUint32(b, uint32(p.CurrentLeader.LeaderID))
	b = binary.BigEndian.AppendUint32(b, uint32(p.CurrentLeader.LeaderEpoch))
	return append(b, 0) // its own tagged fields: none
}

// currentLeaderSize is the encoded size of a CurrentLeader: two int32s and
// an empty tagged-field section.
const currentLeaderSize = 4 + 4 + 1

// fetchBodySizeBound is at least the byte parts' total size for any
// version: every length at its widest, records inline counted whether or
// not a region replaces them.
func fetchBodySizeBound(resp *kmsg.FetchResponse) int {
	const (
		lenMax       = 5 // int32 or uvarint of a uint32
		partitionMax = 4 + 2 + 8 + 8 + 8 + lenMax + 4 + lenMax + 3 + currentLeaderSize
		abortedMax   = 8 + 8 + 1
	)
	n := 4 + 2 + 4 + lenMax + 1
	for ti := range resp.Topics {
		t := &resp.Topics[ti]
		n += lenMax + max(len(t.Topic), 16) + lenMax + 1
		for pi := range t.Partitions {
			p := &t.Partitions[pi]
			n += partitionMax + abortedMax*len(p.AbortedTransactions) + len(p.RecordBatches)
		}
	}
	return n
}

// appendArrayLen writes a length: int32, or for flexible versions the
// compact form (unsigned varint of length+1). Byte strings use the same.
func appendArrayLen(b []byte, n int, flexible bool) []byte {
	if flexible {
		return binary.AppendUvarint(b, uint64(n)+1)
	}
	return binary.BigEndian.AppendUint32(b, uint32(n))
}

func appendNullLen(b []byte, flexible bool) []byte {
	if flexible {
		return append(b, 0)
	}
	return binary.BigEndian.AppendUint32(b, 0xffffffff)
}

func appendString(b []byte, s string, flexible bool) []byte {
	if flexible {
		b = binary.AppendUvarint(b, uint64(len(s))+1)
	} else {
		b = binary.BigEndian.AppendUint16(b, uint16(len(s)))
	}
	return append(b, s...)
}

// PartsResponse is a response whose body the handler encoded itself, as
// parts; the embedded Response supplies the key and version (and so the
// response header) but is not encoded.
type PartsResponse struct {
	kmsg.Response
	Parts []BodyPart
}

// SetThrottle sets throttle_time_ms in the response and, for a Fetch
// answer (v1+), in its already encoded body, where it is the first field.
func (p *PartsResponse) SetThrottle(ms int32) {
	f, ok := p.Response.(*kmsg.FetchResponse)
	if !ok {
		return
	}
	f.ThrottleMillis = ms
	if f.Version >= 1 && len(p.Parts) > 0 && len(p.Parts[0].Bytes) >= 4 {
		binary.BigEndian.PutUint32(p.Parts[0].Bytes, uint32(ms))
	}
}
