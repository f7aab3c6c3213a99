package storage

import (
	"testing"
	"time"

	"github.com/karst-broker/karst/internal/config"
	klog "github.com/karst-broker/karst/internal/log"
	"github.com/karst-broker/karst/internal/record"
)

func logConfig(t *testing.T, broker map[string]string, overrides map[string]string) klog.Config {
	t.Helper()
	props := map[string]string{"node.id": "1"}
	for k, v := range broker {
		props[k] = v
	}
	b, _, err := config.FromProperties(props)
	if err != nil {
		t.Fatal(err)
	}
	tc, err := config.EffectiveTopicConfig(b, overrides)
	if err != nil {
		t.Fatal(err)
	}
	return LogConfig(b, tc)
}

func TestLogConfigAppliesOverrides(t *testing.T) {
	cfg := logConfig(t, nil, map[string]string{
		"segment.bytes": "1048576", "retention.ms": "-1", "retention.bytes": "5000",
		"message.timestamp.type": "LogAppendTime", "max.message.bytes": "2097152", "cleanup.policy": "delete",
		"message.timestamp.before.max.ms": "0",
	})
	if cfg.SegmentBytes != 1<<20 || cfg.RetentionTime >= 0 || cfg.RetentionBytes != 5000 ||
		cfg.TimestampType != record.LogAppendTime || cfg.MaxMessageBytes != 2<<20 || cfg.TimestampBeforeMax != time.Nanosecond {
		t.Fatalf("overrides not applied: %+v", cfg)
	}
	if cfg.Durability != klog.GroupCommit {
		t.Fatal("durability changed without flush settings")
	}
	paged := logConfig(t, nil, map[string]string{"flush.ms": "1000"})
	if paged.Durability != klog.PageCache || paged.FlushInterval != time.Second {
		t.Fatalf("flush.ms did not choose page-cache durability: %+v", paged)
	}
}

// TestLogConfigTakesTheBrokerDefaults: a topic without overrides gets the
// broker's log.* values, and the broker's log.flush.* keys choose page-cache
// durability as a topic's own flush.* would; producer.id.expiration.ms
// reaches the log's producer state.
func TestLogConfigTakesTheBrokerDefaults(t *testing.T) {
	cfg := logConfig(t, map[string]string{"log.retention.minutes": "5", "log.segment.bytes": "2097152",
		"log.flush.interval.messages": "10", "producer.id.expiration.ms": "5000"}, nil)
	if cfg.RetentionTime != 5*time.Minute || cfg.SegmentBytes != 2<<20 || cfg.Durability != klog.PageCache || cfg.FlushMessages != 10 ||
		cfg.ProducerIDExpiration != 5*time.Second {
		t.Fatalf("broker defaults not applied: %+v", cfg)
	}
	if d := logConfig(t, nil, nil); d.Durability != klog.GroupCommit || d.RetentionTime != 7*24*time.Hour {
		t.Fatalf("Kafka's defaults: %+v", d)
	}
}

func TestLogConfigCompactOnlyTurnsRetentionOff(t *testing.T) {
	for policy, off := range map[string]bool{"compact": true, "delete": false, "compact,delete": false, "delete, compact": false} {
		if got := logConfig(t, nil, map[string]string{"cleanup.policy": policy}).RetentionOff; got != off {
			t.Errorf("cleanup.policy=%s: retention off %v, want %v", policy, got, off)
		}
		if got := logConfig(t, map[string]string{"log.cleanup.policy": policy}, nil).RetentionOff; got != off {
			t.Errorf("log.cleanup.policy=%s: retention off %v, want %v", policy, got, off)
		}
	}
}

// TestFlushKeysAtKafkasDefaultKeepFsync: flush.messages and flush.ms set to
// their default (Long.MAX_VALUE, "never"), on the topic or the broker, ask
// for no flush interval, so every acknowledged write is still fsynced.
func TestFlushKeysAtKafkasDefaultKeepFsync(t *testing.T) {
	never := "9223372036854775807"
	for name, cfg := range map[string]klog.Config{
		"topic flush.messages":               logConfig(t, nil, map[string]string{"flush.messages": never}),
		"topic flush.ms":                     logConfig(t, nil, map[string]string{"flush.ms": never}),
		"broker log.flush.interval.messages": logConfig(t, map[string]string{"log.flush.interval.messages": never}, nil),
	} {
		if cfg.Durability != klog.GroupCommit {
			t.Errorf("%s at its default switched durability to %v", name, cfg.Durability)
		}
	}
	if cfg := logConfig(t, nil, map[string]string{"flush.messages": "1"}); cfg.Durability != klog.PageCache || cfg.FlushMessages != 1 {
		t.Fatalf("flush.messages=1: %+v", cfg)
	}
}
