package main

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// knownDifference is one allow-list entry: a pattern over difference keys
// ("Metadata v4 unknown-topic Topics[Topic=x].ErrorCode") and the reason the difference is
// accepted. In a pattern "*" matches any run of characters and "v3-7" matches the versions 3
// to 7.
type knownDifference struct {
	pattern string
	reason  string
	line    int
	matched int
}

// loadKnownDifferences reads the allow-list: one "pattern | reason" per line, "#" comments and
// blank lines ignored. An entry without a reason is an error: every accepted difference says why.
func loadKnownDifferences(path string) ([]*knownDifference, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var known []*knownDifference
	scanner := bufio.NewScanner(f)
	for n := 1; scanner.Scan(); n++ {
		line := strings.TrimSpace(scanner.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		pattern, reason, ok := strings.Cut(line, "|")
		pattern, reason = strings.TrimSpace(pattern), strings.TrimSpace(reason)
		if !ok || pattern == "" || reason == "" {
			return nil, fmt.Errorf("%s:%d: want \"pattern | reason\"", path, n)
		}
		known = append(known, &knownDifference{pattern: pattern, reason: reason, line: n})
	}
	return known, scanner.Err()
}

// match returns the first entry whose pattern matches key, or nil.
func match(known []*knownDifference, key string) *knownDifference {
	for _, k := range known {
		if globMatch(k.pattern, key) {
			return k
		}
	}
	return nil
}

// globMatch matches key against pattern word by word. Both have four words, "API vN
// scenario/step path"; the version word may be a range.
func globMatch(pattern, key string) bool {
	pw := strings.SplitN(pattern, " ", 4)
	kw := strings.SplitN(key, " ", 4)
	if len(pw) != len(kw) {
		return false
	}
	for i := range pw {
		if i == 1 && versionRangeMatch(pw[i], kw[i]) {
			continue
		}
		if !wildcardMatch(pw[i], kw[i]) {
			return false
		}
	}
	return true
}

// versionRangeMatch matches "vA-B" against "vN" with A <= N <= B.
func versionRangeMatch(pattern, word string) bool {
	lo, hi, ok := strings.Cut(strings.TrimPrefix(pattern, "v"), "-")
	if !ok || !strings.HasPrefix(pattern, "v") || !strings.HasPrefix(word, "v") {
		return false
	}
	a, err1 := strconv.Atoi(lo)
	b, err2 := strconv.Atoi(hi)
	n, err3 := strconv.Atoi(strings.TrimPrefix(word, "v"))
	return err1 == nil && err2 == nil && err3 == nil && a <= n && n <= b
}

// wildcardMatch matches s against p where "*" in p matches any run of characters.
func wildcardMatch(p, s string) bool {
	parts := strings.Split(p, "*")
	if len(parts) == 1 {
		return p == s
	}
	if !strings.HasPrefix(s, parts[0]) {
		return false
	}
	s = s[len(parts[0]):]
	for _, part := range parts[1 : len(parts)-1] {
		i := strings.Index(s, part)
		if i < 0 {
			return false
		}
		s = s[i+len(part):]
	}
	return strings.HasSuffix(s, parts[len(parts)-1])
}
