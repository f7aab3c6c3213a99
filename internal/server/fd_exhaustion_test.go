package server

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/karst-broker/karst/internal/handler"
)

// The file descriptor limit is per process, so the server whose
// descriptors run out is a child: this test binary run again with
// fdExhaustionChild set. The test talks to it over stdin and stdout and
// counts the lines it logs on stderr.
const fdExhaustionChild = "KARST_TEST_FD_EXHAUSTION_CHILD"

// fdExhaustionHold, if set (a Go duration), keeps the descriptors
// exhausted that long, to measure what is logged meanwhile.
const fdExhaustionHold = "KARST_TEST_FD_EXHAUSTION_HOLD"

func TestOutOfFileDescriptorsAcceptBacksOffAndServingGoesOn(t *testing.T) {
	if os.Getenv(fdExhaustionChild) != "" {
		serveUntilStdinCloses(t)
		return
	}
	var hold time.Duration
	if v := os.Getenv(fdExhaustionHold); v != "" {
		var err error
		if hold, err = time.ParseDuration(v); err != nil {
			t.Fatalf("%s: %v", fdExhaustionHold, err)
		}
	}
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second+hold)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^"+t.Name()+"$", "-test.timeout=60s")
	cmd.Env = append(os.Environ(), fdExhaustionChild+"=1")
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	stderr, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var logs lineCounter
	logged := make(chan struct{})
	go func() {
		defer close(logged)
		for lines := bufio.NewScanner(stderr); lines.Scan(); {
			logs.Write(append(lines.Bytes(), '\n'))
		}
	}()
	replies := bufio.NewScanner(stdout)
	ask := func(command, reply string) string {
		t.Helper()
		if command != "" {
			fmt.Fprintln(stdin, command)
		}
		for replies.Scan() {
			if rest, ok := strings.CutPrefix(replies.Text(), reply+" "); ok {
				return rest
			}
		}
		t.Fatalf("child ended before answering %q: %v; stderr:\n%s", command, replies.Err(), logs.String())
		return ""
	}

	addr := ask("", "addr")
	established := dialAnswered(t, addr, 1)
	// The child's resident memory and a bystander's Metadata latency,
	// over a connection made before the descriptors run out.
	watch := watchHostile(t, cmd.Process.Pid, addr)
	ask("exhaust", "exhausted")
	waiting := dialTest(t, addr) // the backlog holds it
	if _, err := waiting.Write(apiVersions(2)); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(20 * time.Second)
	for failures := 0; failures < 6; failures, _ = strconv.Atoi(ask("failures", "failures")) {
		if time.Now().After(deadline) {
			t.Fatalf("accept failed %d times in 20 s with no descriptors left", failures)
		}
	}
	roundTrip(t, established, apiVersions(3), 3)
	time.Sleep(hold)
	roundTrip(t, established, apiVersions(4), 4)
	failures := ask("failures", "failures")
	ask("free", "freed")
	if got, err := readResponse(waiting); err != nil || got != 2 {
		t.Fatalf("connection queued while descriptors ran out: correlation id %d, %v; want an answer to 2", got, err)
	}
	watch.finish("file descriptors exhausted, then freed")
	stdin.Close()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("child: %v; stderr:\n%s", err, logs.String())
	}
	<-logged
	t.Logf("%s failed accepts, %d lines and %d bytes logged with descriptors exhausted for %v after the first failures; child CPU %v",
		failures, logs.total, logs.bytes, hold, cmd.ProcessState.UserTime()+cmd.ProcessState.SystemTime())
	if got, most := logs.count("accept failed"), 1+int(hold/acceptErrorLogInterval); got > most {
		t.Fatalf("%d lines for %s failed accepts, want at most %d:\n%s", got, failures, most, logs.String())
	}
}

// serveUntilStdinCloses is the child: a server with a low descriptor
// limit that exhausts its descriptors and frees them when told.
func serveUntilStdinCloses(t *testing.T) {
	var limit syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &limit); err != nil {
		t.Fatal(err)
	}
	limit.Cur = min(limit.Max, 256) // fewer to open; the process is ours alone
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &limit); err != nil {
		t.Fatal(err)
	}
	logger := slog.New(slog.NewTextHandler(os.Stderr, nil))
	s := New(Config{Listeners: []Listener{{Name: "PLAINTEXT", Addr: "127.0.0.1:0"}}, Logger: logger})
	if err := s.Listen(); err != nil {
		t.Fatal(err)
	}
	s.Serve(handler.NewBroker(handler.Options{Logger: logger}))
	fmt.Println("addr", s.Addr("PLAINTEXT"))
	var hogs []*os.File
	for commands := bufio.NewScanner(os.Stdin); commands.Scan(); {
		switch commands.Text() {
		case "exhaust":
			for {
				f, err := os.Open(os.DevNull)
				if errors.Is(err, syscall.EMFILE) {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
				hogs = append(hogs, f)
			}
			fmt.Println("exhausted", len(hogs))
		case "failures":
			fmt.Println("failures", s.Stats().AcceptErrors.Load())
		case "free":
			for _, f := range hogs {
				f.Close()
			}
			hogs = nil
			fmt.Println("freed ok")
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := s.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
}
