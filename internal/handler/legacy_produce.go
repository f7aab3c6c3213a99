package handler

import (
	"errors"
	"fmt"

	"github.com/twmb/franz-go/pkg/kerr"

	"github.com/karst-broker/karst/internal/config"
	klog "github.com/karst-broker/karst/internal/log"
	"github.com/karst-broker/karst/internal/record"
	"github.com/karst-broker/karst/internal/record/legacy"
)

// lastMessageSetProduceVersion is the newest Produce version whose
// partitions carry MessageSets (magic 0 and 1) rather than record batches.
const lastMessageSetProduceVersion = 2

// upConvertMessageSet turns the MessageSet of a Produce v0-2 partition into
// one v2 batch, as Kafka 3.x's LogValidator converted them on append: keys
// and values as sent, magic 1 CreateTime timestamps kept, magic 0 messages
// without a timestamp unless the topic stamps LogAppendTime, the wrappers'
// codec kept (the topic's compression.type applies afterwards, as to any
// batch). Any fault refuses the whole set: CORRUPT_MESSAGE, or
// UNSUPPORTED_COMPRESSION_TYPE for a codec the old formats lack.
func upConvertMessageSet(set []byte, topic *config.TopicConfig) ([]byte, error) {
	s, err := legacy.Decode(set, record.DefaultMaxDecompressed)
	if errors.Is(err, legacy.ErrUnsupportedCodec) {
		return nil, kerr.UnsupportedCompressionType
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %v", klog.ErrCorruptRecord, err)
	}
	tsType := record.CreateTime
	if topic.MessageTimestampType == "LogAppendTime" {
		tsType = record.LogAppendTime
	}
	return s.AppendBatch(nil, s.Codec, tsType)
}
