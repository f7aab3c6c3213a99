package log

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/karst-broker/karst/internal/record"
)

// keyedBatch builds a batch of one record per key/value pair (value "" is
// a tombstone) at timestamp ts.
func keyedBatch(t testing.TB, ts int64, kv ...string) []byte {
	t.Helper()
	var rs []record.Record
	for i := 0; i+1 < len(kv); i += 2 {
		r := record.Record{TimestampDelta: int64(i / 2), Key: []byte(kv[i])}
		if kv[i+1] != "" {
			r.Value = []byte(kv[i+1])
		}
		rs = append(rs, r)
	}
	b, err := record.Build(nil, record.BatchHeader{BaseTimestamp: ts, ProducerID: -1, ProducerEpoch: -1, BaseSequence: -1}, rs)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func compactConfig() Config {
	c := testConfig()
	c.SegmentBytes = 300 // a few small batches a segment
	c.RetentionOff = true
	c.Compaction = CompactionConfig{Compact: true, MinCleanableDirtyRatio: 0.5, DeleteRetention: time.Hour}
	return c
}

// surviving lists offset:key=value of every record left in the log.
func surviving(t testing.TB, l *Log) []string {
	t.Helper()
	var out []string
	for _, b := range readAll(t, l, l.LogStartOffset()) {
		if b.IsControl() {
			out = append(out, fmt.Sprintf("%d:marker", b.LastOffset()))
			continue
		}
		err := b.ForEachRecord(1<<20, func(r *record.Record) error {
			v := string(r.Value)
			if r.Value == nil {
				v = "<null>"
			}
			out = append(out, fmt.Sprintf("%d:%s=%s", b.BaseOffset()+int64(r.OffsetDelta), r.Key, v))
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return out
}

func cleanOnce(t testing.TB, l *Log, checkpoint int64, now time.Time, bufBytes int64) CleanStats {
	t.Helper()
	c := l.CleanableSection(checkpoint, now)
	st, err := l.Clean(context.Background(), c, CleanerSettings{DedupeBufferBytes: bufBytes, LoadFactor: 0.9}, now)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func TestCleanKeepsTheLastValueOfEachKeyAndNeverTheActiveSegment(t *testing.T) {
	dir := t.TempDir() + "/t-0"
	l := openTest(t, dir, compactConfig())
	defer l.Close()
	var sizes []int
	for i := 0; i < 30; i++ {
		b := keyedBatch(t, int64(i), fmt.Sprintf("k%d", i%3), fmt.Sprintf("v%d", i))
		mustAppend(t, l, b)
		sizes = append(sizes, len(b))
	}
	before := len(l.SegmentBaseOffsets())
	if before < 4 {
		t.Fatalf("want several segments, have %d", before)
	}
	active := l.SegmentBaseOffsets()[before-1]
	// Groups are bounded by segment.bytes: with room, the segments merge.
	cfg := l.Config()
	cfg.SegmentBytes = 1 << 20
	l.UpdateConfig(cfg)
	st := cleanOnce(t, l, -1, time.Now(), 1<<20)
	if st.EndOffset != active {
		t.Fatalf("cleaned up to %d, want the active segment's base %d", st.EndOffset, active)
	}
	// As Kafka counts them: the copy read every batch below the active
	// segment once, and so did the offset map, counted apart.
	var below int64
	for _, n := range sizes[:active] {
		below += int64(n)
	}
	if st.BytesRead != below || st.MapBytesRead != below {
		t.Fatalf("the pass counted %d bytes read by the copy and %d by the offset map, want %d each", st.BytesRead, st.MapBytesRead, below)
	}
	got := surviving(t, l)
	var want []string
	for i := 0; i < 30; i++ {
		// Below the active segment only the last of each key stays; the
		// active segment is copied by nobody.
		if int64(i) >= active || (i >= int(active)-3) {
			want = append(want, fmt.Sprintf("%d:k%d=v%d", i, i%3, i))
		}
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("after cleaning\n got %v\nwant %v", got, want)
	}
	if after := len(l.SegmentBaseOffsets()); after >= before {
		t.Fatalf("small cleaned segments were not merged: %d segments before, %d after", before, after)
	}
	if l.LogEndOffset() != 30 {
		t.Fatalf("log end moved to %d", l.LogEndOffset())
	}
	// Reopening reads the cleaned segments back the same.
	l.Close()
	l = openTest(t, dir, compactConfig())
	if again := surviving(t, l); fmt.Sprint(again) != fmt.Sprint(want) {
		t.Fatalf("after reopening\n got %v\nwant %v", again, want)
	}
}

func TestCleanWithASmallOffsetMapTakesSeveralPasses(t *testing.T) {
	l := openTest(t, t.TempDir()+"/t-0", compactConfig())
	defer l.Close()
	for round := 0; round < 3; round++ {
		for k := 0; k < 10; k++ {
			mustAppend(t, l, keyedBatch(t, int64(round*10+k), fmt.Sprintf("k%d", k), fmt.Sprintf("r%d", round)))
		}
	}
	mustAppend(t, l, keyedBatch(t, 99, "tail", "x")) // keeps the rounds out of the active segment
	cfg := l.Config()
	cfg.SegmentBytes = 80 // one batch a segment from here on
	l.UpdateConfig(cfg)
	mustAppend(t, l, keyedBatch(t, 100, "tail", "y"))
	// Five slots at load factor 0.9: four keys a pass.
	buf := int64(5 * offsetMapEntryBytes)
	checkpoint, passes := int64(-1), 0
	for passes < 20 {
		c := l.CleanableSection(checkpoint, time.Now())
		if c.FirstUncleanable <= c.FirstDirty {
			break
		}
		st := cleanOnce(t, l, checkpoint, time.Now(), buf)
		if st.EndOffset <= checkpoint {
			t.Fatalf("pass %d made no progress at %d", passes, checkpoint)
		}
		checkpoint = st.EndOffset
		passes++
	}
	if passes < 2 {
		t.Fatalf("a map of 4 keys cleaned 11 keys in %d pass", passes)
	}
	got := surviving(t, l)
	for _, rec := range got {
		var off int
		if _, err := fmt.Sscanf(rec, "%d:", &off); err != nil {
			t.Fatal(err)
		}
		if off < 20 {
			t.Fatalf("a superseded record survived %d passes: %v", passes, got)
		}
	}
}
