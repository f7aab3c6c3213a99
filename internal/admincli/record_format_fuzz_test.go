package admincli

import (
	"bytes"
	"testing"
)

// FuzzRecordReaderParse feeds produce's line parser arbitrary input lines:
// it may refuse a line but must not panic, and a record it accepts in json
// format must print and parse back to the same key, value and headers.
func FuzzRecordReaderParse(f *testing.F) {
	f.Add(`{"key":"k","value":"v","headers":[{"key":"h","value":null}],"timestamp":1}`, ":")
	f.Add(`{"key":null,"value":null,"headers":[]}`, "")
	f.Add("k:v", ":")
	f.Add(`{"partition":"x"}`, "")
	f.Fuzz(func(t *testing.T, line, sep string) {
		for _, format := range []string{formatText, formatJSON} {
			r, err := (&recordReader{format: format, keySeparator: sep}).parse(line)
			if err != nil || format != formatJSON {
				continue
			}
			var out bytes.Buffer
			if err := (&recordWriter{out: &out, format: formatJSON}).write(r); err != nil {
				t.Fatal(err)
			}
			back, err := (&recordReader{format: formatJSON}).parse(out.String())
			if err != nil {
				t.Fatalf("own output %q: %v", out.String(), err)
			}
			if !bytes.Equal(back.Key, r.Key) || !bytes.Equal(back.Value, r.Value) || len(back.Headers) != len(r.Headers) ||
				(back.Key == nil) != (r.Key == nil) || (back.Value == nil) != (r.Value == nil) {
				t.Fatalf("round trip of %q: %+v, then %+v", line, r, back)
			}
		}
	})
}
