package main

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/karst-broker/karst/karsttest"
)

// built is the binary the tests share: go build runs once per test
// process, not once per test.
var built struct {
	once sync.Once
	dir  string
	bin  string
	err  error
	out  []byte
}

// parentProcessEnv makes the test binary a parent for
// TestServeStopsWhenItsParentDies: it runs its arguments as a child and
// waits, a multi-threaded Go parent like go run.
const parentProcessEnv = "KARST_TEST_PARENT_PROCESS"

func TestMain(m *testing.M) {
	if os.Getenv(parentProcessEnv) == "1" {
		child := exec.Command(os.Args[1], os.Args[2:]...)
		child.Stdout, child.Stderr = os.Stdout, os.Stderr
		child.Run()
		os.Exit(0)
	}
	code := m.Run()
	if built.dir != "" {
		os.RemoveAll(built.dir)
	}
	os.Exit(code)
}

// buildBinary compiles karst once per test binary run.
func buildBinary(t *testing.T) string {
	t.Helper()
	built.once.Do(func() {
		built.dir, built.err = os.MkdirTemp("", "karst-cmd-test-")
		if built.err != nil {
			return
		}
		built.bin = filepath.Join(built.dir, "karst")
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		built.out, built.err = exec.CommandContext(ctx, "go", "build", "-o", built.bin, ".").CombinedOutput()
	})
	if built.err != nil {
		t.Fatalf("go build: %v\n%s", built.err, built.out)
	}
	return built.bin
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
	b := startServe(t, ctx, exec.CommandContext(ctx, bin, "serve",
		"--override", "listeners=PLAINTEXT://127.0.0.1:0",
		"--override", "log.dirs="+dir,
		"--override", "some.unknown.key=1"))
	if !strings.Contains(b.startLog, "some.unknown.key") {
		t.Error("no warning for an unknown configuration key")
	}
	b.answersAPIVersions(t, ctx)
	if err := b.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if code := exitCode(b.cmd.Wait()); code != 0 {
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
