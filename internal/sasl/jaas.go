package sasl

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// LoginModule is one entry of a JAAS configuration:
// <loginModuleClass> <controlFlag> (<optionName>=<optionValue>)*;
type LoginModule struct {
	Class   string
	Flag    string // REQUIRED, REQUISITE, SUFFICIENT or OPTIONAL
	Options map[string]string
}

// ParseJAAS parses the value of a sasl.jaas.config property into its login
// modules, with the tokenizing rules of Kafka's JaasConfig (Java's
// StreamTokenizer with // and /* */ comments and '-', '_', '$' as word
// characters): bare words or quoted strings, a value that is a bare
// number is refused as Kafka refuses it.
func ParseJAAS(config string) ([]LoginModule, error) {
	t := &jaasTokenizer{src: config}
	var modules []LoginModule
	for t.next() != tokenEOF {
		m, err := parseLoginModule(t)
		if err != nil {
			return nil, err
		}
		modules = append(modules, m)
	}
	if len(modules) == 0 {
		return nil, fmt.Errorf("login module not specified in JAAS config")
	}
	return modules, nil
}

// ParseServerJAAS parses a listener's <mechanism>.sasl.jaas.config, which
// Kafka requires to hold exactly one login module.
func ParseServerJAAS(config string) (LoginModule, error) {
	modules, err := ParseJAAS(config)
	if err != nil {
		return LoginModule{}, err
	}
	if len(modules) != 1 {
		return LoginModule{}, fmt.Errorf("JAAS config property contains %d login modules, should be 1 module", len(modules))
	}
	return modules[0], nil
}

func parseLoginModule(t *jaasTokenizer) (LoginModule, error) {
	m := LoginModule{Class: t.sval, Options: map[string]string{}}
	if t.next() == tokenEOF {
		return m, fmt.Errorf("login module control flag not specified in JAAS config")
	}
	if !t.hasSval {
		return m, fmt.Errorf("login module control flag is not available in the JAAS config")
	}
	switch flag := strings.ToUpper(t.sval); flag {
	case "REQUIRED", "REQUISITE", "SUFFICIENT", "OPTIONAL":
		m.Flag = flag
	default:
		return m, fmt.Errorf("invalid login module control flag '%s' in JAAS config", t.sval)
	}
	for t.next() != tokenEOF && t.ttype != ';' {
		key := t.sval
		if t.next() != '=' || t.next() == tokenEOF || !t.hasSval {
			return m, fmt.Errorf("value not specified for key '%s' in JAAS config", key)
		}
		m.Options[key] = t.sval
	}
	if t.ttype != ';' {
		return m, fmt.Errorf("JAAS config entry not terminated by semi-colon")
	}
	return m, nil
}

// Token types of jaasTokenizer beyond single ordinary characters, which
// are their own rune value.
const (
	tokenEOF    = -1
	tokenWord   = -3
	tokenNumber = -2
)

// jaasTokenizer is the subset of java.io.StreamTokenizer that JaasConfig
// configures: whitespace up to ' ', words of letters, digits, '.', '-', '_',
// '$' and characters from U+00A0 up, numbers, quoted strings with Java's
// escapes, and comments.
type jaasTokenizer struct {
	src     string
	pos     int
	ttype   int
	sval    string
	hasSval bool
}

func (t *jaasTokenizer) peek() (rune, int) {
	if t.pos >= len(t.src) {
		return -1, 0
	}
	return utf8.DecodeRuneInString(t.src[t.pos:])
}

func isJAASWhitespace(r rune) bool { return r >= 0 && r <= ' ' }
func isJAASDigit(r rune) bool      { return r >= '0' && r <= '9' || r == '.' || r == '-' }
func isJAASAlpha(r rune) bool {
	return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= 0xA0 || r == '-' || r == '_' || r == '$'
}

func (t *jaasTokenizer) next() int {
	t.sval, t.hasSval = "", false
	for {
		r, n := t.peek()
		switch {
		case r < 0:
			t.ttype = tokenEOF
			return t.ttype
		case isJAASWhitespace(r):
			t.pos += n
		case isJAASDigit(r):
			// '-' is also a word character in JaasConfig, but
			// StreamTokenizer tries a number first, so no word starts
			// with it.
			return t.number()
		case isJAASAlpha(r):
			return t.word()
		case r == '"' || r == '\'':
			t.pos += n
			return t.quoted(r)
		case r == '/':
			t.pos += n
			t.comment()
		default:
			t.pos += n
			t.ttype = int(r)
			return t.ttype
		}
	}
}

// number skips a numeric token, which has no sval; a '-' that starts no
// number is returned alone.
func (t *jaasTokenizer) number() int {
	r, n := t.peek()
	if r == '-' {
		t.pos += n
		next, _ := t.peek()
		if next != '.' && (next < '0' || next > '9') {
			t.ttype = '-'
			return t.ttype
		}
	}
	seenDot := false
	for {
		r, n := t.peek()
		if r == '.' && !seenDot {
			seenDot = true
		} else if r < '0' || r > '9' {
			break
		}
		t.pos += n
	}
	t.ttype = tokenNumber
	return t.ttype
}

func (t *jaasTokenizer) word() int {
	start := t.pos
	for {
		r, n := t.peek()
		if r < 0 || !(isJAASAlpha(r) || r >= '0' && r <= '9' || r == '.') {
			break
		}
		t.pos += n
	}
	t.sval, t.hasSval, t.ttype = t.src[start:t.pos], true, tokenWord
	return t.ttype
}

// quoted reads a string up to the closing quote, a line end or the end of
// input, with StreamTokenizer's escapes.
func (t *jaasTokenizer) quoted(quote rune) int {
	var b strings.Builder
	for {
		r, n := t.peek()
		if r < 0 || r == '\n' || r == '\r' {
			break
		}
		t.pos += n
		if r == quote {
			break
		}
		if r == '\\' {
			b.WriteRune(t.escape())
			continue
		}
		b.WriteRune(r)
	}
	t.sval, t.hasSval, t.ttype = b.String(), true, int(quote)
	return t.ttype
}

func (t *jaasTokenizer) escape() rune {
	r, n := t.peek()
	if r < 0 {
		return '\\'
	}
	t.pos += n
	switch r {
	case 'a':
		return 0x7
	case 'b':
		return '\b'
	case 'f':
		return 0xC
	case 'n':
		return '\n'
	case 'r':
		return '\r'
	case 't':
		return '\t'
	case 'v':
		return 0xB
	}
	if r >= '0' && r <= '7' {
		// Up to three octal digits, the third only when the first is 0-3.
		v := r - '0'
		maxDigits := 2
		if r <= '3' {
			maxDigits = 3
		}
		for i := 1; i < maxDigits; i++ {
			d, n := t.peek()
			if d < '0' || d > '7' {
				break
			}
			t.pos += n
			v = v*8 + d - '0'
		}
		return v
	}
	return r
}

// comment skips a comment that starts at a '/' already read: "/*" to
// "*/", and "//" or a lone '/' (the default comment character) to the end
// of the line.
func (t *jaasTokenizer) comment() {
	r, n := t.peek()
	if r == '*' {
		t.pos += n
		if end := strings.Index(t.src[t.pos:], "*/"); end >= 0 {
			t.pos += end + 2
		} else {
			t.pos = len(t.src)
		}
		return
	}
	for {
		r, n := t.peek()
		if r < 0 || r == '\n' || r == '\r' {
			return
		}
		t.pos += n
	}
}
