package main

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/karst-broker/karst/internal/config"
)

// dockerfile is the parts of ../../Dockerfile the tests check.
type dockerfile struct {
	finalFrom  string
	user       string
	volumes    []string
	env        []string
	entrypoint string
	cmd        string
}

// readDockerfile reads the instructions of the last stage, joining
// continued lines.
func readDockerfile(t *testing.T) dockerfile {
	t.Helper()
	f, err := os.Open("../../Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var d dockerfile
	var line string
	lines := bufio.NewScanner(f)
	for lines.Scan() {
		text := strings.TrimSpace(lines.Text())
		if strings.HasPrefix(text, "#") || text == "" && line == "" {
			continue
		}
		if cont, ok := strings.CutSuffix(text, "\\"); ok {
			line += cont + " "
			continue
		}
		line += text
		instr, rest, _ := strings.Cut(line, " ")
		line = ""
		rest = strings.TrimSpace(rest)
		switch strings.ToUpper(instr) {
		case "FROM":
			d = dockerfile{finalFrom: strings.Fields(rest)[0]}
		case "USER":
			d.user = rest
		case "VOLUME":
			d.volumes = append(d.volumes, strings.Trim(rest, `[]" `))
		case "ENV":
			d.env = append(d.env, strings.Fields(rest)...)
		case "ENTRYPOINT":
			d.entrypoint = rest
		case "CMD":
			d.cmd = rest
		}
	}
	return d
}

// TestDockerfileLayout checks the image's last stage: distroless or
// scratch, a non-root user, the data directory a volume, and environment
// variables that are valid broker keys with log.dirs on the volume.
func TestDockerfileLayout(t *testing.T) {
	d := readDockerfile(t)
	if !strings.HasPrefix(d.finalFrom, "gcr.io/distroless/static") && d.finalFrom != "scratch" {
		t.Errorf("final stage FROM %s, want distroless static or scratch", d.finalFrom)
	}
	if d.user == "" || strings.HasPrefix(d.user, "0") || strings.HasPrefix(d.user, "root") {
		t.Errorf("USER %q, want a non-root user", d.user)
	}
	overrides := environmentOverrides(d.env)
	if len(overrides) != len(d.env) {
		t.Errorf("ENV %q maps to %q: every variable should set a broker key", d.env, overrides)
	}
	b, warnings, err := config.Load("", overrides)
	if err != nil || len(warnings) > 0 {
		t.Fatalf("the image's environment %q: %v %v", overrides, err, warnings)
	}
	if logDirs := b.LogDirs(); len(logDirs) != 1 || len(d.volumes) != 1 || logDirs[0] != d.volumes[0] {
		t.Errorf("log.dirs %q, VOLUME %q: the data must be in the volume", logDirs, d.volumes)
	}
	if d.entrypoint != `["/usr/local/bin/karst"]` || d.cmd != `["serve"]` {
		t.Errorf("ENTRYPOINT %s CMD %s", d.entrypoint, d.cmd)
	}
}

// TestSystemdUnitVerifies runs systemd-analyze verify on the unit (with
// ExecStart pointed at a built binary, since verify checks it exists) and
// checks the hardening options are there.
func TestSystemdUnitVerifies(t *testing.T) {
	unit, err := os.ReadFile("../../deploy/systemd/karst.service")
	if err != nil {
		t.Fatal(err)
	}
	for _, option := range []string{"NoNewPrivileges=yes", "ProtectSystem=strict", "ReadWritePaths=/var/lib/karst", "PrivateTmp=yes",
		"LimitNOFILE=", "Restart=on-failure", "ProtectHome=yes", "CapabilityBoundingSet=", "SystemCallFilter=@system-service"} {
		if !strings.Contains(string(unit), "\n"+option) {
			t.Errorf("karst.service lacks %s", option)
		}
	}
	if !strings.Contains(string(unit), "ExecStart=/usr/local/bin/karst serve /etc/karst/server.properties\n") {
		t.Fatal("karst.service: ExecStart is not /usr/local/bin/karst serve /etc/karst/server.properties")
	}
	analyze, err := exec.LookPath("systemd-analyze")
	if err != nil {
		t.Skip("systemd-analyze not installed; options checked, unit not verified")
	}
	bin := buildBinary(t)
	path := filepath.Join(t.TempDir(), "karst.service")
	os.WriteFile(path, []byte(strings.ReplaceAll(string(unit), "/usr/local/bin/karst", bin)), 0o644)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, analyze, "verify", path).CombinedOutput()
	if err != nil || len(out) > 0 {
		t.Fatalf("systemd-analyze verify: %v\n%s", err, out)
	}
}
