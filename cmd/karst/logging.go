package main

import (
	"fmt"
	"io"
	"log/slog"

	"github.com/karst-broker/karst/internal/loglevel"
)

// logFormatKey selects the broker log's format; --log-format sets it too.
const logFormatKey = "karst.log.format"

// newLogger returns the broker's logger ("karst") and the levels of all
// its loggers, writing to w in format: "text" (slog's key=value lines, the
// default) or "json" (one object per line, for log shippers). The root
// level starts at INFO; BROKER_LOGGER configs change levels at run time,
// so the handler itself passes every level and the levels filter.
func newLogger(w io.Writer, format string) (*slog.Logger, *loglevel.Levels, error) {
	opts := &slog.HandlerOptions{Level: loglevel.LevelTrace}
	var h slog.Handler
	switch format {
	case "", "text":
		h = slog.NewTextHandler(w, opts)
	case "json":
		h = slog.NewJSONHandler(w, opts)
	default:
		return nil, nil, fmt.Errorf("%s=%s: want text or json", logFormatKey, format)
	}
	levels := loglevel.New(h, slog.LevelInfo)
	return levels.Logger("karst"), levels, nil
}
