package admincli

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// Record formats, for consume's output and produce's input.
const (
	formatText = "text" // raw bytes; the key before --key-separator
	formatJSON = "json" // one recordJSON object per line
	formatHex  = "hex"  // as text, with key, value and header values in hex
)

// recordJSON is the JSON form of a record: keys, values and header values
// as strings (null when absent), one object per line.
type recordJSON struct {
	Topic     string       `json:"topic,omitempty"`
	Partition *int32       `json:"partition,omitempty"`
	Offset    *int64       `json:"offset,omitempty"`
	Timestamp *int64       `json:"timestamp,omitempty"`
	Key       *string      `json:"key"`
	Value     *string      `json:"value"`
	Headers   []headerJSON `json:"headers"`
}

type headerJSON struct {
	Key   string  `json:"key"`
	Value *string `json:"value"`
}

func optionalString(b []byte) *string {
	if b == nil {
		return nil
	}
	s := string(b)
	return &s
}

func optionalBytes(s *string) []byte {
	if s == nil {
		return nil
	}
	return []byte(*s)
}

// recordWriter prints consumed records in one format.
type recordWriter struct {
	out          io.Writer
	format       string
	keySeparator string // print the key and this before the value ("" = no key)
	printHeaders bool   // text and hex: headers as k:v,k:v and a tab first
}

func (w *recordWriter) write(r *kgo.Record) error {
	if w.format == formatJSON {
		ts := r.Timestamp.UnixMilli()
		j := recordJSON{Topic: r.Topic, Partition: &r.Partition, Offset: &r.Offset, Timestamp: &ts,
			Key: optionalString(r.Key), Value: optionalString(r.Value), Headers: []headerJSON{}}
		for _, h := range r.Headers {
			j.Headers = append(j.Headers, headerJSON{Key: h.Key, Value: optionalString(h.Value)})
		}
		line, err := json.Marshal(j)
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(w.out, "%s\n", line)
		return err
	}
	var b strings.Builder
	if w.printHeaders {
		if len(r.Headers) == 0 {
			b.WriteString("NO_HEADERS")
		}
		for i, h := range r.Headers {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(h.Key + ":" + w.bytes(h.Value))
		}
		b.WriteByte('\t')
	}
	if w.keySeparator != "" {
		b.WriteString(w.bytes(r.Key) + w.keySeparator)
	}
	b.WriteString(w.bytes(r.Value))
	b.WriteByte('\n')
	_, err := io.WriteString(w.out, b.String())
	return err
}

// bytes is a key, value or header value as printed; null as Kafka's
// console consumer prints it.
func (w *recordWriter) bytes(b []byte) string {
	switch {
	case b == nil:
		return "null"
	case w.format == formatHex:
		return hex.EncodeToString(b)
	}
	return string(b)
}

// recordReader turns produce's input lines into records.
type recordReader struct {
	format       string
	keySeparator string // text: split the line at its first separator
	headers      []kgo.RecordHeader
}

func (rr *recordReader) parse(line string) (*kgo.Record, error) {
	r := &kgo.Record{Headers: rr.headers, Partition: -1}
	switch rr.format {
	case formatJSON:
		var j recordJSON
		dec := json.NewDecoder(strings.NewReader(line))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&j); err != nil {
			return nil, fmt.Errorf("not a record object: %w", err)
		}
		// topic, partition and offset are consume's output: a record goes
		// to the topic and partition produce was told.
		r.Key, r.Value = optionalBytes(j.Key), optionalBytes(j.Value)
		if j.Timestamp != nil {
			r.Timestamp = time.UnixMilli(*j.Timestamp)
		}
		for _, h := range j.Headers {
			r.Headers = append(r.Headers, kgo.RecordHeader{Key: h.Key, Value: optionalBytes(h.Value)})
		}
		return r, nil
	case formatText:
		r.Value = []byte(line)
		if rr.keySeparator != "" {
			key, value, ok := strings.Cut(line, rr.keySeparator)
			if !ok {
				return nil, fmt.Errorf("no key separator %q in the line", rr.keySeparator)
			}
			r.Key, r.Value = []byte(key), []byte(value)
		}
		return r, nil
	}
	return nil, fmt.Errorf("unknown input format %q", rr.format)
}
