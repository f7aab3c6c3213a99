package loglevel

import (
	"bytes"
	"context"
	"log/slog"
	"slices"
	"strings"
	"testing"
)

func newTestLevels(t *testing.T) (*Levels, *bytes.Buffer) {
	t.Helper()
	var buf bytes.Buffer
	inner := slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: LevelTrace})
	return New(inner, slog.LevelInfo), &buf
}

func TestLevelsFollowAncestorsAndChangeAtRunTime(t *testing.T) {
	l, buf := newTestLevels(t)
	server := l.Logger("karst.server").With("conn", 7) // derived before the change
	group := l.Logger("karst.group")
	server.Debug("hidden")
	if buf.Len() != 0 {
		t.Fatalf("debug logged at INFO: %s", buf)
	}
	if err := l.Set("karst", "DEBUG"); err != nil {
		t.Fatal(err)
	}
	server.Debug("shown")
	group.Log(context.Background(), LevelTrace, "still hidden")
	if out := buf.String(); !strings.Contains(out, "msg=shown conn=7") || strings.Contains(out, "still hidden") {
		t.Fatalf("after karst=DEBUG: %s", out)
	}
	buf.Reset()
	if err := l.Set("karst.group", "ERROR"); err != nil {
		t.Fatal(err)
	}
	group.Warn("hidden")
	server.Debug("shown")
	if out := buf.String(); strings.Contains(out, "hidden") || !strings.Contains(out, "shown") {
		t.Fatalf("after karst.group=ERROR: %s", out)
	}
	want := []Logger{{"karst", "DEBUG"}, {"karst.group", "ERROR"}, {"karst.server", "DEBUG"}, {"root", "INFO"}}
	if got := l.Loggers(); !slices.Equal(got, want) {
		t.Fatalf("loggers %v, want %v", got, want)
	}
	// Unset: back to the ancestors' levels.
	if err := l.Unset("karst"); err != nil {
		t.Fatal(err)
	}
	want = []Logger{{"karst", "INFO"}, {"karst.group", "ERROR"}, {"karst.server", "INFO"}, {"root", "INFO"}}
	if got := l.Loggers(); !slices.Equal(got, want) {
		t.Fatalf("after unset: %v, want %v", got, want)
	}
	if err := l.Set(Root, "TRACE"); err != nil {
		t.Fatal(err)
	}
	buf.Reset()
	server.Log(context.Background(), LevelTrace, "trace")
	if !strings.Contains(buf.String(), "trace") {
		t.Fatalf("root=TRACE: %q", buf)
	}
}

func TestLevelsRefuse(t *testing.T) {
	l, _ := newTestLevels(t)
	l.Logger("karst.server")
	for _, bad := range []string{"debug", "OFF", "ALL", ""} {
		if err := l.Set("karst", bad); err == nil {
			t.Errorf("level %q accepted", bad)
		}
	}
	if err := l.Set("no.such", "INFO"); err == nil || l.Exists("no.such") {
		t.Error("unknown logger accepted")
	}
	if err := l.Unset(Root); err == nil {
		t.Error("root unset")
	}
	if got := ValidNames(); got != "DEBUG, ERROR, FATAL, INFO, TRACE, WARN" {
		t.Errorf("ValidNames %q", got)
	}
}

func TestLowestEnabled(t *testing.T) {
	for _, lv := range []slog.Level{LevelTrace, slog.LevelDebug, slog.LevelInfo, slog.LevelError} {
		h := slog.NewTextHandler(&bytes.Buffer{}, &slog.HandlerOptions{Level: lv})
		if got := LowestEnabled(h); got != lv {
			t.Errorf("LowestEnabled at %v: %v", lv, got)
		}
	}
}
