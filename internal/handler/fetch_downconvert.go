package handler

import (
	"cmp"
	"errors"
	"slices"

	"github.com/twmb/franz-go/pkg/kerr"

	klog "github.com/karst-broker/karst/internal/log"
	"github.com/karst-broker/karst/internal/metadata"
	"github.com/karst-broker/karst/internal/record"
	"github.com/karst-broker/karst/internal/record/legacy"
)

// lastDownConvertedFetchVersion is the newest Fetch version that reads
// MessageSets: v0-1 get magic 0, v2-3 magic 1, as Kafka 3.x answered them.
const lastDownConvertedFetchVersion = 3

// hardMaxBytesFetchVersion is the newest Fetch version whose max bytes cut
// even the first batch (KIP-74 came with v3).
const hardMaxBytesFetchVersion = 2

func downConvertedMagic(version int16) int8 {
	if version <= 1 {
		return 0
	}
	return 1
}

// downConvertFetch turns every read partition of a Fetch v0-3 into a
// MessageSet converted as the response is written, after Kafka 3.x's
// KafkaApis.maybeConvertFetchedData: a topic whose
// message.downconversion.enable is false answers UNSUPPORTED_VERSION, one
// whose compression.type is zstd (or whose first batch is)
// UNSUPPORTED_COMPRESSION_TYPE. Control batches never reach these
// clients; these versions have no isolation level, so they read to the
// high watermark, but the records of transactions already aborted there
// are left out, as a read_committed consumer leaves them out.
func (b *Broker) downConvertFetch(img *metadata.Image, version int16, targets []fetchTarget) {
	magic := downConvertedMagic(version)
	for i := range targets {
		t := &targets[i]
		if t.part == nil || t.out.ErrorCode != 0 {
			continue
		}
		cfg := b.logConfig(img, t.part.Topic)
		switch {
		case !cfg.MessageDownConversion:
			t.out.ErrorCode = kerr.UnsupportedVersion.Code
		case cfg.CompressionType == "zstd":
			t.out.ErrorCode = kerr.UnsupportedCompressionType.Code
		}
		if t.out.ErrorCode != 0 {
			t.out.HighWatermark, t.out.LogStartOffset = -1, -1
			t.region = fileRegion{}
			continue
		}
		if t.region.length == 0 {
			continue
		}
		keep := abortedDataFilter(t.part.Log.AbortedTransactions(t.offset, t.out.HighWatermark))
		conv, err := legacy.NewDownConverter(t.region.file, t.region.offset, t.region.length, magic, t.offset, keep)
		if err != nil {
			t.out.ErrorCode = kerr.CorruptMessage.Code
			if errors.Is(err, legacy.ErrUnsupportedCodec) {
				t.out.ErrorCode = kerr.UnsupportedCompressionType.Code
			}
			t.region = fileRegion{}
			continue
		}
		t.region = fileRegion{length: conv.Size(), stream: conv}
	}
}

// abortedDataFilter keeps the batches a read_committed consumer keeps,
// given the aborted transactions overlapping the read: it follows each
// producer from the first offset of an aborted transaction to that
// transaction's abort marker, as the Java consumer does. nil keeps all.
func abortedDataFilter(aborted []klog.AbortedTxn) func(record.Batch) bool {
	if len(aborted) == 0 {
		return nil
	}
	aborted = slices.Clone(aborted)
	slices.SortFunc(aborted, func(a, b klog.AbortedTxn) int { return cmp.Compare(a.FirstOffset, b.FirstOffset) })
	open := map[int64]bool{}
	return func(b record.Batch) bool {
		for len(aborted) > 0 && aborted[0].FirstOffset <= b.LastOffset() {
			open[aborted[0].ProducerID] = true
			aborted = aborted[1:]
		}
		if !b.IsTransactional() {
			return true
		}
		if b.IsControl() {
			if m, err := record.ParseMarker(b); err == nil && m.Type == record.ControlAbort {
				delete(open, b.ProducerID())
			}
			return false
		}
		return !open[b.ProducerID()]
	}
}
