package main

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/karst-broker/karst/internal/handler"
	"github.com/karst-broker/karst/internal/version"
)

// runBinary runs the binary with args and returns its stdout, stderr and
// exit status.
func runBinary(t *testing.T, bin string, args ...string) (string, string, int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var stdout, stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	code := exitCode(cmd.Run())
	return stdout.String(), stderr.String(), code
}

// TestEverySubcommandTakesHelp runs --help and -h on every subcommand in
// the dispatch list (so a new one is covered when it is added) and a flag
// none of them has.
func TestEverySubcommandTakesHelp(t *testing.T) {
	bin := buildBinary(t)
	names := []string{"help"}
	for _, c := range commands {
		names = append(names, c.name)
	}
	for _, name := range names {
		for _, flag := range []string{"--help", "-h"} {
			stdout, stderr, code := runBinary(t, bin, name, flag)
			if code != 0 || !strings.HasPrefix(stdout, "usage: karst") || stderr != "" {
				t.Errorf("karst %s %s: exit %d, stdout %q, stderr %q; want 0 and usage on stdout", name, flag, code, stdout, stderr)
			}
			if name != "help" && !strings.HasPrefix(stdout, "usage: karst "+name) {
				t.Errorf("karst %s %s printed another command's usage: %q", name, flag, firstLine(stdout))
			}
		}
		stdout, stderr, code := runBinary(t, bin, name, "--no-such-flag")
		if code != exitUsage || !strings.Contains(stderr, "usage: karst") || stdout != "" {
			t.Errorf("karst %s --no-such-flag: exit %d, stdout %q, stderr %q; want %d and usage on stderr", name, code, stdout, stderr, exitUsage)
		}
	}
	for _, args := range [][]string{{"--help"}, {"-h"}, {"help"}, {"help", "serve"}, {"help", "help"}} {
		stdout, _, code := runBinary(t, bin, args...)
		if code != 0 || !strings.HasPrefix(stdout, "usage: karst") {
			t.Errorf("karst %v: exit %d, stdout %q", args, code, firstLine(stdout))
		}
	}
	if stdout, _, _ := runBinary(t, bin, "help"); !strings.Contains(stdout, "\n  version ") {
		t.Errorf("karst help does not list version:\n%s", stdout)
	}
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// TestVersionPrintsTheStampAndTheProtocolLevel builds with the release
// script's -X flags and checks every line of `karst version`.
func TestVersionPrintsTheStampAndTheProtocolLevel(t *testing.T) {
	bin := t.TempDir() + "/karst"
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	pkg := "github.com/karst-broker/karst/internal/version"
	ldflags := fmt.Sprintf("-X %s.Version=v9.8.7-test -X %s.Commit=0123abcd -X %s.Date=2026-12-02T01:00:00Z", pkg, pkg, pkg)
	if out, err := exec.CommandContext(ctx, "go", "build", "-ldflags", ldflags, "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	for _, args := range [][]string{{"version"}, {"--version"}} {
		stdout, stderr, code := runBinary(t, bin, args...)
		if code != 0 || stderr != "" {
			t.Fatalf("karst %v: exit %d, stderr %q", args, code, stderr)
		}
		want := []string{
			`^karst v9\.8\.7-test$`,
			`^commit:   0123abcd$`,
			`^date:     2026-12-02T01:00:00Z$`,
			`^go:       go1\.\d+\S* linux/\w+$`,
			fmt.Sprintf(`^protocol: Apache Kafka %s \(%d APIs\)$`, regexp.QuoteMeta(version.KafkaRelease), len(handler.Table())),
		}
		lines := strings.Split(strings.TrimSuffix(stdout, "\n"), "\n")
		if len(lines) != len(want) {
			t.Fatalf("karst %v printed %d lines, want %d:\n%s", args, len(lines), len(want), stdout)
		}
		for i, w := range want {
			if !regexp.MustCompile(w).MatchString(lines[i]) {
				t.Errorf("karst %v line %d = %q, want %s", args, i+1, lines[i], w)
			}
		}
	}
}

// TestAnUnstampedBuildSaysDevel is `go build ./cmd/karst` without flags:
// no -X and (in a worktree or with -buildvcs=false) no VCS stamp.
func TestAnUnstampedBuildSaysDevel(t *testing.T) {
	stdout, _, code := runBinary(t, buildBinary(t), "version")
	if code != 0 || !regexp.MustCompile(`(?m)^karst (devel|v\S+)\ncommit:   \S+`).MatchString(stdout) {
		t.Fatalf("exit %d:\n%s", code, stdout)
	}
}
