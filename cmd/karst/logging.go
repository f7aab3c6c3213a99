package main

import (
	"fmt"
	"io"
	"log/slog"
)

// logFormatKey selects the broker log's format; --log-format sets it too.
const logFormatKey = "karst.log.format"

// newLogger returns the broker's logger, writing to w in format: "text"
// (slog's key=value lines, the default) or "json" (one object per line,
// for log shippers).
func newLogger(w io.Writer, format string) (*slog.Logger, error) {
	opts := &slog.HandlerOptions{Level: slog.LevelInfo}
	switch format {
	case "", "text":
		return slog.New(slog.NewTextHandler(w, opts)), nil
	case "json":
		return slog.New(slog.NewJSONHandler(w, opts)), nil
	}
	return nil, fmt.Errorf("%s=%s: want text or json", logFormatKey, format)
}
