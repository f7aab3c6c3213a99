package group

import (
	"testing"
	"time"
)

// FuzzDecodeRecord: a record of __consumer_offsets from disk never
// panics the decoder, whatever its bytes.
func FuzzDecodeRecord(f *testing.F) {
	g := newClassicGroup(New(DefaultConfig(), Options{}), "g", time.Unix(0, 0))
	f.Add(offsetCommitKey("g", TopicPartition{"t", 1}), offsetCommitValue(CommittedOffset{Offset: 5, Metadata: "m"}), false)
	f.Add(groupMetadataKey("g"), g.groupMetadataRecord().Value, false)
	f.Add(groupMetadataKey("g"), []byte(nil), true)
	f.Add([]byte{0, 1, 0, 1, 'g'}, []byte{0, 4, 0, 0}, false)
	f.Add([]byte{0, 9}, []byte{}, false)
	f.Fuzz(func(t *testing.T, key, value []byte, tombstone bool) {
		if tombstone {
			value = nil
		}
		d, err := decodeRecord(key, value)
		if err == nil && d.kind == keyOffsetCommit && value != nil && d.offset == nil {
			t.Fatal("offset record without offset")
		}
	})
}
