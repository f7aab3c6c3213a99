package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/karst-broker/karst/internal/config"
)

// TestServeTakesBrokerKeysFromTheEnvironment starts the binary configured
// by KARST_* variables alone and checks it used them: it listens where
// KARST_LISTENERS says and writes its data where KARST_LOG_DIRS says.
func TestServeTakesBrokerKeysFromTheEnvironment(t *testing.T) {
	bin := buildBinary(t)
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "serve")
	cmd.Dir = t.TempDir()
	cmd.Env = append(os.Environ(), "KARST_LISTENERS=PLAINTEXT://127.0.0.1:0", "KARST_LOG_DIRS="+dir, "KARST_NODE_ID=7")
	b := startServe(t, ctx, cmd)
	b.answersAPIVersions(t, ctx)
	meta, err := os.ReadFile(filepath.Join(dir, "meta.properties"))
	if err != nil || !strings.Contains(string(meta), "node.id=7") {
		t.Fatalf("meta.properties in KARST_LOG_DIRS: %v\n%s", err, meta)
	}
	if _, err := os.Stat(filepath.Join(cmd.Dir, "karst-data")); !os.IsNotExist(err) {
		t.Fatalf("the default data directory was used too: %v", err)
	}
	b.cmd.Process.Signal(syscall.SIGTERM)
	if code := exitCode(b.cmd.Wait()); code != 0 {
		t.Fatalf("exit status %d after SIGTERM", code)
	}
}

// TestOverrideWinsOverTheEnvironment: the environment is validated like the
// file, and --override comes after it.
func TestOverrideWinsOverTheEnvironment(t *testing.T) {
	bin := buildBinary(t)
	dir := t.TempDir()
	cmd := exec.Command(bin, "serve", "--override", "log.dirs="+dir, "--override", "listeners=PLAINTEXT://127.0.0.1:0")
	cmd.Env = append(os.Environ(), "KARST_LOG_SEGMENT_BYTES=5")
	out, err := runWithDeadline(t, cmd)
	if code := exitCode(err); code != exitUsage || !strings.Contains(out, "Invalid value 5 for configuration log.segment.bytes: Value must be at least 1048576") {
		t.Fatalf("an invalid KARST_ value: exit %d\n%s", code, out)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd = exec.CommandContext(ctx, bin, "serve", "--override", "log.dirs="+dir, "--override", "listeners=PLAINTEXT://127.0.0.1:0", "--override", "log.segment.bytes=1048576")
	cmd.Env = append(os.Environ(), "KARST_LOG_SEGMENT_BYTES=5")
	b := startServe(t, ctx, cmd)
	b.answersAPIVersions(t, ctx)
}

func runWithDeadline(t *testing.T, cmd *exec.Cmd) (string, error) {
	t.Helper()
	done := make(chan error, 1)
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		return out.String(), err
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		<-done
		t.Fatalf("%v still running after 30 s:\n%s", cmd.Args, out.String())
		return "", nil
	}
}

// TestATopicKeyGivenToTheBrokerWarnsAndStarts is the README's first
// example: segment.bytes is a topic config, which Apache Kafka 4.4 ignores
// in server.properties with "The configuration 'segment.bytes' was supplied
// but isn't a known config." and starts. Karst does the same and names the
// broker key; the broker key itself is validated.
func TestATopicKeyGivenToTheBrokerWarnsAndStarts(t *testing.T) {
	bin := buildBinary(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	b := startServe(t, ctx, exec.CommandContext(ctx, bin, "serve",
		"--override", "listeners=PLAINTEXT://127.0.0.1:0", "--override", "log.dirs="+t.TempDir(),
		"--override", "segment.bytes=5"))
	want := "The configuration 'segment.bytes' was supplied but isn't a known config. 'segment.bytes' is a topic config, ignored here; the broker's default for it is log.segment.bytes."
	if !strings.Contains(b.startLog, want) {
		t.Errorf("no warning naming log.segment.bytes in:\n%s", b.startLog)
	}
	b.answersAPIVersions(t, ctx)
}

// TestTheExampleServerPropertiesServes starts the broker with
// config/server.properties (data and listener moved for the test) and
// checks that every key the file sets is at Karst's default, as its header
// says.
func TestTheExampleServerPropertiesServes(t *testing.T) {
	const example = "../../config/server.properties"
	file, _, err := config.Load(example, nil)
	if err != nil {
		t.Fatal(err)
	}
	defaults := config.Default()
	for key := range file.Static() {
		got, _ := file.Get(key)
		want, _ := defaults.Get(key)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: %s sets %v, Karst's default is %v", example, key, got, want)
		}
	}
	if len(file.Static()) < 20 {
		t.Errorf("%s sets %d keys; an example should show the common ones", example, len(file.Static()))
	}
	bin := buildBinary(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	dir := t.TempDir()
	b := startServe(t, ctx, exec.CommandContext(ctx, bin, "serve", example,
		"--override", "listeners=PLAINTEXT://127.0.0.1:0", "--override", "log.dirs="+dir))
	if strings.Contains(b.startLog, "level=WARN") {
		t.Errorf("the example draws warnings:\n%s", b.startLog)
	}
	b.answersAPIVersions(t, ctx)
	if _, err := os.Stat(filepath.Join(dir, "meta.properties")); err != nil {
		t.Fatal(err)
	}
}

// TestServeStopsWhenItsParentDies starts karst with KARST_EXIT_WITH_PARENT=1
// from a shell and from a Go program (multi-threaded, as go run is), kills
// the parent with SIGKILL and waits for the broker's graceful stop: its
// "shutting down" and "stopped" lines and the end of its stderr.
func TestServeStopsWhenItsParentDies(t *testing.T) {
	bin := buildBinary(t)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for _, parent := range []struct {
		name string
		argv []string
		env  string
	}{
		// The shell stays the parent: it waits instead of exec-ing karst.
		{"sh", []string{"sh", "-c", `"$0" "$@" & wait`, bin}, ""},
		{"go", []string{self, bin}, parentProcessEnv + "=1"},
	} {
		t.Run(parent.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			args := append(parent.argv[1:], "serve", "--override", "listeners=PLAINTEXT://127.0.0.1:0", "--override", "log.dirs="+t.TempDir())
			cmd := exec.CommandContext(ctx, parent.argv[0], args...)
			cmd.Env = append(os.Environ(), exitWithParentEnv+"=1", parent.env)
			b := startServe(t, ctx, cmd)
			b.answersAPIVersions(t, ctx)
			if err := cmd.Process.Kill(); err != nil {
				t.Fatal(err)
			}
			cmd.Wait()
			select {
			case <-b.done:
			case <-ctx.Done():
				t.Fatalf("karst still running after its parent died:\n%s", b.laterLog())
			}
			if log := b.laterLog(); !strings.Contains(log, `msg="shutting down" signal=terminated`) || !strings.Contains(log, "msg=stopped") {
				t.Fatalf("karst did not stop gracefully on its parent's death:\n%s", log)
			}
		})
	}
}

// TestExitWithParentRejectsOtherValues: a typo must not silently leave the
// switch off.
func TestExitWithParentRejectsOtherValues(t *testing.T) {
	if _, err := exitWithParent("maybe"); err == nil {
		t.Fatal("KARST_EXIT_WITH_PARENT=maybe accepted")
	}
	if armed, err := exitWithParent("0"); armed || err != nil {
		t.Fatal(armed, err)
	}
}
