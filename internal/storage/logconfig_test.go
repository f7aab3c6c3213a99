package storage

import (
	"testing"
	"time"

	klog "github.com/karst-broker/karst/internal/log"
	"github.com/karst-broker/karst/internal/record"
)

func TestTopicLogConfigAppliesOverrides(t *testing.T) {
	base := klog.DefaultConfig()
	cfg := TopicLogConfig(base, map[string]string{
		"segment.bytes": "1048576", "retention.ms": "-1", "retention.bytes": "5000",
		"message.timestamp.type": "LogAppendTime", "max.message.bytes": "2097152", "cleanup.policy": "delete",
	})
	if cfg.SegmentBytes != 1<<20 || cfg.RetentionTime >= 0 || cfg.RetentionBytes != 5000 ||
		cfg.TimestampType != record.LogAppendTime || cfg.MaxMessageBytes != 2<<20 {
		t.Fatalf("overrides not applied: %+v", cfg)
	}
	if cfg.Durability != klog.GroupCommit {
		t.Fatal("durability changed without flush settings")
	}
	paged := TopicLogConfig(base, map[string]string{"flush.ms": "1000"})
	if paged.Durability != klog.PageCache || paged.FlushInterval != time.Second {
		t.Fatalf("flush.ms did not choose page-cache durability: %+v", paged)
	}
	if base.SegmentBytes != klog.DefaultConfig().SegmentBytes {
		t.Fatal("the base config was modified")
	}
}

func TestTopicLogConfigCompactOnlyTurnsRetentionOff(t *testing.T) {
	for policy, off := range map[string]bool{"compact": true, "delete": false, "compact,delete": false, "delete, compact": false} {
		if got := TopicLogConfig(klog.DefaultConfig(), map[string]string{"cleanup.policy": policy}).RetentionOff; got != off {
			t.Errorf("cleanup.policy=%s: retention off %v, want %v", policy, got, off)
		}
	}
}
