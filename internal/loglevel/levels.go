package loglevel

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
)

// Root is the name of the root logger.
const Root = "root"

// LevelTrace is log4j's TRACE, below slog's DEBUG; LevelFatal is FATAL,
// above slog's ERROR.
const (
	LevelTrace = slog.LevelDebug - 4
	LevelFatal = slog.LevelError + 4
)

// levelNames are Kafka's log levels (LogLevelConfig.VALID_LOG_LEVELS), the
// only values a BROKER_LOGGER config accepts.
var levelNames = map[string]slog.Level{
	"TRACE": LevelTrace,
	"DEBUG": slog.LevelDebug,
	"INFO":  slog.LevelInfo,
	"WARN":  slog.LevelWarn,
	"ERROR": slog.LevelError,
	"FATAL": LevelFatal,
}

// ValidNames lists the level names in Kafka's order (sorted), for messages.
func ValidNames() string {
	names := make([]string, 0, len(levelNames))
	for n := range levelNames {
		names = append(names, n)
	}
	slices.Sort(names)
	return strings.Join(names, ", ")
}

// Parse returns the slog level of a Kafka level name (exact case, as Kafka
// accepts them).
func Parse(name string) (slog.Level, bool) {
	l, ok := levelNames[name]
	return l, ok
}

// Name is the Kafka name of a slog level: the highest named level at or
// below it.
func Name(l slog.Level) string {
	best, bestLevel := "TRACE", LevelTrace
	for n, nl := range levelNames {
		if nl <= l && nl >= bestLevel {
			best, bestLevel = n, nl
		}
	}
	return best
}

// Levels holds the loggers and their levels. Safe for concurrent use.
type Levels struct {
	inner slog.Handler

	mu sync.Mutex
	// own holds the loggers with a level of their own; root always.
	own map[string]slog.Level
	// effective is the level in force for every known logger.
	effective map[string]*slog.LevelVar
}

// New returns Levels whose loggers write to inner (which should enable
// every level: Levels does the filtering), with root at the given level.
func New(inner slog.Handler, root slog.Level) *Levels {
	l := &Levels{inner: inner, own: map[string]slog.Level{Root: root}, effective: map[string]*slog.LevelVar{}}
	l.effective[Root] = new(slog.LevelVar)
	l.effective[Root].Set(root)
	return l
}

// LowestEnabled is the lowest of Kafka's levels h enables (FATAL if none):
// the root level for Levels over a handler that filters on its own.
func LowestEnabled(h slog.Handler) slog.Level {
	for _, l := range []slog.Level{LevelTrace, slog.LevelDebug, slog.LevelInfo, slog.LevelWarn, slog.LevelError} {
		if h.Enabled(context.Background(), l) {
			return l
		}
	}
	return LevelFatal
}

// Logger returns the logger called name, registering it (and its dotted
// ancestors) the first time.
func (l *Levels) Logger(name string) *slog.Logger {
	l.mu.Lock()
	defer l.mu.Unlock()
	for i, c := range name {
		if c == '.' {
			l.registerLocked(name[:i])
		}
	}
	return slog.New(&filter{level: l.registerLocked(name), inner: l.inner})
}

func (l *Levels) registerLocked(name string) *slog.LevelVar {
	if v, ok := l.effective[name]; ok {
		return v
	}
	v := new(slog.LevelVar)
	v.Set(l.resolveLocked(name))
	l.effective[name] = v
	return v
}

// resolveLocked is name's own level, else its nearest ancestor's, else
// root's, as log4j resolves a logger's level.
func (l *Levels) resolveLocked(name string) slog.Level {
	for {
		if lv, ok := l.own[name]; ok {
			return lv
		}
		i := strings.LastIndexByte(name, '.')
		if i <= 0 {
			return l.own[Root]
		}
		name = name[:i]
	}
}

// Logger is one logger and the level in force for it.
type Logger struct {
	Name  string
	Level string
}

// Loggers returns every known logger with its effective level, by name.
func (l *Levels) Loggers() []Logger {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := make([]Logger, 0, len(l.effective))
	for name, v := range l.effective {
		out = append(out, Logger{Name: name, Level: Name(v.Level())})
	}
	slices.SortFunc(out, func(a, b Logger) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// Exists reports whether name is a known logger.
func (l *Levels) Exists(name string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	_, ok := l.effective[name]
	return ok
}

// Set gives logger name the Kafka level levelName.
func (l *Levels) Set(name, levelName string) error {
	lv, ok := Parse(levelName)
	if !ok {
		return fmt.Errorf("unknown log level %q", levelName)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if _, ok := l.effective[name]; !ok {
		return fmt.Errorf("no logger %q", name)
	}
	l.own[name] = lv
	l.refreshLocked()
	return nil
}

// Unset removes logger name's own level, so it follows its ancestors
// again; root's level cannot be removed.
func (l *Levels) Unset(name string) error {
	if name == Root {
		return fmt.Errorf("the root logger's level cannot be removed")
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if _, ok := l.effective[name]; !ok {
		return fmt.Errorf("no logger %q", name)
	}
	delete(l.own, name)
	l.refreshLocked()
	return nil
}

func (l *Levels) refreshLocked() {
	for name, v := range l.effective {
		v.Set(l.resolveLocked(name))
	}
}

// filter passes records at or above its logger's level to inner.
type filter struct {
	level *slog.LevelVar
	inner slog.Handler
}

func (f *filter) Enabled(ctx context.Context, l slog.Level) bool {
	return l >= f.level.Level() && f.inner.Enabled(ctx, l)
}

func (f *filter) Handle(ctx context.Context, r slog.Record) error { return f.inner.Handle(ctx, r) }

func (f *filter) WithAttrs(attrs []slog.Attr) slog.Handler {
	return &filter{level: f.level, inner: f.inner.WithAttrs(attrs)}
}

func (f *filter) WithGroup(name string) slog.Handler {
	return &filter{level: f.level, inner: f.inner.WithGroup(name)}
}
