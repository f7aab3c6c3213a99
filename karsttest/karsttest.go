// Package karsttest starts a real Karst broker inside a Go test: on a random
// 127.0.0.1 port, with its data in the test's temporary directory, stopped
// when the test ends. Unlike a fake, it is the same broker the binary runs.
//
//	b := karsttest.Start(t)
//	client, _ := kgo.NewClient(kgo.SeedBrokers(b.Addr()))
package karsttest

import (
	"context"
	"io"
	"log/slog"
	"os"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/karst-broker/karst/internal/config"
	"github.com/karst-broker/karst/internal/node"
)

// Broker is a running in-process Karst.
type Broker struct {
	node    *node.Node
	dataDir string
	stop    sync.Once
	stopErr error
}

// Option changes how the broker starts: a server.properties setting.
type Option func(*[]string)

// WithConfig sets a broker config key, as a server.properties line would.
func WithConfig(key, value string) Option {
	return func(o *[]string) { *o = append(*o, key+"="+value) }
}

// WithMaxRequestSize sets socket.request.max.bytes.
func WithMaxRequestSize(n int32) Option {
	return WithConfig("socket.request.max.bytes", strconv.Itoa(int(n)))
}

// WithAutoCreateTopics sets auto.create.topics.enable (on by default, as
// in Kafka).
func WithAutoCreateTopics(on bool) Option {
	return WithConfig("auto.create.topics.enable", strconv.FormatBool(on))
}

// WithDefaultPartitions sets num.partitions.
func WithDefaultPartitions(n int32) Option {
	return WithConfig("num.partitions", strconv.Itoa(int(n)))
}

// Start starts a broker and registers its shutdown with t.Cleanup.
func Start(t testing.TB, opts ...Option) *Broker {
	t.Helper()
	return start(t, nil, opts)
}

// StartWithLog starts a broker whose log lines, from INFO up (the level
// Karst's binary starts at), go to w instead of stderr, for tests that
// check what the broker logs.
func StartWithLog(t testing.TB, w io.Writer, opts ...Option) *Broker {
	t.Helper()
	return start(t, w, opts)
}

func start(t testing.TB, logTo io.Writer, opts []Option) *Broker {
	t.Helper()
	dataDir := t.TempDir()
	// Groups form at once, as in Kafka's own test harness: the 3 s initial
	// rebalance delay only makes each group test slower. An option sets
	// it back (later settings win).
	overrides := []string{"listeners=PLAINTEXT://127.0.0.1:0", "log.dirs=" + dataDir, "group.initial.rebalance.delay.ms=0"}
	for _, o := range opts {
		o(&overrides)
	}
	settings, _, err := config.Load("", overrides)
	if err != nil {
		t.Fatalf("karsttest: configuration: %v", err)
	}
	cfg, err := node.ConfigFrom(settings)
	if err != nil {
		t.Fatalf("karsttest: configuration: %v", err)
	}
	cfg.Logger = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: testLogLevel()}))
	if logTo != nil {
		cfg.Logger = slog.New(slog.NewTextHandler(logTo, &slog.HandlerOptions{Level: slog.LevelInfo}))
	}
	n, err := node.Start(cfg)
	if err != nil {
		t.Fatalf("karsttest: starting broker: %v", err)
	}
	b := &Broker{node: n, dataDir: dataDir}
	t.Cleanup(func() {
		if err := b.Stop(); err != nil {
			t.Errorf("karsttest: shutdown: %v", err)
		}
	})
	return b
}

// Stop shuts the broker down cleanly before the test ends, so that a test
// can start another on the same data directory (WithConfig("log.dirs",
// dir)); later calls, and the one at cleanup, return the first's result.
func (b *Broker) Stop() error {
	b.stop.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		b.stopErr = b.node.Shutdown(ctx)
	})
	return b.stopErr
}

// Addr is the broker's host:port.
func (b *Broker) Addr() string { return b.node.Addr("PLAINTEXT").String() }

// ListenerAddr is the bound host:port of a named listener (started with
// WithConfig("listeners", ...)), or "" when there is none.
func (b *Broker) ListenerAddr(name string) string {
	if addr := b.node.Addr(name); addr != nil {
		return addr.String()
	}
	return ""
}

// RequestsRead counts the requests the broker read from every connection.
func (b *Broker) RequestsRead() int64 { return b.node.Stats().Requests.Load() }

// AuthenticationsFailed counts connections whose authentication failed:
// a failed TLS handshake, an unmapped client certificate, a refused SASL
// login (wrong password, unknown mechanism). Re-authentications are not
// counted here but in ReauthenticationsFailed, as Kafka's
// failed-authentication and failed-reauthentication meters.
func (b *Broker) AuthenticationsFailed() int64 { return b.node.Stats().AuthenticationsFailed.Load() }

// ReauthenticationsFailed counts refused SASL re-authentications.
func (b *Broker) ReauthenticationsFailed() int64 {
	return b.node.Stats().ReauthenticationsFailed.Load()
}

// DataDir is the broker's data directory.
func (b *Broker) DataDir() string { return b.dataDir }

// PanicsRecovered counts handler panics the broker survived; tests that
// throw bad input at the broker assert it stays zero.
func (b *Broker) PanicsRecovered() int64 { return b.node.Stats().PanicsRecovered.Load() }

// testLogLevel is error unless KARST_TEST_LOG names another slog level
// (debug, info, warn), so tests that provoke warnings stay readable.
func testLogLevel() slog.Level {
	var l slog.Level
	if err := l.UnmarshalText([]byte(os.Getenv("KARST_TEST_LOG"))); err != nil {
		return slog.LevelError
	}
	return l
}

// MetricsURL is the Prometheus endpoint when the broker was started with
// WithConfig("karst.metrics.listener", "127.0.0.1:0"), else "".
func (b *Broker) MetricsURL() string {
	addr := b.node.MetricsAddr()
	if addr == nil {
		return ""
	}
	return "http://" + addr.String() + "/metrics"
}

// ConsoleURL is the web console's root when the broker was started with
// WithConfig("karst.console.listener", "127.0.0.1:0"), else "".
func (b *Broker) ConsoleURL() string { return b.node.ConsoleURL() }

// RequestsHandled counts requests that reached a handler; tests of
// authentication assert a refused client adds none.
func (b *Broker) RequestsHandled() int64 { return b.node.Stats().RequestsHandled.Load() }

// Authentications counts SASL authentications and re-authentications
// that succeeded.
func (b *Broker) Authentications() int64 { return b.node.Stats().Authentications.Load() }

// SessionsExpired counts connections closed because their SASL session
// ended (connections.max.reauth.ms or the credential's expiry) without a
// re-authentication.
func (b *Broker) SessionsExpired() int64 { return b.node.Stats().SessionsExpired.Load() }

// ReloadGroupPartition unloads one __consumer_offsets partition from the
// group coordinator and loads it again from its log, while the broker
// serves.
func (b *Broker) ReloadGroupPartition(partition int32) error {
	return b.node.ReloadGroupPartition(partition)
}

// ThrottledWaits counts the times a connection's reader waited out the mute
// of a client quota's throttle.
func (b *Broker) ThrottledWaits() int64 { return b.node.Stats().ThrottledWaits.Load() }
