package handler

import (
	"fmt"

	klog "github.com/karst-broker/karst/internal/log"
	"github.com/karst-broker/karst/internal/record"
)

// topicCodecs maps compression.type to a codec; "producer" (keep what the
// producer sent) is absent.
var topicCodecs = map[string]record.Codec{
	"uncompressed": record.CodecNone,
	"gzip":         record.CodecGzip,
	"snappy":       record.CodecSnappy,
	"lz4":          record.CodecLZ4,
	"zstd":         record.CodecZstd,
}

// recompressForTopic rewrites every batch whose codec differs from the
// topic's compression.type, as Kafka does on append. Batches already in
// the topic's codec, and all batches of "producer" topics, are untouched
// and not copied. As Kafka's UnifiedLog, a batch larger than
// max.message.bytes as the producer sent it is refused before it is
// recompressed (the log checks the stored size again).
func recompressForTopic(batches []byte, compressionType string, maxMessageBytes int32) ([]byte, error) {
	codec, ok := topicCodecs[compressionType]
	if !ok {
		return batches, nil
	}
	sp := record.NewSplitter(batches, 0)
	var out []byte
	for {
		b, err := sp.Next()
		if err != nil {
			return nil, fmt.Errorf("%w: %v", klog.ErrCorruptRecord, err)
		}
		if b == nil {
			break
		}
		if b.Size() > int(maxMessageBytes) {
			return nil, fmt.Errorf("%w: the record batch is %d bytes, more than max.message.bytes %d", klog.ErrMessageTooLarge, b.Size(), maxMessageBytes)
		}
		if out == nil && b.Codec() == codec {
			continue // still a prefix of the input
		}
		if out == nil {
			out = append([]byte(nil), batches[:sp.Pos()-b.Size()]...)
		}
		nb, err := record.Recompress(nil, b, codec, record.DefaultMaxDecompressed)
		if err != nil {
			return nil, fmt.Errorf("%w: %v", klog.ErrCorruptRecord, err)
		}
		out = append(out, nb...)
	}
	if out == nil {
		return batches, nil
	}
	return out, nil
}
