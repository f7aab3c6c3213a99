package log

import (
	"bytes"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/karst-broker/karst/internal/record"
)

// kafkaTxnFixture is a partition written by Apache Kafka 4.1.2 with
// transactions (testdata/kafka-4.1.2/README.md): overlapping transactions
// of two producers, aborts and commits under transaction version 2, one
// segment per round, and a transaction still open at shutdown at offset 44.
const kafkaTxnFixture = "testdata/kafka-4.1.2/txn-0"

const (
	kafkaTxnFixtureLEO     = 46
	kafkaTxnFixtureOpenTxn = 44 // producer 2's open transaction (its snapshot says so)
)

// copyFixture copies the fixture, leaving out files whose name matches drop.
func copyFixture(t *testing.T, src string, drop func(name string) bool) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), filepath.Base(src))
	if err := os.MkdirAll(dst, 0o755); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if drop(e.Name()) {
			continue
		}
		data, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dst, e.Name()), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dst
}

// kafkaTxnIndexes returns Kafka's .txnindex files by name, and all their
// entries in order.
func kafkaTxnIndexes(t *testing.T) (map[string][]byte, []AbortedTxn) {
	t.Helper()
	names, _ := filepath.Glob(filepath.Join(kafkaTxnFixture, "*"+TxnIndexSuffix))
	if len(names) == 0 {
		t.Fatal("fixture has no txnindex")
	}
	files := map[string][]byte{}
	var all []AbortedTxn
	for _, n := range names {
		data, err := os.ReadFile(n)
		if err != nil {
			t.Fatal(err)
		}
		entries, err := decodeTxnIndex(data)
		if err != nil {
			t.Fatalf("Kafka's %s does not decode: %v", n, err)
		}
		files[filepath.Base(n)] = data
		all = append(all, entries...)
	}
	return files, all
}

func checkKafkaTxnPartition(t *testing.T, dir string, cfg Config) {
	t.Helper()
	want, wantAborted := kafkaTxnIndexes(t)
	l := openTest(t, dir, cfg)
	defer l.Close()
	if l.LogEndOffset() != kafkaTxnFixtureLEO || l.LastStableOffset() != kafkaTxnFixtureOpenTxn {
		t.Fatalf("LEO %d LSO %d, want %d %d", l.LogEndOffset(), l.LastStableOffset(), kafkaTxnFixtureLEO, kafkaTxnFixtureOpenTxn)
	}
	for name, data := range want {
		got, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil || !bytes.Equal(got, data) {
			t.Errorf("%s: Karst has %x (%v), Kafka wrote %x", name, got, err, data)
		}
	}
	got := l.AbortedTransactions(0, kafkaTxnFixtureLEO)
	if len(got) != len(wantAborted) {
		t.Fatalf("aborted %+v, want %+v", got, wantAborted)
	}
	for i := range got {
		if got[i] != wantAborted[i] {
			t.Fatalf("aborted[%d] = %+v, want %+v", i, got[i], wantAborted[i])
		}
	}
	// A read_committed consumer sees every committed record below the LSO
	// and no aborted one.
	values := consumeCommitted(t, l)
	counts := map[string]int{}
	for _, v := range values {
		counts[v[:strings.LastIndexByte(v, '-')]]++
	}
	if counts["a-aborted"] != 0 || counts["b-aborted"] != 0 || counts["b-open"] != 0 {
		t.Fatalf("read_committed consumer saw aborted or open records: %v", counts)
	}
	if counts["b-committed"] != 9 || counts["plain"] != 5 {
		t.Fatalf("read_committed consumer saw %v, want 9 b-committed and 5 plain", counts)
	}
}

// consumeCommitted reads the log as Kafka's read_committed consumer does
// (its Fetcher): fetch from the LSO-bounded log, drop the batches of each
// listed aborted transaction from its first offset up to its abort marker,
// drop control batches.
func consumeCommitted(t *testing.T, l *Log) []string {
	t.Helper()
	var values []string
	for offset := int64(0); offset < l.LastStableOffset(); {
		batches, res := readCommitted(t, l, offset)
		if len(batches) == 0 {
			t.Fatalf("no progress at %d", offset)
		}
		pending := append([]AbortedTxn(nil), res.AbortedTransactions...) // sorted by first offset per segment
		sort.Slice(pending, func(i, j int) bool { return pending[i].FirstOffset < pending[j].FirstOffset })
		aborted := map[int64]bool{}
		for _, b := range batches {
			offset = b.NextOffset()
			if b.IsTransactional() {
				for len(pending) > 0 && pending[0].FirstOffset <= b.LastOffset() {
					aborted[pending[0].ProducerID] = true
					pending = pending[1:]
				}
			}
			if b.IsControl() {
				if m, err := record.ParseMarker(b); err == nil && m.Type == record.ControlAbort {
					delete(aborted, b.ProducerID())
				}
				continue
			}
			if b.IsTransactional() && aborted[b.ProducerID()] {
				continue
			}
			err := b.ForEachRecord(1<<20, func(r *record.Record) error {
				values = append(values, string(r.Value))
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
		}
	}
	return values
}

// TestKafkaWrittenTransactionsAsIs opens Kafka's directory after its clean
// shutdown: the txnindexes below the recovery point are kept, the active
// segment's is rebuilt from the producer snapshot at its base, and the
// open transaction comes from Kafka's snapshot.
func TestKafkaWrittenTransactionsAsIs(t *testing.T) {
	dir := copyFixture(t, kafkaTxnFixture, func(string) bool { return false })
	cfg := testConfig()
	cfg.RecoveryPoint = kafkaTxnFixtureLEO
	checkKafkaTxnPartition(t, dir, cfg)
}

// TestKafkaWrittenTransactionsRebuilt drops every txnindex and snapshot:
// Karst's replay of the whole log must write Kafka's txnindex bytes.
func TestKafkaWrittenTransactionsRebuilt(t *testing.T) {
	dir := copyFixture(t, kafkaTxnFixture, func(name string) bool {
		return strings.HasSuffix(name, TxnIndexSuffix) || strings.HasSuffix(name, SnapshotSuffix)
	})
	checkKafkaTxnPartition(t, dir, testConfig())
}
