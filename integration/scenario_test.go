package integration

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"
)

// testRecord is one record of the shared produce/consume scenario.
type testRecord struct {
	key, value []byte
	headers    [][2][]byte
	timestamp  time.Time
}

// oneMiB is the size of the large record every client must round-trip.
const oneMiB = 1 << 20

// scenarioRecords returns n records for a codec: distinct keys and values,
// repeated header keys, and timestamps out of order; uncompressed runs end
// with a 1 MiB incompressible value.
func scenarioRecords(codec string, n int) []testRecord {
	out := make([]testRecord, n)
	for i := range out {
		value := bytes.Repeat([]byte(codec+"|"), i%9)
		out[i] = testRecord{
			key:       []byte(fmt.Sprintf("%s-key-%d", codec, i)),
			value:     append(value, byte(i)),
			headers:   [][2][]byte{{[]byte("codec"), []byte(codec)}, {[]byte("n"), []byte(fmt.Sprint(i))}, {[]byte("n"), []byte("again")}},
			timestamp: time.UnixMilli(1_700_000_000_000 + int64((i*7919)%1000)),
		}
	}
	if codec == "none" {
		big := make([]byte, oneMiB)
		rng := rand.New(rand.NewPCG(1, 2))
		for i := range big {
			big[i] = byte(rng.Uint32())
		}
		out = append(out, testRecord{key: []byte("one-mib"), value: big, timestamp: time.UnixMilli(1_700_000_001_000)})
	}
	return out
}

// checkReceived compares received records with those sent to a single
// partition, in order.
func checkReceived(t *testing.T, client string, sent, got []testRecord) {
	t.Helper()
	if len(got) != len(sent) {
		t.Fatalf("%s: received %d records, sent %d", client, len(got), len(sent))
	}
	for i := range sent {
		s, g := sent[i], got[i]
		if !bytes.Equal(s.key, g.key) || !bytes.Equal(s.value, g.value) || !s.timestamp.Equal(g.timestamp) {
			t.Fatalf("%s: record %d differs: sent %q=%q@%v got %q=%q@%v", client, i, s.key, s.value, s.timestamp, g.key, g.value, g.timestamp)
		}
		if len(s.headers) != len(g.headers) {
			t.Fatalf("%s: record %d has %d headers, sent %d", client, i, len(g.headers), len(s.headers))
		}
		for j := range s.headers {
			if !bytes.Equal(s.headers[j][0], g.headers[j][0]) || !bytes.Equal(s.headers[j][1], g.headers[j][1]) {
				t.Fatalf("%s: record %d header %d differs", client, i, j)
			}
		}
	}
}

var codecNames = []string{"none", "gzip", "snappy", "lz4", "zstd"}
