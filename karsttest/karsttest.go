// Package karsttest starts a real Karst broker inside a Go test: on a random
// 127.0.0.1 port, with its data in the test's temporary directory, stopped
// when the test ends. Unlike a fake, it is the same broker the binary runs.
//
//	b := karsttest.Start(t)
//	client, _ := kgo.NewClient(kgo.SeedBrokers(b.Addr()))
package karsttest

import (
	"context"
	"log/slog"
	"os"
	"testing"
	"time"

	"github.com/karst-broker/karst/internal/handler"
	klog "github.com/karst-broker/karst/internal/log"
	"github.com/karst-broker/karst/internal/node"
	"github.com/karst-broker/karst/internal/server"
)

// Broker is a running in-process Karst.
type Broker struct {
	node    *node.Node
	dataDir string
}

// Option changes how the broker starts.
type Option func(*node.Config)

// WithMaxRequestSize sets socket.request.max.bytes.
func WithMaxRequestSize(n int32) Option {
	return func(c *node.Config) { c.MaxRequestSize = n }
}

// WithAutoCreateTopics sets auto.create.topics.enable (on by default, as
// in Kafka).
func WithAutoCreateTopics(on bool) Option {
	return func(c *node.Config) { c.AutoCreateTopics = on }
}

// WithDefaultPartitions sets num.partitions.
func WithDefaultPartitions(n int32) Option {
	return func(c *node.Config) { c.DefaultPartitions = n }
}

// Start starts a broker and registers its shutdown with t.Cleanup.
func Start(t testing.TB, opts ...Option) *Broker {
	t.Helper()
	dataDir := t.TempDir()
	cfg := node.Config{
		NodeID:                   1,
		DataDir:                  dataDir,
		AutoCreateTopics:         true,
		DefaultPartitions:        1,
		DefaultReplicationFactor: 1,
		LogDefaults:              klog.DefaultConfig(),
		Listeners:                []server.Listener{{Name: "PLAINTEXT", Addr: "127.0.0.1:0"}},
		Advertised:               []handler.Endpoint{{ListenerName: "PLAINTEXT", Host: "127.0.0.1", SecurityProtocol: "PLAINTEXT"}},
		Logger:                   slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: testLogLevel()})),
	}
	for _, o := range opts {
		o(&cfg)
	}
	n, err := node.Start(cfg)
	if err != nil {
		t.Fatalf("karsttest: starting broker: %v", err)
	}
	b := &Broker{node: n, dataDir: dataDir}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := n.Shutdown(ctx); err != nil {
			t.Errorf("karsttest: shutdown: %v", err)
		}
	})
	return b
}

// Addr is the broker's host:port.
func (b *Broker) Addr() string { return b.node.Addr("PLAINTEXT").String() }

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
