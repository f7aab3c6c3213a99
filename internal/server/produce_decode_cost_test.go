package server

import (
	"errors"
	"runtime"
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// produceOf is a Produce request of version with topics topics of
// partitions partitions each, every partition carrying records, and an
// unknown tag on each topic and partition when tagged.
func produceOf(version int16, topics, partitions int, records []byte, tagged bool) []byte {
	req := produceRequest(version)
	for i := range topics {
		topic := produceTopic("t"+string(rune('a'+i%26)), partitions)
		for p := range topic.Partitions {
			topic.Partitions[p].Records = records
			if tagged {
				topic.Partitions[p].UnknownTags.Set(unknownTagKey, nil)
			}
		}
		if tagged {
			topic.UnknownTags.Set(unknownTagKey, []byte{1})
			topic.UnknownTags.Set(unknownTagKey+1, nil)
		}
		req.Topics = append(req.Topics, topic)
	}
	return req.AppendTo(nil)
}

// produceRequest is a Produce request of version with no topics.
func produceRequest(version int16) *kmsg.ProduceRequest {
	req := kmsg.NewPtrProduceRequest()
	req.SetVersion(version)
	req.Acks, req.TimeoutMillis = -1, 30000
	txn := "txn"
	req.TransactionID = &txn
	return req
}

// produceTopic is a Produce topic with partitions empty partitions.
func produceTopic(name string, partitions int) kmsg.ProduceRequestTopic {
	topic := kmsg.NewProduceRequestTopic()
	topic.Topic = name
	for p := range partitions {
		part := kmsg.NewProduceRequestTopicPartition()
		part.Partition = int32(p)
		topic.Partitions = append(topic.Partitions, part)
	}
	return topic
}

// produceAllocation decodes body as a Produce request of version and
// returns the bytes allocated.
func produceAllocation(t *testing.T, version int16, body []byte) uint64 {
	t.Helper()
	req := kmsg.NewPtrProduceRequest()
	req.SetVersion(version)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	err := req.ReadFrom(body)
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatalf("v%d: %v", version, err)
	}
	return after.TotalAlloc - before.TotalAlloc
}

// TestProduceDecodeCostCoversAllocation measures decodes of Produce bodies
// shaped to allocate the most per byte (many topics, many partitions,
// tags on each) and of ordinary large ones, at every version, and checks
// the counted cost is at least what each allocated, and that record bytes
// cost nothing.
func TestProduceDecodeCostCoversAllocation(t *testing.T) {
	for version := int16(0); version <= kmsg.NewPtrProduceRequest().MaxVersion(); version++ {
		flexible := version >= 9
		for _, c := range []struct {
			name               string
			topics, partitions int
			records            int
			tagged             bool
		}{
			{"one partition of 8 MiB", 1, 1, 8 << 20, false},
			{"many topics", 20000, 0, 0, false},
			{"many partitions", 1, 20000, 0, false},
			{"many tagged topics", 20000, 0, 0, true},
			{"many tagged partitions", 4, 5000, 0, true},
		} {
			if c.tagged && !flexible {
				continue
			}
			body := produceOf(version, c.topics, c.partitions, make([]byte, c.records), c.tagged)
			cost, err := produceDecodeCost(version, body)
			if err != nil {
				t.Fatalf("v%d %s: %v", version, c.name, err)
			}
			allocated := produceAllocation(t, version, body)
			// decodeOverhead is added to every count, as to decodeCost.
			if int64(allocated) > cost+decodeOverhead {
				t.Errorf("v%d %s: allocated %d, counted %d", version, c.name, allocated, cost)
			}
			if c.records > 0 && cost > 4096 {
				t.Errorf("v%d %s: counted %d for one partition", version, c.name, cost)
			}
		}
	}
}

// TestTagMapCostBound checks tagMapBase and tagMapEntry against what
// kmsg's Tags allocates for n distinct keys.
func TestTagMapCostBound(t *testing.T) {
	for _, n := range []int{1, 2, 7, 8, 9, 16, 17, 100, 1000, 10000} {
		var tags kmsg.Tags
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		for k := range n {
			tags.Set(uint32(k), nil)
		}
		runtime.ReadMemStats(&after)
		if got, bound := after.TotalAlloc-before.TotalAlloc, uint64(tagMapBase+n*tagMapEntry); got > bound {
			t.Errorf("%d tags allocated %d, bound %d", n, got, bound)
		}
		runtime.KeepAlive(&tags)
	}
}

