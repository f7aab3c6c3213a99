package main

import (
	"bufio"
	"context"
	"io"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// servedBroker is a `karst serve` process started by a test.
type servedBroker struct {
	cmd  *exec.Cmd
	addr string
	// startLog is what it logged up to its listening line.
	startLog string
	// done is closed when its stderr closes (it and its children exited).
	done chan struct{}
	mu   sync.Mutex
	rest strings.Builder
}

var listeningLine = regexp.MustCompile(`msg=listening listener=PLAINTEXT addr=(\S+)`)

// startServe runs the binary with args (env added to the test's own) and
// waits for its listening line; the broker is killed when ctx ends.
func startServe(t *testing.T, ctx context.Context, cmd *exec.Cmd) *servedBroker {
	t.Helper()
	// An os.Pipe rather than StderrPipe: Wait closes StderrPipe's end, and a
	// test may wait for a parent and go on reading its child, the broker.
	stderr, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stderr.Close() })
	cmd.Stderr = w
	err = cmd.Start()
	w.Close()
	if err != nil {
		t.Fatal(err)
	}
	b := &servedBroker{cmd: cmd, done: make(chan struct{})}
	lines := bufio.NewScanner(stderr)
	var log strings.Builder
	for b.addr == "" && lines.Scan() {
		log.WriteString(lines.Text() + "\n")
		if m := listeningLine.FindStringSubmatch(lines.Text()); m != nil {
			b.addr = m[1]
		}
	}
	b.startLog = log.String()
	if b.addr == "" {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("karst never logged its listening address:\n%s", b.startLog)
	}
	go func() {
		defer close(b.done)
		for lines.Scan() {
			b.mu.Lock()
			b.rest.WriteString(lines.Text() + "\n")
			b.mu.Unlock()
		}
		io.Copy(io.Discard, stderr)
	}()
	return b
}

// laterLog is what the broker logged after its listening line so far.
func (b *servedBroker) laterLog() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.rest.String()
}

// answersAPIVersions checks the broker negotiates with franz-go.
func (b *servedBroker) answersAPIVersions(t *testing.T, ctx context.Context) {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(b.addr))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	if _, err := kadm.NewClient(cl).ApiVersions(ctx); err != nil {
		t.Fatalf("ApiVersions against the binary: %v", err)
	}
}
