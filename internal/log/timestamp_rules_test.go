package log

import (
	"errors"
	"testing"
	"time"

	"github.com/karst-broker/karst/internal/record"
)

func TestTimestampRulesRefuseFarTimestamps(t *testing.T) {
	dir := t.TempDir()
	now := time.UnixMilli(1_800_000_000_000)
	cfg := DefaultConfig()
	cfg.Now = func() time.Time { return now }
	cfg.TimestampBeforeMax = 24 * time.Hour
	l, err := Open(dir+"/ts-0", cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	batch := func(ts int64) []byte {
		b, err := record.Build(nil, record.BatchHeader{BaseTimestamp: ts, ProducerID: -1, ProducerEpoch: -1, BaseSequence: -1},
			[]record.Record{{Value: []byte("v")}})
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	for _, tc := range []struct {
		name string
		ts   int64
		ok   bool
	}{
		{"now", now.UnixMilli(), true},
		{"59 minutes ahead", now.Add(59 * time.Minute).UnixMilli(), true},
		{"2 hours ahead", now.Add(2 * time.Hour).UnixMilli(), false},
		{"23 hours ago", now.Add(-23 * time.Hour).UnixMilli(), true},
		{"2 days ago", now.Add(-48 * time.Hour).UnixMilli(), false},
	} {
		_, err := l.Append(batch(tc.ts), AppendOptions{Origin: FromClient, LeaderEpoch: -1})
		if tc.ok != (err == nil) || (err != nil && !errors.Is(err, ErrInvalidTimestamp)) {
			t.Errorf("%s: %v", tc.name, err)
		}
	}
	cfg.TimestampType = record.LogAppendTime
	l.UpdateConfig(cfg)
	if _, err := l.Append(batch(now.Add(48*time.Hour).UnixMilli()), AppendOptions{Origin: FromClient, LeaderEpoch: -1}); err != nil {
		t.Fatalf("LogAppendTime topics take any producer timestamp: %v", err)
	}
}
