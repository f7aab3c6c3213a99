package console

import (
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

func TestFormatsShowWhatTheyCanAndSayWhatTheyCannot(t *testing.T) {
	for _, c := range []struct {
		format, in, want, note string
	}{
		{"text", "hello", "hello", ""},
		{"text", "\xff\xfe", "ff fe", "not UTF-8; shown as hex"},
		{"json", `{"a":[1,2]}`, "{\n  \"a\": [\n    1,\n    2\n  ]\n}", ""},
		{"json", "plain", "plain", "not JSON; shown as text"},
		{"json", "\xff", "ff", "not UTF-8; shown as hex"},
		{"hex", "AB", "00000000  41 42", ""},
	} {
		got := formatters[c.format]([]byte(c.in))
		if !strings.Contains(got.Text, c.want) || got.Note != c.note || got.Len != len(c.in) {
			t.Errorf("%s of %q = %+v, want text with %q, note %q", c.format, c.in, got, c.want, c.note)
		}
	}
	r := showRecord(&kgo.Record{Value: []byte("v"), Headers: []kgo.RecordHeader{{Key: "h", Value: nil}}}, asText)
	if !r.Key.Null || r.Value.Text != "v" || !r.Headers[0].Value.Null {
		t.Errorf("record shown as %+v, want a null key and header value", r)
	}
}

func TestParseTimestampTakesMillisecondsAndRFC3339(t *testing.T) {
	want := time.Date(2026, 12, 2, 9, 0, 0, 0, time.UTC).UnixMilli()
	for _, in := range []string{"1796202000000", "2026-12-02T09:00:00Z", "2026-12-02T09:00:00", "2026-12-02T09:00"} {
		if got, err := parseTimestamp(in); err != nil || got != want {
			t.Errorf("parseTimestamp(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	if _, err := parseTimestamp("yesterday"); err == nil {
		t.Error("yesterday parsed")
	}
}
