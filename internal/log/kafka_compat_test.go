package log

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/karst-broker/karst/internal/record"
)

// TestKafkaWrittenPartition checks Karst against a partition directory
// written by Apache Kafka (testdata/kafka-4.1.2/fixture-0, or set
// KARST_KAFKA_PARTITION_DIR, and
// KARST_KAFKA_INDEX_INTERVAL if the topic had a non-default
// index.interval.bytes). Karst rebuilds every index from the .log files and
// must produce Kafka's .index and .timeindex byte for byte, read every
// batch, and load Kafka's producer snapshots.
func TestKafkaWrittenPartition(t *testing.T) {
	src := os.Getenv("KARST_KAFKA_PARTITION_DIR")
	if src == "" {
		src = "testdata/kafka-4.1.2/fixture-0"
		t.Setenv("KARST_KAFKA_INDEX_INTERVAL", "200")
	}
	dir := filepath.Join(t.TempDir(), filepath.Base(src))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(src)
	orig := map[string][]byte{}
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		orig[e.Name()] = data
		ext := filepath.Ext(e.Name())
		if ext == IndexSuffix || ext == TimeIndexSuffix {
			continue // Karst must rebuild these
		}
		os.WriteFile(filepath.Join(dir, e.Name()), data, 0o644)
	}
	cfg := DefaultConfig()
	if v := os.Getenv("KARST_KAFKA_INDEX_INTERVAL"); v != "" {
		cfg.IndexIntervalBytes, _ = strconv.Atoi(v)
	}
	l, err := Open(dir, cfg, testLogger(t))
	if err != nil {
		t.Fatal(err)
	}
	batches := readAll(t, l, 0)
	var records int64
	for _, b := range batches {
		records += int64(b.RecordCount())
		if err := b.ForEachRecord(0, func(*record.Record) error { return nil }); err != nil {
			t.Fatalf("batch %d (%v): %v", b.BaseOffset(), b.Codec(), err)
		}
	}
	if records != l.LogEndOffset() {
		t.Errorf("%d records, log end %d", records, l.LogEndOffset())
	}
	checkTimestampLookups(t, l, batches)
	producers := len(l.producers.producers)
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d batches, %d records, %d producers", len(batches), records, producers)
	for name, want := range orig {
		ext := filepath.Ext(name)
		if ext != IndexSuffix && ext != TimeIndexSuffix {
			continue
		}
		got, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s differs from Kafka's (%d vs %d bytes): %v", name, len(got), len(want), err)
		}
	}
	for name, want := range orig {
		if filepath.Ext(name) != SnapshotSuffix {
			continue
		}
		m, err := decodeSnapshot(want)
		if err != nil {
			t.Errorf("Kafka snapshot %s: %v", name, err)
			continue
		}
		ours := &producerStateManager{producers: m}
		back, err := decodeSnapshot(encodeSnapshot(ours))
		if err != nil || len(back) != len(m) {
			t.Errorf("snapshot %s round trip: %v", name, err)
		}
	}
	if id, err := ReadPartitionMetadata(dir); err != nil {
		t.Errorf("partition.metadata: %v", err)
	} else if err := WritePartitionMetadata(dir, id); err != nil {
		t.Fatal(err)
	} else if got, _ := os.ReadFile(filepath.Join(dir, PartitionMetadataFile)); !bytes.Equal(got, orig[PartitionMetadataFile]) {
		t.Errorf("partition.metadata rewritten as %q, Kafka wrote %q", got, orig[PartitionMetadataFile])
	}
}

// TestRewriteKafkaPartition appends every batch of a Kafka-written partition
// (KARST_KAFKA_PARTITION_DIR) through Karst's Append into
// KARST_REWRITE_OUT, with the topic's segment.bytes / index.interval.bytes
// (KARST_KAFKA_SEGMENT_BYTES, KARST_KAFKA_INDEX_INTERVAL). Kafka rolls and
// indexes by the same rules, so .log, .index and .timeindex must come out
// byte for byte identical; the output can also be served by Kafka.
func TestRewriteKafkaPartition(t *testing.T) {
	src, out := os.Getenv("KARST_KAFKA_PARTITION_DIR"), os.Getenv("KARST_REWRITE_OUT")
	if src == "" || out == "" {
		t.Skip("KARST_KAFKA_PARTITION_DIR / KARST_REWRITE_OUT not set")
	}
	cfg := DefaultConfig()
	cfg.IndexIntervalBytes, _ = strconv.Atoi(os.Getenv("KARST_KAFKA_INDEX_INTERVAL"))
	cfg.SegmentBytes, _ = strconv.ParseInt(os.Getenv("KARST_KAFKA_SEGMENT_BYTES"), 10, 64)
	cfg.SegmentTime = 100 * 365 * 24 * 3600e9
	in, err := Open(filepath.Join(t.TempDir(), filepath.Base(src)), DefaultConfig(), testLogger(t))
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	copyDir(t, src, in.Dir(), IndexSuffix, TimeIndexSuffix)
	in.Close()
	in, err = Open(in.Dir(), DefaultConfig(), testLogger(t))
	if err != nil {
		t.Fatal(err)
	}
	os.RemoveAll(out)
	l, err := Open(out, cfg, testLogger(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range readAll(t, in, 0) {
		buf := append([]byte(nil), b...)
		if _, err := l.Append(buf, AppendOptions{LeaderEpoch: b.PartitionLeaderEpoch()}); err != nil {
			t.Fatal(err)
		}
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(filepath.Join(src, PartitionMetadataFile))
	os.WriteFile(filepath.Join(out, PartitionMetadataFile), data, 0o644)
	entries, _ := os.ReadDir(src)
	for _, e := range entries {
		ext := filepath.Ext(e.Name())
		if ext != LogSuffix && ext != IndexSuffix && ext != TimeIndexSuffix {
			continue
		}
		want, _ := os.ReadFile(filepath.Join(src, e.Name()))
		got, err := os.ReadFile(filepath.Join(out, e.Name()))
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s: Karst wrote %d bytes, Kafka %d (%v)", e.Name(), len(got), len(want), err)
		}
	}
}

func copyDir(t *testing.T, src, dst string, skip ...string) {
	entries, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
outer:
	for _, e := range entries {
		for _, s := range skip {
			if filepath.Ext(e.Name()) == s {
				continue outer
			}
		}
		data, _ := os.ReadFile(filepath.Join(src, e.Name()))
		os.WriteFile(filepath.Join(dst, e.Name()), data, 0o644)
	}
}

// checkTimestampLookups compares OffsetForTimestamp with a linear scan.
func checkTimestampLookups(t *testing.T, l *Log, batches []record.Batch) {
	type rec struct{ ts, off int64 }
	var all []rec
	for _, b := range batches {
		b.ForEachRecord(0, func(r *record.Record) error {
			all = append(all, rec{b.BaseTimestamp() + r.TimestampDelta, b.BaseOffset() + int64(r.OffsetDelta)})
			return nil
		})
	}
	if len(all) == 0 {
		return
	}
	for i := 0; i < len(all); i += 1 + len(all)/50 {
		target := all[i].ts
		want := rec{-1, -1}
		for _, r := range all {
			if r.ts >= target {
				want = r
				break
			}
		}
		got, found, err := l.OffsetForTimestamp(target)
		if err != nil || !found || got.Offset != want.off || got.Timestamp != want.ts {
			t.Errorf("timestamp %d: got %+v %v %v, want %+v", target, got, found, err, want)
		}
	}
}
