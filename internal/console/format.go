package console

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"time"
	"unicode/utf8"

	"github.com/twmb/franz-go/pkg/kgo"
)

// shownRecord is a record as the browser prints it.
type shownRecord struct {
	Offset    int64
	Timestamp time.Time
	Key       shownBytes
	Value     shownBytes
	Headers   []shownHeader
}

type shownHeader struct {
	Key   string
	Value shownBytes
}

// shownBytes is a key, value or header value in the chosen format, with a
// note when it could not be shown so (not UTF-8, not JSON).
type shownBytes struct {
	Null bool
	Text string
	Note string
	Len  int
}

var formatters = map[string]func([]byte) shownBytes{
	"text": asText,
	"json": asJSON,
	"hex":  asHex,
}

func asText(b []byte) shownBytes {
	if !utf8.Valid(b) {
		s := asHex(b)
		s.Note = "not UTF-8; shown as hex"
		return s
	}
	return shownBytes{Text: string(b), Len: len(b)}
}

func asJSON(b []byte) shownBytes {
	var out bytes.Buffer
	if err := json.Indent(&out, b, "", "  "); err != nil {
		s := asText(b)
		if s.Note == "" {
			s.Note = "not JSON; shown as text"
		}
		return s
	}
	return shownBytes{Text: out.String(), Len: len(b)}
}

func asHex(b []byte) shownBytes { return shownBytes{Text: hex.Dump(b), Len: len(b)} }

func showRecord(r *kgo.Record, format func([]byte) shownBytes) shownRecord {
	show := func(b []byte) shownBytes {
		if b == nil {
			return shownBytes{Null: true}
		}
		return format(b)
	}
	out := shownRecord{Offset: r.Offset, Timestamp: r.Timestamp, Key: show(r.Key), Value: show(r.Value)}
	for _, h := range r.Headers {
		out.Headers = append(out.Headers, shownHeader{Key: h.Key, Value: show(h.Value)})
	}
	return out
}