func TestProduceDecodeCostRefusesNullArrays(t *testing.T) {
	for _, c := range []struct {
		name    string
		version int16
		body    []byte
	}{
		// v3: transactional id null, acks, timeout, topics null.
		{"v3 topics", 3, []byte{0xff, 0xff, 0, 1, 0, 0, 0x75, 0x30, 0xff, 0xff, 0xff, 0xff}},
		// v3: one topic "t" whose partitions are null.
		{"v3 partitions", 3, []byte{0xff, 0xff, 0, 1, 0, 0, 0x75, 0x30, 0, 0, 0, 1, 0, 1, 't', 0xff, 0xff, 0xff, 0xff}},
		// v3: a negative count other than -1, which kmsg reads as empty.
		{"v3 topics -2", 3, []byte{0xff, 0xff, 0, 1, 0, 0, 0x75, 0x30, 0xff, 0xff, 0xff, 0xfe}},
		// v9: compact null topics, then the top-level tags.
		{"v9 topics", 9, []byte{0, 0, 1, 0, 0, 0x75, 0x30, 0, 0}},
		// v9: one topic "t" whose partitions are compact null.
		{"v9 partitions", 9, []byte{0, 0, 1, 0, 0, 0x75, 0x30, 2, 2, 't', 0, 0, 0}},
	} {
		t.Run(c.name, func(t *testing.T) {
			if _, err := produceDecodeCost(c.version, c.body); !errors.Is(err, errNullArray) {
				t.Fatalf("error %v, want %v", err, errNullArray)
			}
			req := kmsg.NewPtrProduceRequest()
			req.SetVersion(c.version)
			if err := req.ReadFrom(c.body); err != nil {
				t.Fatalf("kmsg no longer decodes it (%v): the case no longer tests what Kafka refuses and kmsg lets through", err)
			}
		})
	}
}

// FuzzProduceDecodeCost checks, for any body, that the walk never panics,
// that a body it calls truncated does not decode, and that for one it
// accepts, its count covers the decoded request's slices, names and tag
// maps: the walk sees what kmsg's decode builds.
func FuzzProduceDecodeCost(f *testing.F) {
	for _, v := range []int16{3, 8, 9, 12, 13} {
		f.Add(v, produceOf(v, 2, 2, []byte("records"), v >= 9))
		f.Add(v, produceOf(v, 1, 1, nil, false))
	}
	f.Fuzz(func(t *testing.T, version int16, body []byte) {
		version = max(0, version) % (kmsg.NewPtrProduceRequest().MaxVersion() + 1)
		cost, err := produceDecodeCost(version, body)
		req := kmsg.NewPtrProduceRequest()
		req.SetVersion(version)
		decodeErr := req.ReadFrom(body)
		if errors.Is(err, errTruncated) && decodeErr == nil {
			t.Fatalf("walk says truncated, kmsg decoded %+v", req)
		}
		if err != nil || decodeErr != nil {
			return
		}
		if built := decodedProduceSize(req); built > cost {
			t.Fatalf("decoded request holds %d bytes, walk counted %d", built, cost)
		}
	})
}

// decodedProduceSize is what a decoded request's slices, strings and tag
// maps take, before size-class rounding.
func decodedProduceSize(req *kmsg.ProduceRequest) int64 {
	tags := func(t kmsg.Tags) int64 {
		if t.Len() == 0 {
			return 0
		}
		return tagMapBase + int64(t.Len())*tagMapEntry
	}
	n := int64(len(req.Topics))*produceTopicSize + tags(req.UnknownTags)
	if req.TransactionID != nil {
		n += stringHeaderSize + int64(len(*req.TransactionID))
	}
	for _, topic := range req.Topics {
		n += int64(len(topic.Topic)) + int64(len(topic.Partitions))*producePartitionSize + tags(topic.UnknownTags)
		for _, part := range topic.Partitions {
			n += tags(part.UnknownTags)
		}
	}
	return n
}
