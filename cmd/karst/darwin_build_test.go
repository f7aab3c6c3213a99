package main

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// linuxOnlyTests are packages whose tests cannot be type-checked for darwin
// from this machine, so the darwin vet leaves them out: integration's
// confluent-kafka-go tests need cgo (off in a cross build) and node's
// log-dir-failure test mounts a tmpfs. Their non-test code is still built.
var linuxOnlyTests = map[string]bool{
	"github.com/karst-broker/karst/integration":   true,
	"github.com/karst-broker/karst/internal/node": true,
}

// TestDarwinTargetsBuildAndVet cross-builds every package for the release's
// darwin targets and vets them with their tests: storage calls that exist
// only on Linux (syncfs, fallocate) must stay behind build tags.
func TestDarwinTargetsBuildAndVet(t *testing.T) {
	deadline, ok := t.Deadline()
	if !ok {
		deadline = time.Now().Add(10 * time.Minute)
	}
	ctx, cancel := context.WithDeadline(context.Background(), deadline.Add(-10*time.Second))
	defer cancel()
	for _, arch := range []string{"arm64", "amd64"} {
		env := append(os.Environ(), "GOOS=darwin", "GOARCH="+arch, "CGO_ENABLED=0")
		goTool := func(args ...string) string {
			cmd := exec.CommandContext(ctx, "go", args...)
			cmd.Dir = "../.."
			cmd.Env = env
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("darwin/%s: go %s: %v\n%s", arch, strings.Join(args, " "), err, out)
			}
			return string(out)
		}
		goTool("build", "-o", os.DevNull, "./cmd/karst")
		goTool("build", "./...")
		var vetted []string
		for _, pkg := range strings.Fields(goTool("list", "./...")) {
			if !linuxOnlyTests[pkg] {
				vetted = append(vetted, pkg)
			}
		}
		goTool(append([]string{"vet"}, vetted...)...)
		t.Logf("darwin/%s: built, %d packages vetted", arch, len(vetted))
	}
}
