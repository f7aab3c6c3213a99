package log

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/karst-broker/karst/internal/record"
)

// kafkaCleanedFixture is testdata/kafka-4.4.0-cleaned: a compacted
// partition Apache Kafka 4.4.0's log cleaner cleaned up to offset 5103
// (its cleaner-offset-checkpoint is beside it). kafka-console-producer
// (lz4) wrote line i (0-based) of a generated input as key "key-%02d"
// (i%37) and value "value-<i>-<300 x>", null when i%13 == 0: lines 0-2999
// at offsets 0-2999, then lines 699-1399, 1399-2099 and 2099-2799 in
// three later runs, then "key-tail" at 5103, in the active segment.
const kafkaCleanedFixture = "testdata/kafka-4.4.0-cleaned/kcleaned-0"

func TestKafkaCleanedPartitionReadAndCleanedAgain(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "kcleaned-0")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(kafkaCleanedFixture)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(kafkaCleanedFixture, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, e.Name()), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want := map[string]string{} // the last value of each key Kafka was sent
	for i := 2099; i <= 2799; i++ {
		v := fmt.Sprintf("value-%d-%s", i, strings.Repeat("x", 300))
		if i%13 == 0 {
			v = "<null>"
		}
		want[fmt.Sprintf("key-%02d", i%37)] = v
	}
	cfg := compactConfig()
	cfg.SegmentBytes = 1 << 20
	l := openTest(t, dir, cfg)
	defer l.Close()
	check := func(stage string, tombstones bool) {
		t.Helper()
		seen := map[string]bool{}
		for _, b := range readAll(t, l, 0) {
			if b.LastOffset() >= 5103 {
				continue
			}
			err := b.ForEachRecord(1<<20, func(r *record.Record) error {
				k := string(r.Key)
				if seen[k] {
					return fmt.Errorf("key %s twice below the cleaned offset", k)
				}
				seen[k] = true
				got := "<null>"
				if r.Value != nil {
					got = string(r.Value)
				} else if !b.HasDeleteHorizon() {
					return fmt.Errorf("tombstone of %s in a batch without a delete horizon", k)
				}
				if got != want[k] {
					return fmt.Errorf("key %s is %.20q..., the last value sent was %.20q...", k, got, want[k])
				}
				return nil
			})
			if err != nil {
				t.Fatalf("%s: %v", stage, err)
			}
		}
		for k, v := range want {
			if v == "<null>" && !tombstones {
				if seen[k] {
					t.Fatalf("%s: the tombstone of %s outlived its horizon", stage, k)
				}
				continue
			}
			if !seen[k] {
				t.Fatalf("%s: key %s missing", stage, k)
			}
		}
	}
	check("as Kafka cleaned it", true)
	// Karst cleans it further once the tombstones' horizon has passed.
	c := l.CleanableSection(-1, time.Now())
	if _, err := l.Clean(t.Context(), c, CleanerSettings{DedupeBufferBytes: 1 << 20}, time.Now().Add(48*time.Hour)); err != nil {
		t.Fatal(err)
	}
	check("cleaned again by Karst after the horizon", false)
}
