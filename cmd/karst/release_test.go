package main

import (
	"bufio"
	"context"
	"crypto/sha256"
	"debug/elf"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
)

// releaseTestEnv runs TestReleaseScriptBuildsEveryTarget: four cross
// builds without the build cache's usual flags take minutes.
const releaseTestEnv = "KARST_TEST_RELEASE"

// TestReleaseScriptBuildsEveryTarget runs scripts/release.sh into a temp
// dist/ and checks the four binaries, SHA256SUMS, that the Linux ones are
// static, and that the linux/amd64 one reports the stamp and serves the
// way the Dockerfile runs it (its ENV and CMD, as its non-root user when
// the test runs as root).
//
//	KARST_TEST_RELEASE=1 go test -count=1 -timeout 45m ./cmd/karst -run TestReleaseScript
func TestReleaseScriptBuildsEveryTarget(t *testing.T) {
	if os.Getenv(releaseTestEnv) != "1" {
		t.Skipf("set %s=1 to run the release build (four cross builds, minutes)", releaseTestEnv)
	}
	deadline, ok := t.Deadline()
	if !ok {
		deadline = time.Now().Add(40 * time.Minute)
	}
	ctx, cancel := context.WithDeadline(context.Background(), deadline.Add(-30*time.Second))
	defer cancel()
	dist := t.TempDir()
	script := exec.CommandContext(ctx, "../../scripts/release.sh")
	script.Env = append(os.Environ(), "TARGETS=", "DIST="+dist, "VERSION=v0.0.0-releasetest", "COMMIT=feedface", "DATE=2026-12-02T00:00:00Z")
	start := time.Now()
	out, err := script.CombinedOutput()
	t.Logf("release.sh in %s:\n%s", time.Since(start).Round(time.Second), out)
	if err != nil {
		// Go on: the targets that built are still checked.
		t.Errorf("release.sh: %v", err)
	}
	sums := readSHA256SUMS(t, filepath.Join(dist, "SHA256SUMS"))
	for _, target := range []string{"linux/amd64", "linux/arm64", "darwin/amd64", "darwin/arm64"} {
		name := "karst-v0.0.0-releasetest-" + strings.ReplaceAll(target, "/", "-")
		data, err := os.ReadFile(filepath.Join(dist, name))
		if err != nil {
			t.Errorf("%s: %v", target, err)
			continue
		}
		sum := sha256.Sum256(data)
		if sums[name] != hex.EncodeToString(sum[:]) {
			t.Errorf("SHA256SUMS has %q for %s, the file's is %x", sums[name], name, sum)
		}
		if strings.HasPrefix(target, "linux/") {
			checkStaticELF(t, filepath.Join(dist, name))
		}
		t.Logf("%s: %d bytes", name, len(data))
	}
	if runtime.GOOS != "linux" || runtime.GOARCH != "amd64" {
		return
	}
	bin := filepath.Join(dist, "karst-v0.0.0-releasetest-linux-amd64")
	stdout, _, code := runBinary(t, bin, "version")
	if code != 0 || !strings.HasPrefix(stdout, "karst v0.0.0-releasetest\ncommit:   feedface\ndate:     2026-12-02T00:00:00Z\n") {
		t.Fatalf("karst version: exit %d\n%s", code, stdout)
	}
	serveAsTheImageDoes(t, ctx, bin)
}

func readSHA256SUMS(t *testing.T, path string) map[string]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sums := map[string]string{}
	lines := bufio.NewScanner(f)
	for lines.Scan() {
		sum, name, ok := strings.Cut(lines.Text(), "  ")
		if !ok {
			t.Fatalf("SHA256SUMS line %q", lines.Text())
		}
		sums[name] = sum
	}
	return sums
}

// checkStaticELF fails unless the binary has no interpreter and no shared
// libraries: it must run on distroless static and scratch.
func checkStaticELF(t *testing.T, path string) {
	t.Helper()
	f, err := elf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			t.Errorf("%s has an ELF interpreter: not static", path)
		}
	}
	if libs, _ := f.ImportedLibraries(); len(libs) > 0 {
		t.Errorf("%s links %q: not static", path, libs)
	}
}

// serveAsTheImageDoes runs the binary with the Dockerfile's ENV, ENTRYPOINT
// and CMD, the volume and listener moved for the test, as the image's user
// when the test may switch to it.
func serveAsTheImageDoes(t *testing.T, ctx context.Context, bin string) {
	d := readDockerfile(t)
	volume := t.TempDir()
	cmd := exec.CommandContext(ctx, bin, strings.Trim(d.cmd, `[]"`))
	cmd.Dir = "/"
	cmd.Env = append(os.Environ(), d.env...)
	cmd.Env = append(cmd.Env, "KARST_LOG_DIRS="+volume, "KARST_LISTENERS=PLAINTEXT://127.0.0.1:0")
	if os.Geteuid() == 0 {
		var uid, gid uint32
		if _, err := fmt.Sscanf(d.user, "%d:%d", &uid, &gid); err != nil {
			t.Fatalf("USER %q: %v", d.user, err)
		}
		if err := os.Chown(volume, int(uid), int(gid)); err != nil {
			t.Fatal(err)
		}
		// The user must reach the binary and the volume: t.TempDir's
		// directories are 0700.
		for _, dir := range []string{filepath.Dir(filepath.Dir(bin)), filepath.Dir(bin), filepath.Dir(volume)} {
			if err := os.Chmod(dir, 0o755); err != nil {
				t.Fatal(err)
			}
		}
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uid, Gid: gid}}
	}
	b := startServe(t, ctx, cmd)
	b.answersAPIVersions(t, ctx)
	meta, err := os.Stat(filepath.Join(volume, "meta.properties"))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("served as the image does; meta.properties owned by uid %d", meta.Sys().(*syscall.Stat_t).Uid)
}
