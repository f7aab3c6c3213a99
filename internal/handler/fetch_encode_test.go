package handler

import (
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// TestFetchBodyMatchesKmsg encodes random Fetch responses at every served
// version both with kmsg and by hand (records from a file region) and
// requires identical bytes.
func TestFetchBodyMatchesKmsg(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	file, err := os.Create(filepath.Join(t.TempDir(), "records"))
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	payload := make([]byte, 4096)
	for i := range payload {
		payload[i] = byte(rng.IntN(256))
	}
	file.Write(payload)

	for v := int16(0); v <= 18; v++ {
		for range 50 {
			resp := kmsg.NewPtrFetchResponse()
			resp.SetVersion(v)
			resp.ThrottleMillis, resp.ErrorCode, resp.SessionID = rng.Int32(), int16(rng.IntN(100)), rng.Int32()
			regions := map[*kmsg.FetchResponseTopicPartition]fileRegion{}
			var withRecords []*kmsg.FetchResponseTopicPartition
			resp.Topics = make([]kmsg.FetchResponseTopic, rng.IntN(3))
			for ti := range resp.Topics {
				topic := &resp.Topics[ti]
				*topic = kmsg.NewFetchResponseTopic()
				topic.Topic = string(rune('a' + ti))
				topic.TopicID[0] = byte(ti + 1)
				topic.Partitions = make([]kmsg.FetchResponseTopicPartition, rng.IntN(4))
				for pi := range topic.Partitions {
					p := &topic.Partitions[pi]
					*p = kmsg.NewFetchResponseTopicPartition()
					p.Partition, p.ErrorCode, p.HighWatermark = int32(pi), int16(rng.IntN(3)), rng.Int64()
					p.LastStableOffset, p.LogStartOffset, p.PreferredReadReplica = rng.Int64(), rng.Int64(), -1
					if v >= 12 && rng.IntN(3) == 0 { // beside NOT_LEADER_OR_FOLLOWER: a leader, or -1 once offline
						p.CurrentLeader.LeaderID, p.CurrentLeader.LeaderEpoch = rng.Int32N(3)-1, rng.Int32()
					}
					// Aborted transactions: null (read_uncommitted), an
					// empty list or some entries (read_committed).
					if n := rng.IntN(5) - 1; n >= 0 {
						p.AbortedTransactions = make([]kmsg.FetchResponseTopicPartitionAbortedTransaction, n)
						for i := range p.AbortedTransactions {
							p.AbortedTransactions[i] = kmsg.FetchResponseTopicPartitionAbortedTransaction{ProducerID: rng.Int64(), FirstOffset: rng.Int64()}
						}
					}
					switch rng.IntN(3) {
					case 0:
						off := int64(rng.IntN(2048))
						regions[p] = fileRegion{file: file, offset: off, length: int64(1 + rng.IntN(2048))}
						withRecords = append(withRecords, p)
					case 1:
						p.RecordBatches = payload[:rng.IntN(100)]
					}
				}
			}
			// kmsg's view: the same response with the region bytes inline.
			for _, p := range withRecords {
				r := regions[p]
				p.RecordBatches = payload[r.offset : r.offset+r.length]
			}
			want := resp.AppendTo(nil)
			for _, p := range withRecords {
				p.RecordBatches = nil
			}
			// The encoder's view: regions in encoding order, trailing
			// ones left out at random.
			var dense []fileRegion
			for ti := range resp.Topics {
				for pi := range resp.Topics[ti].Partitions {
					dense = append(dense, regions[&resp.Topics[ti].Partitions[pi]])
				}
			}
			if rng.IntN(2) == 0 {
				for len(dense) > 0 && dense[len(dense)-1].length == 0 {
					dense = dense[:len(dense)-1]
				}
			}
			var got []byte
			parts := encodeFetchBody(resp, dense)
			bytesLen := 0
			for _, part := range parts {
				bytesLen += len(part.Bytes)
			}
			if bound := fetchBodySizeBound(resp); bytesLen > bound {
				t.Fatalf("v%d: %d bytes encoded, more than the bound %d the buffer is sized to", v, bytesLen, bound)
			}
			for _, part := range parts {
				if cap(part.Bytes) != len(part.Bytes) {
					t.Fatalf("v%d: a byte part has room past its end (%d of %d), an append to it would overwrite the next", v, len(part.Bytes), cap(part.Bytes))
				}
				if part.File != nil {
					buf := make([]byte, part.Length)
					if _, err := part.File.ReadAt(buf, part.Offset); err != nil {
						t.Fatal(err)
					}
					got = append(got, buf...)
				} else {
					got = append(got, part.Bytes...)
				}
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("v%d: hand encoding differs from kmsg\n got % x\nwant % x", v, got, want)
			}
		}
	}
}
