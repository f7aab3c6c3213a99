package log

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/karst-broker/karst/internal/record"
)

// cleanedFixture is testdata/karst-cleaned-4.4.0: a partition Karst wrote
// and cleaned from fixed input at a fixed clock, and Kafka 4.4.0's
// DumpLogSegments output for its segments (kafka-dump.txt, made with
// KARST_WRITE_CLEANED_FIXTURE=1 and interop/kafka/lib-4.4.0; see the
// command in that file's first line).
const cleanedFixture = "testdata/karst-cleaned-4.4.0/compacted-0"

// writeCleanedFixtureLog writes the fixture's input into dir and cleans
// it: keyed updates (uncompressed, gzip, lz4, zstd), tombstones, a
// committed and an aborted transaction, and a final segment left active.
func writeCleanedFixtureLog(t *testing.T, dir string) {
	clock := &fakeClock{t: time.UnixMilli(1_700_000_000_000)}
	cfg := compactConfig()
	cfg.SegmentBytes = 600
	cfg.IndexIntervalBytes = 100
	cfg.Now = clock.Now
	l := openTest(t, dir, cfg)
	codecs := []record.Codec{record.CodecNone, record.CodecGzip, record.CodecLZ4, record.CodecZstd}
	ts := clock.Now().UnixMilli()
	for i := 0; i < 60; i++ {
		var rs []record.Record
		for j := 0; j < 3; j++ {
			r := record.Record{TimestampDelta: int64(j), Key: []byte(fmt.Sprintf("key-%d", (i*3+j)%37)), Value: []byte(fmt.Sprintf("v%d.%d", i, j))}
			if (i*3+j)%11 == 0 {
				r.Value = nil
			}
			rs = append(rs, r)
		}
		b, err := record.Build(nil, record.BatchHeader{BaseTimestamp: ts + int64(i), ProducerID: -1, ProducerEpoch: -1,
			BaseSequence: -1, Codec: codecs[i%len(codecs)]}, rs)
		if err != nil {
			t.Fatal(err)
		}
		mustAppend(t, l, b)
		switch i {
		case 10:
			mustAppend(t, l, txnKeyedBatch(t, 100, 0, "key-1", "txn-committed"))
			mustMarker(t, l, 100, 0, record.ControlCommit)
		case 20:
			mustAppend(t, l, txnKeyedBatch(t, 200, 0, "key-2", "txn-aborted"))
			mustMarker(t, l, 200, 0, record.ControlAbort)
		}
	}
	cleanOnce(t, l, -1, clock.Now(), 1<<20)
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestCleanedSegmentsAsKafkaRead regenerates the fixture and requires the
// same bytes in every segment file: the bytes Kafka 4.4.0's
// DumpLogSegments read and verified (deep iteration, index check) when
// the fixture was made.
func TestCleanedSegmentsAsKafkaRead(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "compacted-0")
	if os.Getenv("KARST_WRITE_CLEANED_FIXTURE") != "" {
		dir, _ = filepath.Abs(cleanedFixture)
		_ = os.RemoveAll(dir)
	}
	writeCleanedFixtureLog(t, dir)
	names := segmentFiles(t, dir)
	want := segmentFiles(t, cleanedFixture)
	if fmt.Sprint(names) != fmt.Sprint(want) {
		t.Fatalf("segment files %v, the fixture has %v", names, want)
	}
	for _, name := range names {
		got, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		exp, err := os.ReadFile(filepath.Join(cleanedFixture, name))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, exp) {
			t.Errorf("%s: %d bytes differ from the %d Kafka read", name, len(got), len(exp))
		}
	}
	dump, err := os.ReadFile(filepath.Join(filepath.Dir(cleanedFixture), "kafka-dump.txt"))
	if err != nil {
		t.Fatal(err)
	}
	// What Kafka saw of the cleaned segment: the delete horizon on the
	// tombstones' batches and no aborted record.
	for _, must := range [][]byte{[]byte("deleteHorizonMs: OptionalLong[1700003600000]"), []byte("isControl: true")} {
		if !bytes.Contains(dump, must) {
			t.Errorf("Kafka's dump lacks %q", must)
		}
	}
	if bytes.Contains(dump, []byte("txn-aborted")) {
		t.Error("Kafka's dump shows the aborted transaction's record")
	}
	// Kafka reads the same records, offsets, keys and values as Karst.
	var kafka []string
	for _, line := range strings.Split(string(dump), "\n") {
		var off int64
		if _, err := fmt.Sscanf(line, "| offset: %d", &off); err != nil {
			continue
		}
		switch {
		case strings.Contains(line, "endTxnMarker:"):
			kafka = append(kafka, fmt.Sprintf("%d:marker", off))
		case strings.Contains(line, "valueSize: -1"):
			kafka = append(kafka, fmt.Sprintf("%d:%s=<null>", off, after(line, " key: ")))
		default:
			k, v, _ := strings.Cut(after(line, " key: "), " payload: ")
			kafka = append(kafka, fmt.Sprintf("%d:%s=%s", off, k, v))
		}
	}
	if len(kafka) < 30 {
		t.Fatalf("Kafka's dump holds %d records", len(kafka))
	}
	l := openTest(t, dir, compactConfig())
	defer l.Close()
	if got := surviving(t, l); fmt.Sprint(got) != fmt.Sprint(kafka) {
		t.Errorf("Karst reads\n%v\nKafka read\n%v", got, kafka)
	}
}

func after(s, sep string) string {
	_, rest, _ := strings.Cut(s, sep)
	return rest
}

func segmentFiles(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		switch filepath.Ext(e.Name()) {
		case LogSuffix, IndexSuffix, TimeIndexSuffix, TxnIndexSuffix:
			out = append(out, e.Name())
		}
	}
	sort.Strings(out)
	return out
}
