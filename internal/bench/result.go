package bench

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode"
)

// Result is what one run of a mode measured: an ordered list of named
// values. Order is kept so that a line reads the same every run and a
// script can rely on `mode=` coming first.
type Result struct {
	fields []field
}

type field struct {
	key   string
	value any // int64, float64 or string
}

// NewResult starts a result for mode.
func NewResult(mode string) *Result {
	r := &Result{}
	r.SetString("mode", mode)
	return r
}

// Mode is the mode that produced r.
func (r *Result) Mode() string { s, _ := r.String("mode"); return s }

func (r *Result) set(key string, v any) {
	for i := range r.fields {
		if r.fields[i].key == key {
			r.fields[i].value = v
			return
		}
	}
	r.fields = append(r.fields, field{key, v})
}

// SetInt sets an integer value.
func (r *Result) SetInt(key string, v int64) { r.set(key, v) }

// SetFloat sets a fractional value; it prints with at most 3 decimals.
func (r *Result) SetFloat(key string, v float64) { r.set(key, v) }

// SetString sets a text value (an error message, a broker name).
func (r *Result) SetString(key, v string) { r.set(key, v) }

// Keys lists the keys in the order they print.
func (r *Result) Keys() []string {
	ks := make([]string, len(r.fields))
	for i, f := range r.fields {
		ks[i] = f.key
	}
	return ks
}

// Int returns an integer value by key.
func (r *Result) Int(key string) (int64, bool) {
	for _, f := range r.fields {
		if f.key == key {
			v, ok := f.value.(int64)
			return v, ok
		}
	}
	return 0, false
}

// Float returns a numeric value by key (integers convert).
func (r *Result) Float(key string) (float64, bool) {
	for _, f := range r.fields {
		if f.key == key {
			switch v := f.value.(type) {
			case float64:
				return v, true
			case int64:
				return float64(v), true
			}
			return 0, false
		}
	}
	return 0, false
}

// String returns a text value by key.
func (r *Result) String(key string) (string, bool) {
	for _, f := range r.fields {
		if f.key == key {
			v, ok := f.value.(string)
			return v, ok
		}
	}
	return "", false
}

// Fail records why the run did not complete; scripts read `error=`.
func (r *Result) Fail(err error) {
	if err != nil {
		r.SetString("error", err.Error())
	}
}

// Err is the recorded failure, or nil.
func (r *Result) Err() error {
	if s, ok := r.String("error"); ok && s != "" {
		return fmt.Errorf("%s", s)
	}
	return nil
}

// SetThroughput sets secs, records and bytes, and both per second of elapsed.
func (r *Result) SetThroughput(elapsed time.Duration, records, byteCount int64) {
	secs := elapsed.Seconds()
	r.SetFloat("secs", secs)
	r.SetInt("records", records)
	r.SetInt("bytes", byteCount)
	if secs > 0 {
		r.SetFloat("records_per_s", float64(records)/secs)
		r.SetFloat("mb_per_s", float64(byteCount)/secs/(1<<20))
	} else {
		r.SetFloat("records_per_s", 0)
		r.SetFloat("mb_per_s", 0)
	}
}

// setLatency sets p50/p99/p999/max in milliseconds from h (nanoseconds).
func (r *Result) setLatency(h *Histogram) {
	r.SetFloat("p50_ms", nsToMs(h.Quantile(0.50)))
	r.SetFloat("p99_ms", nsToMs(h.Quantile(0.99)))
	r.SetFloat("p999_ms", nsToMs(h.Quantile(0.999)))
	r.SetFloat("max_ms", nsToMs(h.Max()))
}

func formatFloat(v float64) string {
	s := strconv.FormatFloat(v, 'f', 3, 64)
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	if s == "-0" {
		s = "0"
	}
	return s
}

// needsQuote is true for text that would not survive a split on spaces
// and on the first '='.
func needsQuote(s string) bool {
	return s == "" || strings.ContainsFunc(s, func(r rune) bool {
		return unicode.IsSpace(r) || !unicode.IsPrint(r) || r == '"' || r == '=' || r == '\\'
	})
}

// Line renders r as `key=value key=value ...`; text with spaces, quotes or
// '=' is Go-quoted.
func (r *Result) Line() string {
	var b strings.Builder
	for i, f := range r.fields {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(f.key)
		b.WriteByte('=')
		switch v := f.value.(type) {
		case int64:
			b.WriteString(strconv.FormatInt(v, 10))
		case float64:
			b.WriteString(formatFloat(v))
		case string:
			if needsQuote(v) {
				b.WriteString(strconv.Quote(v))
			} else {
				b.WriteString(v)
			}
		}
	}
	return b.String()
}

// MarshalJSON renders r as one JSON object with its keys in order.
func (r *Result) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, f := range r.fields {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(f.key)
		b.Write(k)
		b.WriteByte(':')
		switch v := f.value.(type) {
		case int64:
			b.WriteString(strconv.FormatInt(v, 10))
		case float64:
			b.WriteString(formatFloat(v))
		case string:
			s, _ := json.Marshal(v)
			b.Write(s)
		}
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// ParseLine reads back a line written by Line. It is what tests and tools
// use to check a line; it accepts any key=value text and never panics.
func ParseLine(line string) (map[string]string, error) {
	out := map[string]string{}
	s := strings.TrimSpace(line)
	for len(s) > 0 {
		eq := strings.IndexByte(s, '=')
		if eq <= 0 {
			return nil, fmt.Errorf("bench: no key=value at %q", s)
		}
		key := s[:eq]
		if strings.ContainsFunc(key, unicode.IsSpace) {
			return nil, fmt.Errorf("bench: bad key %q", key)
		}
		s = s[eq+1:]
		var val string
		if strings.HasPrefix(s, `"`) {
			q, err := strconv.QuotedPrefix(s)
			if err != nil {
				return nil, fmt.Errorf("bench: bad quoted value for %s: %w", key, err)
			}
			val, _ = strconv.Unquote(q)
			s = s[len(q):]
		} else {
			end := strings.IndexFunc(s, unicode.IsSpace)
			if end < 0 {
				end = len(s)
			}
			val, s = s[:end], s[end:]
		}
		out[key] = val
		s = strings.TrimLeftFunc(s, unicode.IsSpace)
	}
	return out, nil
}
