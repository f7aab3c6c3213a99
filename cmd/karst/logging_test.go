package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

func TestJSONLogLinesAreObjectsWithLevelMessageAndAttributes(t *testing.T) {
	var buf bytes.Buffer
	logger, levels, err := newLogger(&buf, "json")
	if err != nil {
		t.Fatal(err)
	}
	logger.Info("listening", "listener", "PLAINTEXT", "addr", "127.0.0.1:9092")
	logger.Debug("not shown at the default level")
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 1 {
		t.Fatalf("%d lines, want 1:\n%s", len(lines), buf.String())
	}
	// BROKER_LOGGER configs lower the level at run time.
	if err := levels.Set("karst", "DEBUG"); err != nil {
		t.Fatal(err)
	}
	logger.Debug("shown once karst is at DEBUG")
	if !strings.Contains(buf.String(), "shown once karst is at DEBUG") {
		t.Fatalf("debug not shown after the change:\n%s", buf.String())
	}
	var rec map[string]any
	if err := json.Unmarshal([]byte(lines[0]), &rec); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, lines[0])
	}
	for k, want := range map[string]string{"level": "INFO", "msg": "listening", "listener": "PLAINTEXT", "addr": "127.0.0.1:9092"} {
		if rec[k] != want {
			t.Errorf("%s = %v, want %q", k, rec[k], want)
		}
	}
	if _, ok := rec["time"]; !ok {
		t.Error("no time field")
	}
}

func TestTextLogIsTheDefault(t *testing.T) {
	for _, format := range []string{"", "text"} {
		var buf bytes.Buffer
		logger, _, err := newLogger(&buf, format)
		if err != nil {
			t.Fatal(err)
		}
		logger.Info("listening", "listener", "PLAINTEXT")
		if !strings.Contains(buf.String(), "level=INFO msg=listening listener=PLAINTEXT") {
			t.Errorf("format %q: %s", format, buf.String())
		}
	}
	if _, _, err := newLogger(&bytes.Buffer{}, "xml"); err == nil {
		t.Error("xml accepted")
	}
}

// TestLogFormatFlagAndKeyReachTheLoadedConfig checks --log-format and
// karst.log.format end in the settings serve builds its logger from, the
// flag winning, and that config refuses other formats.
func TestLogFormatFlagAndKeyReachTheLoadedConfig(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{nil, "text"},
		{[]string{"--override", "karst.log.format=json"}, "json"},
		{[]string{"--log-format", "json"}, "json"},
		{[]string{"--log-format=json", "--override", "karst.log.format=text"}, "json"},
	} {
		sa, err := parseServeArgs(c.args)
		if err != nil {
			t.Fatalf("%v: %v", c.args, err)
		}
		cfg, _, err := loadNodeConfig(sa)
		if err != nil {
			t.Fatalf("%v: %v", c.args, err)
		}
		if got := cfg.Settings.String(logFormatKey); got != c.want {
			t.Errorf("%v: %s = %q, want %q", c.args, logFormatKey, got, c.want)
		}
	}
	for _, args := range [][]string{{"--log-format", "xml"}, {"--override", "karst.log.format=yaml"}} {
		sa, err := parseServeArgs(args)
		if err != nil {
			t.Fatalf("%v: %v", args, err)
		}
		if _, _, err := loadNodeConfig(sa); err == nil || !strings.Contains(err.Error(), logFormatKey) {
			t.Errorf("%v: err = %v, want one naming %s", args, err, logFormatKey)
		}
	}
	if _, err := parseServeArgs([]string{"--log-format"}); err == nil {
		t.Error("--log-format without a value accepted")
	}
}
