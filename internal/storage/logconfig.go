package storage

import (
	"slices"
	"strconv"
	"strings"
	"time"

	klog "github.com/karst-broker/karst/internal/log"
	"github.com/karst-broker/karst/internal/record"
)

// TopicLogConfig applies a topic's config overrides (Kafka topic config
// keys, values already validated when they were set) to the broker's
// defaults. Keys that do not shape the log are ignored here. A topic that
// sets flush.messages or flush.ms gets Kafka's page-cache durability with
// those flush intervals; otherwise every acknowledged write is fsynced.
func TopicLogConfig(base klog.Config, overrides map[string]string) klog.Config {
	cfg := base
	for k, v := range overrides {
		switch k {
		case "segment.bytes":
			setInt(&cfg.SegmentBytes, v)
		case "segment.ms":
			setMillis(&cfg.SegmentTime, v)
		case "segment.index.bytes":
			setIntInt(&cfg.SegmentIndexBytes, v)
		case "index.interval.bytes":
			setIntInt(&cfg.IndexIntervalBytes, v)
		case "retention.ms":
			setMillis(&cfg.RetentionTime, v)
		case "retention.bytes":
			setInt(&cfg.RetentionBytes, v)
		case "cleanup.policy":
			cfg.RetentionOff = !slices.Contains(strings.Split(strings.ReplaceAll(v, " ", ""), ","), "delete")
		case "flush.messages":
			// Setting Kafka's flush settings chooses Kafka's page-cache
			// durability for the topic instead of Karst's fsync per ack.
			setInt(&cfg.FlushMessages, v)
			cfg.Durability = klog.PageCache
		case "flush.ms":
			setMillis(&cfg.FlushInterval, v)
			cfg.Durability = klog.PageCache
		case "max.message.bytes":
			setIntInt(&cfg.MaxMessageBytes, v)
		case "message.timestamp.before.max.ms":
			setMillisAtLeastOne(&cfg.TimestampBeforeMax, v)
		case "message.timestamp.after.max.ms":
			setMillisAtLeastOne(&cfg.TimestampAfterMax, v)
		case "file.delete.delay.ms":
			setMillis(&cfg.FileDeleteDelay, v)
		case "message.timestamp.type":
			switch v {
			case "LogAppendTime":
				cfg.TimestampType = record.LogAppendTime
			case "CreateTime":
				cfg.TimestampType = record.CreateTime
			}
		}
	}
	return cfg
}

func setInt(dst *int64, v string) {
	if n, err := strconv.ParseInt(v, 10, 64); err == nil {
		*dst = n
	}
}

func setIntInt(dst *int, v string) {
	if n, err := strconv.ParseInt(v, 10, 32); err == nil {
		*dst = int(n)
	}
}

func setMillis(dst *time.Duration, v string) {
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return
	}
	if n > int64(time.Duration(1<<63-1)/time.Millisecond) {
		*dst = time.Duration(1<<63 - 1)
		return
	}
	*dst = time.Duration(n) * time.Millisecond
}

// setMillisAtLeastOne is setMillis where 0 is a real bound ("no distance
// at all"), which the log's zero-means-default rule would otherwise lose.
func setMillisAtLeastOne(dst *time.Duration, v string) {
	setMillis(dst, v)
	if *dst <= 0 {
		*dst = time.Nanosecond
	}
}
