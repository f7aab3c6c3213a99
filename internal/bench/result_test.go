package bench

import (
	"encoding/json"
	"errors"
	"testing"
	"time"
)

func TestResultLine(t *testing.T) {
	r := NewResult("produce")
	r.SetThroughput(2*time.Second, 2000, 2*1<<20)
	var h Histogram
	h.RecordDuration(1500 * time.Microsecond)
	r.setLatency(&h)
	r.SetString("broker", "karst")
	r.SetInt("records", 2000) // overwrite keeps the position
	want := "mode=produce secs=2 records=2000 bytes=2097152 records_per_s=1000 mb_per_s=1 " +
		"p50_ms=1.5 p99_ms=1.5 p999_ms=1.5 max_ms=1.5 broker=karst"
	if got := r.Line(); got != want {
		t.Fatalf("line:\n got %s\nwant %s", got, want)
	}
	if v, ok := r.Float("records"); !ok || v != 2000 {
		t.Errorf("Float(records) = %v %v", v, ok)
	}
	if r.Mode() != "produce" || r.Err() != nil {
		t.Errorf("mode %q err %v", r.Mode(), r.Err())
	}
}

func TestResultQuotingRoundTrips(t *testing.T) {
	r := NewResult("e2e")
	r.SetFloat("x", 1.23456)
	r.SetFloat("neg", -0.0001)
	r.Fail(errors.New(`dial tcp 127.0.0.1:1: connect: "refused" a=b`))
	line := r.Line()
	m, err := ParseLine(line)
	if err != nil {
		t.Fatalf("ParseLine(%s): %v", line, err)
	}
	if m["error"] != `dial tcp 127.0.0.1:1: connect: "refused" a=b` || m["x"] != "1.235" || m["neg"] != "0" || m["mode"] != "e2e" {
		t.Fatalf("round trip: %q from %s", m, line)
	}
	if r.Err() == nil {
		t.Error("Err() nil after Fail")
	}
}

func TestResultJSON(t *testing.T) {
	r := NewResult("apiversions")
	r.SetInt("conns", 64)
	r.SetFloat("req_per_s", 12345.6789)
	r.SetString("error", "")
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"mode":"apiversions","conns":64,"req_per_s":12345.679,"error":""}`
	if string(b) != want {
		t.Fatalf("json:\n got %s\nwant %s", b, want)
	}
	var back map[string]any
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
}

func TestParseLineRejectsGarbage(t *testing.T) {
	for _, s := range []string{"novalue", "=x", `a="unterminated`, "a b=c"} {
		if _, err := ParseLine(s); err == nil {
			t.Errorf("ParseLine(%q) accepted", s)
		}
	}
}

func FuzzParseLine(f *testing.F) {
	f.Add(`mode=produce records=10 error="x y"`)
	f.Add(`a=`)
	f.Add(`a="\x00" b=1`)
	f.Fuzz(func(t *testing.T, s string) {
		m, err := ParseLine(s)
		if err != nil {
			return
		}
		// Whatever parsed must print and parse back to the same values.
		r := &Result{}
		for k, v := range m {
			r.SetString(k, v)
		}
		m2, err := ParseLine(r.Line())
		if err != nil {
			t.Fatalf("reparse of %q: %v", r.Line(), err)
		}
		for k, v := range m {
			if m2[k] != v {
				t.Fatalf("key %q: %q became %q", k, v, m2[k])
			}
		}
	})
}
