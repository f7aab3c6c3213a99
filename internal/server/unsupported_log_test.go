package server

import (
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// lines returns the logged lines containing every one of words.
func (l *lockedBuffer) lines(words ...string) []string {
	var out []string
	for _, line := range strings.Split(l.String(), "\n") {
		all := line != ""
		for _, w := range words {
			all = all && strings.Contains(line, w)
		}
		if all {
			out = append(out, line)
		}
	}
	return out
}

// openAsJavaDoes sends what a client newer than the broker sends first on
// each connection: ApiVersions at a version the broker refuses, then at
// one it serves, naming its software; then it closes the connection.
func openAsJavaDoes(t *testing.T, addr, software, version string) {
	t.Helper()
	c := dialTest(t, addr)
	tooNew := kmsg.NewPtrApiVersionsRequest()
	tooNew.SetVersion(6)
	roundTrip(t, c, encodeRequest(tooNew, 1), 1)
	named := kmsg.NewPtrApiVersionsRequest()
	named.SetVersion(3)
	named.ClientSoftwareName, named.ClientSoftwareVersion = software, version
	roundTrip(t, c, encodeRequest(named, 2), 2)
	c.Close()
}

// TestUnsupportedVersionLoggedOncePerClientSoftware: ten connections of
// one client software refused the same ApiVersions version write one INFO
// line, which names the software; another version of the software, and a
// client that never names itself, get a line each.
func TestUnsupportedVersionLoggedOncePerClientSoftware(t *testing.T) {
	var logs lockedBuffer
	s := New(Config{Listeners: []Listener{{Name: "PLAINTEXT", Addr: "127.0.0.1:0"}},
		Logger: slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelInfo}))})
	if err := s.Listen(); err != nil {
		t.Fatal(err)
	}
	serveForTest(t, s)
	addr := s.Addr("PLAINTEXT").String()

	for range 10 {
		openAsJavaDoes(t, addr, "apache-kafka-java", "4.4.0")
	}
	openAsJavaDoes(t, addr, "apache-kafka-java", "4.5.0")
	anonymous := dialTest(t, addr)
	tooNew := kmsg.NewPtrApiVersionsRequest()
	tooNew.SetVersion(6)
	roundTrip(t, anonymous, encodeRequest(tooNew, 1), 1)
	anonymous.Close()

	// The last line is written when the broker sees the anonymous
	// connection end; wait for it rather than for a time.
	deadline := time.Now().Add(30 * time.Second)
	for len(logs.lines("unsupported version", "client_software_name=\"\"")) == 0 {
		if time.Now().After(deadline) {
			t.Fatalf("no line for the client that never named itself; logs:\n%s", logs.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := s.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}

	all := logs.lines("request at an unsupported version")
	if len(all) != 3 {
		t.Fatalf("%d unsupported-version lines, want 3 (4.4.0, 4.5.0, unnamed):\n%s", len(all), strings.Join(all, "\n"))
	}
	for _, want := range []string{"client_software_version=4.4.0", "client_software_version=4.5.0"} {
		got := logs.lines("request at an unsupported version", "level=INFO", "client_software_name=apache-kafka-java", want, "api=ApiVersions", "api_version=6")
		if len(got) != 1 {
			t.Errorf("%d INFO lines for %s, want 1:\n%s", len(got), want, strings.Join(all, "\n"))
		}
	}
}

// TestUnsupportedLogForgetsNothingPastItsBound: once the remembered set is
// full, new pairs are not logged at INFO, and the set stops growing.
func TestUnsupportedLogForgetsNothingPastItsBound(t *testing.T) {
	var logs lockedBuffer
	logger := slog.New(slog.NewTextHandler(&logs, nil))
	var u unsupportedLog
	for i := range maxUnsupportedLogged {
		if !u.firstTime(logger, unsupportedRequest{softwareName: "c", softwareVersion: string(rune('a' + i%26)), apiKey: int16(i)}) {
			t.Fatalf("pair %d not new", i)
		}
	}
	if u.firstTime(logger, unsupportedRequest{softwareName: "c", softwareVersion: "x"}) {
		t.Fatal("a pair past the bound was reported new")
	}
	if u.firstTime(logger, unsupportedRequest{softwareName: "c", softwareVersion: "a", apiKey: 0}) {
		t.Fatal("a remembered pair was reported new")
	}
	if len(u.seen) != maxUnsupportedLogged || len(logs.lines("further ones are logged at DEBUG")) != 1 {
		t.Fatalf("set holds %d; bound lines: %d", len(u.seen), len(logs.lines("further ones are logged at DEBUG")))
	}
}
