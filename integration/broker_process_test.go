package integration

import (
	"context"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// buildKarst compiles the binary for tests that kill it.
func buildKarst(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "karst")
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	if out, err := exec.CommandContext(ctx, "go", "build", "-o", bin, "../cmd/karst").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// karstProcess runs the binary on a fixed port and data directory so that
// it can be killed and started again in place. Its output is appended to
// karst.log next to the data directory.
type karstProcess struct {
	t    *testing.T
	bin  string
	dir  string
	addr string
	cmd  *exec.Cmd
	// overrides are more key=value settings for every start.
	overrides []string
}

// startKarstProcess builds the binary and starts it in a fresh data
// directory on a free port; the test kills it when it ends.
func startKarstProcess(t *testing.T) *karstProcess {
	t.Helper()
	k := &karstProcess{t: t, bin: buildKarst(t), dir: filepath.Join(t.TempDir(), "data"), addr: "127.0.0.1:" + strconv.Itoa(freePort(t))}
	k.start()
	t.Cleanup(k.kill)
	return k
}

func (k *karstProcess) logPath() string { return filepath.Join(filepath.Dir(k.dir), "karst.log") }

// start launches the broker and returns once it listens.
func (k *karstProcess) start() {
	k.t.Helper()
	k.launch()
	k.waitListening(30 * time.Second)
}

// launch starts the process without waiting for it: a test can kill it
// while it still recovers its logs, which it does before it listens.
func (k *karstProcess) launch() {
	k.t.Helper()
	args := []string{"serve",
		"--override", "listeners=PLAINTEXT://" + k.addr,
		"--override", "log.dirs=" + k.dir,
		"--override", "num.partitions=3"}
	for _, kv := range k.overrides {
		args = append(args, "--override", kv)
	}
	k.cmd = exec.Command(k.bin, args...)
	logFile, err := os.OpenFile(k.logPath(), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		k.t.Fatal(err)
	}
	// The child holds its own descriptor; a test that restarts the broker
	// a thousand times must not keep one per start.
	defer logFile.Close()
	k.cmd.Stdout, k.cmd.Stderr = logFile, logFile
	if err := k.cmd.Start(); err != nil {
		k.t.Fatal(err)
	}
}

// waitListening returns once the broker accepts connections, failing the
// test if it has not within limit or if it exited.
func (k *karstProcess) waitListening(limit time.Duration) {
	k.t.Helper()
	deadline := time.Now().Add(limit)
	for {
		c, err := net.DialTimeout("tcp", k.addr, time.Second)
		if err == nil {
			c.Close()
			return
		}
		if time.Now().After(deadline) {
			k.t.Fatalf("karst did not listen on %s within %v: %v", k.addr, limit, err)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func (k *karstProcess) kill() {
	k.cmd.Process.Signal(syscall.SIGKILL)
	k.cmd.Wait()
}
