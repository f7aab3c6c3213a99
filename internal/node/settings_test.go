package node

import (
	"testing"
	"time"

	"github.com/karst-broker/karst/internal/config"
)

// TestBrokerLogDefaultsCarryTheCleanupPolicy: the broker's
// log.cleanup.policy (a list) reaches the logs of topics without their
// own, so retention runs for delete and is off for compact only.
func TestBrokerLogDefaultsCarryTheCleanupPolicy(t *testing.T) {
	for policy, off := range map[string]bool{"": false, "delete": false, "compact": true, "compact,delete": false} {
		props := map[string]string{"node.id": "1"}
		if policy != "" {
			props["log.cleanup.policy"] = policy
		}
		b, _, err := config.FromProperties(props)
		if err != nil {
			t.Fatal(err)
		}
		if got := brokerLogDefaults(b).RetentionOff; got != off {
			t.Errorf("log.cleanup.policy=%q: retention off %v, want %v", policy, got, off)
		}
	}
}

// TestCheckpointIntervalIsConfigured: log.flush.offset.checkpoint.interval.ms
// sets how often recovery points are written (it was accepted and ignored).
func TestCheckpointIntervalIsConfigured(t *testing.T) {
	b, _, err := config.FromProperties(map[string]string{"node.id": "1", "log.flush.offset.checkpoint.interval.ms": "2500"})
	if err != nil {
		t.Fatal(err)
	}
	if got := checkpointInterval(b); got != 2500*time.Millisecond {
		t.Fatalf("interval %v, want 2.5s", got)
	}
	if got := checkpointInterval(nil); got != time.Minute {
		t.Fatalf("default interval %v, want 1m", got)
	}
}

// TestLogDirsTakesSeveralDirectories: every dir of log.dirs is used, the
// first holding the metadata log; a metadata.log.dir elsewhere is refused
// rather than ignored. Until 2026-12-02 more than one dir was refused.
func TestLogDirsTakesSeveralDirectories(t *testing.T) {
	b, _, err := config.FromProperties(map[string]string{"node.id": "1", "log.dirs": "/data/a,/data/b"})
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := ConfigFrom(b)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.DataDir != "/data/a" || len(cfg.DataDirs) != 2 || cfg.DataDirs[1] != "/data/b" {
		t.Fatalf("DataDir %q, DataDirs %q", cfg.DataDir, cfg.DataDirs)
	}
	b, _, err = config.FromProperties(map[string]string{"node.id": "1", "log.dirs": "/data/a,/data/b", "metadata.log.dir": "/meta"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ConfigFrom(b); err == nil {
		t.Fatal("a metadata.log.dir outside the first log dir was accepted")
	}
}
