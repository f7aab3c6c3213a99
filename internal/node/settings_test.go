package node

import (
	"testing"
	"time"

	"github.com/karst-broker/karst/internal/config"
)

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
