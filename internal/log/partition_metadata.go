package log

import (
	"encoding/base64"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// PartitionMetadataFile holds the topic id of the partition directory.
const PartitionMetadataFile = "partition.metadata"

// TopicID is Kafka's Uuid; its text form is unpadded URL-safe base64.
type TopicID [16]byte

func (id TopicID) String() string { return base64.RawURLEncoding.EncodeToString(id[:]) }

// IsZero reports the zero (unassigned) id.
func (id TopicID) IsZero() bool { return id == TopicID{} }

// ParseTopicID parses the base64 text form.
func ParseTopicID(s string) (TopicID, error) {
	var id TopicID
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil || len(b) != 16 {
		return id, fmt.Errorf("log: bad topic id %q", s)
	}
	copy(id[:], b)
	return id, nil
}

// WritePartitionMetadata writes partition.metadata byte for byte as Kafka
// 4 does: "version: 0\ntopic_id: <base64>" with no final newline.
func WritePartitionMetadata(dir string, id TopicID) error {
	return writeFileAtomic(filepath.Join(dir, PartitionMetadataFile),
		[]byte(fmt.Sprintf("version: 0\ntopic_id: %s", id)))
}

// ReadPartitionMetadata reads the topic id; os.ErrNotExist if absent.
func ReadPartitionMetadata(dir string) (TopicID, error) {
	data, err := os.ReadFile(filepath.Join(dir, PartitionMetadataFile))
	if err != nil {
		return TopicID{}, err
	}
	var version, topicID string
	for _, line := range strings.Split(string(data), "\n") {
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		switch strings.TrimSpace(k) {
		case "version":
			version = strings.TrimSpace(v)
		case "topic_id":
			topicID = strings.TrimSpace(v)
		}
	}
	if version != "0" {
		return TopicID{}, errors.New("log: partition.metadata: unsupported version " + version)
	}
	return ParseTopicID(topicID)
}
