package bench

import (
	"bytes"
	"testing"
	"time"
)

func TestStampRoundTrip(t *testing.T) {
	v := make([]byte, 32)
	stamp(v, 42, 123456789)
	if at, ok := readStamp(v, 42); !ok || at != 123456789 {
		t.Fatalf("readStamp = %d %v", at, ok)
	}
	if _, ok := readStamp(v, 43); ok {
		t.Error("a record of another run was accepted")
	}
	if _, ok := readStamp(v[:15], 42); ok {
		t.Error("a short value was accepted")
	}
}

func TestPace(t *testing.T) {
	for _, c := range []struct {
		elapsed time.Duration
		rate    int
		want    int64
	}{
		{0, 10000, 0},
		{time.Millisecond, 10000, 10},
		{1500 * time.Millisecond, 10000, 15000},
		{999 * time.Microsecond, 1000, 0},
	} {
		if got := pace(c.elapsed, c.rate); got != c.want {
			t.Errorf("pace(%v, %d) = %d, want %d", c.elapsed, c.rate, got, c.want)
		}
	}
}

func TestRandomValue(t *testing.T) {
	for _, n := range []int{0, 1, 7, 8, 1023, 1024} {
		if got := len(randomValue(n, 1)); got != n {
			t.Errorf("len = %d, want %d", got, n)
		}
	}
	a, b := randomValue(1024, 1), randomValue(1024, 1)
	if !bytes.Equal(a, b) || bytes.Equal(a, randomValue(1024, 2)) {
		t.Error("randomValue is not a function of its seed")
	}
	if bytes.Count(a, []byte{0}) > 32 {
		t.Error("randomValue looks compressible")
	}
}

func TestProducerConfigOpts(t *testing.T) {
	for _, p := range []ProducerConfig{
		{Acks: -1}, {Acks: 0}, {Acks: 1}, {Acks: -1, NoIdempotence: true, Linger: 5 * time.Millisecond, BatchBytes: 1 << 20, MaxBuffered: 1000, Compression: "zstd"},
	} {
		if _, err := p.opts(); err != nil {
			t.Errorf("%+v: %v", p, err)
		}
	}
	for _, p := range []ProducerConfig{{Acks: 2}, {Acks: -1, Compression: "brotli"}} {
		if _, err := p.opts(); err == nil {
			t.Errorf("%+v accepted", p)
		}
	}
	for _, c := range []string{"", "none", "gzip", "snappy", "LZ4", "zstd"} {
		if _, err := CompressionCodec(c); err != nil {
			t.Errorf("%q: %v", c, err)
		}
	}
}

func TestParseVmRSS(t *testing.T) {
	status := []byte("Name:\tkarst\nVmPeak:\t  2000 kB\nVmRSS:\t    1234 kB\nThreads: 7\n")
	if v, err := parseVmRSS(status); err != nil || v != 1234 {
		t.Fatalf("parseVmRSS = %d %v", v, err)
	}
	for _, bad := range []string{"", "VmRSS:\n", "VmRSS: x kB\n", "VmRSS: 12 MB\n", "Name: x"} {
		if _, err := parseVmRSS([]byte(bad)); err == nil {
			t.Errorf("parseVmRSS(%q) accepted", bad)
		}
	}
}

func TestReadRSSOfSelf(t *testing.T) {
	s := startRSSSampler(1 << 30) // no such pid: the error is reported, not fatal
	r := NewResult("x")
	s.finish(r)
	if _, ok := r.String("rss_error"); !ok {
		t.Errorf("no rss_error for a missing pid: %s", r.Line())
	}
}

func FuzzParseVmRSS(f *testing.F) {
	f.Add([]byte("VmRSS:\t    1234 kB\n"))
	f.Add([]byte("VmRSS:"))
	f.Fuzz(func(t *testing.T, b []byte) { _, _ = parseVmRSS(b) })
}
