package main

import (
	"encoding/json"
	"os"
	"strconv"
)

// Manifest is what a producing broker served right after the writes: the
// topics with their ids and config overrides, every record at its offset,
// each partition's earliest and latest offsets, and its ListOffsets
// answers by timestamp. verify compares a
// broker started on the same data directory against it.
type Manifest struct {
	Topics  []TopicSpec `json:"topics"`
	Records []Rec       `json:"records"`
	// Offsets maps "topic/partition" to [earliest, latest].
	Offsets map[string][2]int64 `json:"offsets"`
	// TimestampAnswers is what the broker that last served the data
	// answered to ListOffsets by timestamp (and earliest, latest, max
	// timestamp) for every partition.
	TimestampAnswers *TimestampAnswers `json:"timestamp_answers,omitempty"`
}

// TopicSpec is one topic as created.
type TopicSpec struct {
	Name       string            `json:"name"`
	ID         string            `json:"id"`
	Partitions int32             `json:"partitions"`
	Configs    map[string]string `json:"configs"`
	// TooLarge is a batch size (uncompressed value bytes) the topic's
	// max.message.bytes override refuses but the broker default accepts.
	TooLarge int `json:"too_large,omitempty"`
}

// Rec is one record as the producer sent it and the broker placed it.
type Rec struct {
	Topic     string   `json:"topic"`
	Partition int32    `json:"partition"`
	Offset    int64    `json:"offset"`
	Key       []byte   `json:"key"`
	Value     []byte   `json:"value"`
	Headers   []Header `json:"headers"`
	Timestamp int64    `json:"ts"`
	Codec     string   `json:"codec"`
}

// Header is one record header.
type Header struct {
	Key   string `json:"k"`
	Value []byte `json:"v"`
}

func tpKey(topic string, partition int32) string {
	return topic + "/" + strconv.Itoa(int(partition))
}

func writeManifest(path string, m *Manifest) error {
	b, err := json.MarshalIndent(m, "", " ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, b, 0o644)
}

func readManifest(path string) (*Manifest, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var m Manifest
	return &m, json.Unmarshal(b, &m)
}
