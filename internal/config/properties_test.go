package config

import (
	"reflect"
	"strings"
	"testing"
)

type kv struct{ k, v string }

func pairs(ps []Property) []kv {
	out := []kv{}
	for _, p := range ps {
		out = append(out, kv{p.Key, p.Value})
	}
	return out
}

// The expectations follow java.util.Properties.load (checked against the
// JDK's LineReader/loadConvert rules).
func TestParseProperties(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []kv
	}{
		{"equals", "a=b", []kv{{"a", "b"}}},
		{"colon", "a:b", []kv{{"a", "b"}}},
		{"space separator", "a b", []kv{{"a", "b"}}},
		{"tab and formfeed separators", "a\t\fb", []kv{{"a", "b"}}},
		{"blanks around separator", "a  =  b  ", []kv{{"a", "b  "}}},
		{"only first separator counts", "a = = b", []kv{{"a", "= b"}}},
		{"blank then colon", "a : b:c", []kv{{"a", "b:c"}}},
		{"value keeps equals", "url=http://x:1/?a=b", []kv{{"url", "http://x:1/?a=b"}}},
		{"leading whitespace", "   \t a=b", []kv{{"a", "b"}}},
		{"key only", "lonely", []kv{{"lonely", ""}}},
		{"key and separator only", "k=", []kv{{"k", ""}}},
		{"empty key", "=v", []kv{{"", "v"}}},
		{"hash comment", "# c\na=b", []kv{{"a", "b"}}},
		{"bang comment", "! c\na=b", []kv{{"a", "b"}}},
		{"indented comment", "   # c\na=b", []kv{{"a", "b"}}},
		{"comment does not continue", "# c \\\na=b", []kv{{"a", "b"}}},
		{"hash inside value", "a=b#c", []kv{{"a", "b#c"}}},
		{"blank lines", "\n\n  \n\ta=b\n\n", []kv{{"a", "b"}}},
		{"CRLF", "a=b\r\nc=d\r\n", []kv{{"a", "b"}, {"c", "d"}}},
		{"CR only", "a=b\rc=d", []kv{{"a", "b"}, {"c", "d"}}},
		{"continuation", "a=b\\\n   c", []kv{{"a", "bc"}}},
		{"continuation CRLF", "a=b\\\r\n  c\r\nd=e", []kv{{"a", "bc"}, {"d", "e"}}},
		{"continued line starting with hash is not a comment", "a=b\\\n#c", []kv{{"a", "b#c"}}},
		{"continuation into empty line ends it", "a=b\\\n\nc=d", []kv{{"a", "b"}, {"c", "d"}}},
		{"even backslashes do not continue", "a=b\\\\\nc=d", []kv{{"a", "b\\"}, {"c", "d"}}},
		{"continuation in key", "ke\\\n  y=v", []kv{{"key", "v"}}},
		{"continued empty first line", "\\\n\nc=d", []kv{{"c", "d"}}},
		{"backslash at EOF dropped", "a=b\\", []kv{{"a", "b"}}},
		{"lone backslash at EOF", "\\", []kv{{"", ""}}},
		{"escaped separator in key", "a\\=b=c", []kv{{"a=b", "c"}}},
		{"escaped colon and space in key", "a\\:b\\ c d", []kv{{"a:b c", "d"}}},
		{"escapes", `a=\t\n\r\f\\\q\"`, []kv{{"a", "\t\n\r\f\\q\""}}},
		{"unicode escape", `a=\u0041\u00e9`, []kv{{"a", "Aé"}}},
		{"surrogate pair", `a=\ud83d\ude00`, []kv{{"a", "😀"}}},
		{"lone surrogate", `a=\ud83d!`, []kv{{"a", "\ufffd!"}}},
		{"utf8 value", "dir=/données", []kv{{"dir", "/données"}}},
		{"utf8 BOM skipped", "\xef\xbb\xbfa=b", []kv{{"a", "b"}}},
		{"latin1 fallback", "dir=/\xe9", []kv{{"dir", "/é"}}},
		{"repeated key kept in order", "a=1\na=2", []kv{{"a", "1"}, {"a", "2"}}},
		{"comment at EOF without newline", "a=b\n#x", []kv{{"a", "b"}}},
		{"separator escaped value", `a=b\=c`, []kv{{"a", "b=c"}}},
		{"kafka listeners", "listeners=PLAINTEXT://:9092,\\\n  CONTROLLER://:9093", []kv{{"listeners", "PLAINTEXT://:9092,CONTROLLER://:9093"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseProperties([]byte(tt.in))
			if err != nil {
				t.Fatalf("error: %v", err)
			}
			if !reflect.DeepEqual(pairs(got), tt.want) {
				t.Fatalf("got %q, want %q", pairs(got), tt.want)
			}
		})
	}
}

func TestParsePropertiesMalformedUnicode(t *testing.T) {
	for _, in := range []string{`a=\u12`, `a=\u12g4`, `\uZZZZ=b`} {
		if _, err := ParseProperties([]byte(in)); err == nil || !strings.Contains(err.Error(), "malformed \\uxxxx encoding") {
			t.Errorf("%q: err = %v, want malformed \\uxxxx", in, err)
		}
	}
}

func TestParsePropertiesLineNumbers(t *testing.T) {
	got, err := ParseProperties([]byte("# c\n\na=1\nb=2\\\n 3\nc=4\r\n"))
	if err != nil {
		t.Fatal(err)
	}
	lines := []int{}
	for _, p := range got {
		lines = append(lines, p.Line)
	}
	if !reflect.DeepEqual(lines, []int{3, 4, 6}) {
		t.Fatalf("lines = %v", lines)
	}
}
