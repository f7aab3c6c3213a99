package log

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// Kafka's CheckpointFile text format, used by leader-epoch-checkpoint and the
// log dir's offset checkpoints:
//
//	0            version
//	N            number of entries
//	<entry>      N lines of space-separated fields

var errBadCheckpoint = errors.New("malformed checkpoint file")

// readCheckpoint returns the entry lines, each split into fields.
func readCheckpoint(path string, fieldsPerLine int) ([][]string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if len(data) == 0 {
		return nil, nil // Kafka creates these empty at start and reads empty as no entries
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	next := func() (string, bool) {
		if !sc.Scan() {
			return "", false
		}
		return sc.Text(), true
	}
	v, ok := next()
	if !ok || strings.TrimSpace(v) != "0" {
		return nil, fmt.Errorf("%w %s: unsupported version %q", errBadCheckpoint, path, v)
	}
	c, ok := next()
	n, err := strconv.Atoi(strings.TrimSpace(c))
	if !ok || err != nil || n < 0 {
		return nil, fmt.Errorf("%w %s: bad count %q", errBadCheckpoint, path, c)
	}
	out := make([][]string, 0, min(n, 1<<16))
	for i := 0; i < n; i++ {
		line, ok := next()
		f := strings.Fields(line)
		if !ok || len(f) != fieldsPerLine {
			return nil, fmt.Errorf("%w %s: bad line %d %q", errBadCheckpoint, path, i, line)
		}
		out = append(out, f)
	}
	if line, ok := next(); ok && strings.TrimSpace(line) != "" {
		return nil, fmt.Errorf("%w %s: trailing data", errBadCheckpoint, path)
	}
	return out, nil
}

// writeCheckpoint writes the version, count and lines atomically.
func writeCheckpoint(path string, lines []string) error {
	var b bytes.Buffer
	fmt.Fprintf(&b, "0\n%d\n", len(lines))
	for _, l := range lines {
		b.WriteString(l)
		b.WriteByte('\n')
	}
	return writeFileAtomic(path, b.Bytes())
}
