package config

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// escapeForProperties writes s so that ParseProperties reads it back
// unchanged, the way Properties.store escapes (every character that could
// be taken as syntax is escaped).
func escapeForProperties(s string, isKey bool) string {
	var b strings.Builder
	for i, c := range s {
		switch c {
		case '\\', '=', ':', '#', '!':
			b.WriteByte('\\')
			b.WriteRune(c)
		case ' ':
			if isKey || i == 0 {
				b.WriteString(`\ `)
			} else {
				b.WriteByte(' ')
			}
		case '\t':
			b.WriteString(`\t`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\f':
			b.WriteString(`\f`)
		default:
			b.WriteRune(c)
		}
	}
	return b.String()
}

func FuzzParseProperties(f *testing.F) {
	for _, seed := range []string{
		"a=b", "a:b\nc d", "# c\n! d\n", "a=b\\\n  c", "a=\\u0041", "\\", "a=\\u12",
		"k\\=x=y\r\nz", "\xff\xfe=1", "listeners=PLAINTEXT://:9092,\\\r\n\tCONTROLLER://:9093",
		"a=\\ud83d\\ude00", "\\\n\n=", "   \f\t",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		props, err := ParseProperties(data)
		if err != nil {
			if !strings.Contains(err.Error(), "malformed") {
				t.Fatalf("unexpected error kind: %v", err)
			}
			return
		}
		// Whatever was read can be written back and read again unchanged.
		var b strings.Builder
		for _, p := range props {
			if !utf8.ValidString(p.Key) || !utf8.ValidString(p.Value) {
				t.Fatalf("invalid UTF-8 out of parser: %q=%q", p.Key, p.Value)
			}
			b.WriteString(escapeForProperties(p.Key, true))
			b.WriteByte('=')
			b.WriteString(escapeForProperties(p.Value, false))
			b.WriteByte('\n')
		}
		again, err := ParseProperties([]byte(b.String()))
		if err != nil {
			t.Fatalf("re-parse: %v", err)
		}
		if len(again) != len(props) {
			t.Fatalf("re-parse gave %d properties, want %d\n%q", len(again), len(props), b.String())
		}
		for i := range props {
			if again[i].Key != props[i].Key || again[i].Value != props[i].Value {
				t.Fatalf("round trip %d: got %q=%q, want %q=%q", i, again[i].Key, again[i].Value, props[i].Key, props[i].Value)
			}
		}
	})
}

// FuzzLoad feeds arbitrary files through the whole load path: properties,
// every value parser and validator, listeners and cross-key rules. It must
// return a Broker or an error, never panic, and a Broker must describe.
func FuzzLoad(f *testing.F) {
	f.Add([]byte(kafkaSample))
	for _, seed := range []string{
		"listeners=PLAINTEXT://[::1]:0,SSL://h:1\nlistener.security.protocol.map=PLAINTEXT:PLAINTEXT,SSL:SSL",
		"log.retention.minutes=-3\nlog.cleanup.policy=,compact,",
		"node.id=2\nbroker.id=2\nadvertised.listeners=PLAINTEXT://x:0",
		"log.cleaner.min.cleanable.ratio=1e-400\ncompression.zstd.level=-131072",
		"controller.listener.names=,\ninter.broker.listener.name=plaintext",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		props, err := ParseProperties(data)
		if err != nil {
			return
		}
		m := map[string]string{}
		for _, p := range props {
			m[p.Key] = p.Value
		}
		b, _, err := FromProperties(m)
		if err != nil {
			return
		}
		b.DescribeBroker(nil)
		if _, err := b.DescribeTopic(m, nil); err != nil {
			return
		}
		_ = b.Advertise("127.0.0.1", nil)
	})
}
