package handler

import (
	"github.com/twmb/franz-go/pkg/kerr"

	"github.com/karst-broker/karst/internal/metadata"
)

// offsetPartitionCode is the error for partition p of a resolved topic.
func offsetPartitionCode(t *metadata.Topic, p int32) int16 {
	if _, ok := t.Partition(p); !ok {
		return kerr.UnknownTopicOrPartition.Code
	}
	return 0
}
