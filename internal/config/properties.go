package config

import (
	"bytes"
	"fmt"
	"unicode/utf16"
	"unicode/utf8"
)

// Property is one key/value pair read from a .properties file, with the
// 1-based line on which its logical line starts.
type Property struct {
	Key   string
	Value string
	Line  int
}

// ParseProperties reads data the way java.util.Properties.load does:
//
//   - lines end at \n, \r or \r\n; leading blanks (space, \t, \f) are skipped;
//   - a line whose first non-blank character is # or ! is a comment, and a
//     comment never continues onto the next line;
//   - a line ending in an odd number of backslashes continues on the next
//     line, whose leading blanks are dropped;
//   - the key ends at the first unescaped '=', ':' or blank; blanks around
//     the separator, and one '=' or ':' after blanks, are skipped;
//   - escapes \t \n \r \f and \uXXXX are decoded (\u pairs forming a UTF-16
//     surrogate pair become one character), any other escaped character
//     stands for itself, and a lone backslash at the end of input is dropped.
//
// One difference: Java decodes the bytes of a stream as ISO-8859-1. Karst
// decodes valid UTF-8 as UTF-8 (identical for ASCII files, and what people
// who put non-ASCII paths in a file mean) and falls back to ISO-8859-1 only
// when the data is not valid UTF-8; a leading UTF-8 byte order mark is
// skipped.
//
// Properties are returned in file order; a key may repeat, and as in Java the
// last one wins when they are put in a map. The only error is a malformed
// \uXXXX escape (Java throws IllegalArgumentException there too).
func ParseProperties(data []byte) ([]Property, error) {
	r := newLineReader(decodeText(data))
	var out []Property
	for {
		line, lineNo, ok := r.next()
		if !ok {
			return out, nil
		}
		key, value, err := splitLogicalLine(line)
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", lineNo, err)
		}
		out = append(out, Property{Key: key, Value: value, Line: lineNo})
	}
}

// decodeText turns file bytes into characters (see ParseProperties).
func decodeText(data []byte) []rune {
	if utf8.Valid(data) {
		// A UTF-8 byte order mark is not part of the first key.
		data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
		return []rune(string(data))
	}
	out := make([]rune, len(data))
	for i, b := range data {
		out[i] = rune(b)
	}
	return out
}

func isBlank(c rune) bool { return c == ' ' || c == '\t' || c == '\f' }

// lineReader yields logical lines: comments and blank lines removed,
// continuations joined, escapes still in place.
type lineReader struct {
	in   []rune
	pos  int
	line int // 1-based number of the natural line at pos
}

func newLineReader(in []rune) *lineReader { return &lineReader{in: in, line: 1} }

// next returns the next logical line and the line number it starts on.
func (r *lineReader) next() (logical []rune, startLine int, ok bool) {
	var buf []rune
	skipBlanks := true // at the start of a natural line
	newLine := true    // no non-blank seen yet on this logical line
	comment := false   // this natural line is a comment
	continued := false // the current natural line continues a previous one
	oddBackslash := false
	startLine = r.line
	for r.pos < len(r.in) {
		c := r.in[r.pos]
		r.pos++
		if c == '\n' || c == '\r' {
			if c == '\r' && r.pos < len(r.in) && r.in[r.pos] == '\n' {
				r.pos++
			}
			r.line++
			if comment || len(buf) == 0 {
				// A comment or an empty line (even one that a backslash
				// continued into, as in Java): start over on the next one.
				buf, skipBlanks, newLine, comment, continued, oddBackslash = buf[:0], true, true, false, false, false
				startLine = r.line
				continue
			}
			if oddBackslash {
				buf = buf[:len(buf)-1]
				skipBlanks, continued, oddBackslash = true, true, false
				continue
			}
			return buf, startLine, true
		}
		if comment {
			continue
		}
		if skipBlanks {
			if isBlank(c) {
				continue
			}
			skipBlanks = false
		}
		if newLine {
			newLine = false
			if !continued && (c == '#' || c == '!') {
				comment = true
				continue
			}
		}
		buf = append(buf, c)
		if c == '\\' {
			oddBackslash = !oddBackslash
		} else {
			oddBackslash = false
		}
	}
	if comment || len(buf) == 0 {
		return nil, 0, false
	}
	if oddBackslash {
		buf = buf[:len(buf)-1]
	}
	return buf, startLine, true
}

// splitLogicalLine separates key and value and decodes their escapes.
func splitLogicalLine(line []rune) (key, value string, err error) {
	keyEnd, valueStart := len(line), len(line)
	hasSep, escaped := false, false
	for i, c := range line {
		if !escaped && (c == '=' || c == ':') {
			keyEnd, valueStart, hasSep = i, i+1, true
			break
		}
		if !escaped && isBlank(c) {
			keyEnd, valueStart = i, i+1
			break
		}
		if c == '\\' {
			escaped = !escaped
		} else {
			escaped = false
		}
	}
	for valueStart < len(line) {
		c := line[valueStart]
		if !isBlank(c) {
			if !hasSep && (c == '=' || c == ':') {
				hasSep = true
			} else {
				break
			}
		}
		valueStart++
	}
	if key, err = unescape(line[:keyEnd]); err != nil {
		return "", "", err
	}
	if value, err = unescape(line[valueStart:]); err != nil {
		return "", "", err
	}
	return key, value, nil
}

// unescape decodes backslash escapes the way Properties.loadConvert does.
func unescape(in []rune) (string, error) {
	var units []uint16 // pending \u escapes, so surrogate pairs can combine
	out := make([]rune, 0, len(in))
	flush := func() {
		if len(units) > 0 {
			out = append(out, utf16.Decode(units)...)
			units = units[:0]
		}
	}
	for i := 0; i < len(in); i++ {
		c := in[i]
		if c != '\\' || i+1 >= len(in) {
			flush()
			out = append(out, c)
			continue
		}
		i++
		c = in[i]
		if c == 'u' {
			if len(in)-(i+1) < 4 {
				return "", fmt.Errorf("malformed \\uxxxx encoding")
			}
			var v uint16
			for j := 1; j <= 4; j++ {
				d, ok := hexDigit(in[i+j])
				if !ok {
					return "", fmt.Errorf("malformed \\uxxxx encoding")
				}
				v = v<<4 | uint16(d)
			}
			i += 4
			units = append(units, v)
			continue
		}
		flush()
		switch c {
		case 't':
			c = '\t'
		case 'r':
			c = '\r'
		case 'n':
			c = '\n'
		case 'f':
			c = '\f'
		}
		out = append(out, c)
	}
	flush()
	return string(out), nil
}

func hexDigit(c rune) (int, bool) {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0'), true
	case c >= 'a' && c <= 'f':
		return int(c-'a') + 10, true
	case c >= 'A' && c <= 'F':
		return int(c-'A') + 10, true
	}
	return 0, false
}
