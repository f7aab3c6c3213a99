package main

import (
	"bufio"
	"context"
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"syscall"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/karst-broker/karst/karsttest"
)

// buildBinary compiles karst once per test binary run.
func buildBinary(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "karst")
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	if out, err := exec.CommandContext(ctx, "go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

func exitCode(err error) int {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	if err != nil {
		return -1
	}
	return 0
}

func TestInvalidConfigurationExitsWithStatus2(t *testing.T) {
	bin := buildBinary(t)
	props := filepath.Join(t.TempDir(), "server.properties")
	os.WriteFile(props, []byte("node.id=not-a-number\n"), 0o644)
	for _, args := range [][]string{
		{"serve", props},
		{"serve", "--override", "listeners=nonsense"},
		{"serve", "--override", "socket.request.max.bytes=-5"},
		{"serve", "--bogus-flag"},
		{"serve", "--log-format", "xml"},
		{"no-such-command"},
	} {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		out, err := exec.CommandContext(ctx, bin, args...).CombinedOutput()
		cancel()
		if code := exitCode(err); code != exitUsage {
			t.Errorf("karst %v: exit %d, want %d\n%s", args, code, exitUsage, out)
		}
	}
}

// TestServeAnswersThenStopsOnSIGTERM starts the binary on a random port,
// negotiates with franz-go, then checks SIGTERM ends it with status 0.
func TestServeAnswersThenStopsOnSIGTERM(t *testing.T) {
	bin := buildBinary(t)
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "serve",
		"--override", "listeners=PLAINTEXT://127.0.0.1:0",
		"--override", "log.dirs="+dir,
		"--override", "some.unknown.key=1")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	addrPattern := regexp.MustCompile(`msg=listening listener=PLAINTEXT addr=(\S+)`)
	var addr string
	sawWarning := false
	lines := bufio.NewScanner(stderr)
	for addr == "" && lines.Scan() {
		if regexp.MustCompile(`some\.unknown\.key`).MatchString(lines.Text()) {
			sawWarning = true
		}
		if m := addrPattern.FindStringSubmatch(lines.Text()); m != nil {
			addr = m[1]
		}
	}
	if addr == "" {
		t.Fatal("karst never logged its listening address")
	}
	if !sawWarning {
		t.Error("no warning for an unknown configuration key")
	}
	go func() {
		for lines.Scan() {
		}
	}()
	if _, _, err := net.SplitHostPort(addr); err != nil {
		t.Fatal(err)
	}
	cl, err := kgo.NewClient(kgo.SeedBrokers(addr))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := kadm.NewClient(cl).ApiVersions(ctx); err != nil {
		t.Fatalf("ApiVersions against the binary: %v", err)
	}
	cl.Close()
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if code := exitCode(cmd.Wait()); code != 0 {
		t.Fatalf("exit status %d after SIGTERM, want 0", code)
	}
}

// TestBenchAPIVersionsAgainstABroker runs the load tool's quickest mode
// against an in-process broker and checks its one-line summary.
func TestBenchAPIVersionsAgainstABroker(t *testing.T) {
	bin := buildBinary(t)
	b := karsttest.Start(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, bin, "bench", "apiversions", "-brokers", b.Addr(), "-conns", "2", "-duration", "1s").CombinedOutput()
	if err != nil {
		t.Fatalf("karst bench: %v\n%s", err, out)
	}
	if !regexp.MustCompile(`(?m)^mode=apiversions .*req_per_s=[0-9.]+`).Match(out) {
		t.Fatalf("no apiversions summary line in:\n%s", out)
	}
}
