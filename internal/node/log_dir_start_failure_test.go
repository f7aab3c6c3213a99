package node

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	klog "github.com/karst-broker/karst/internal/log"
)

// A malformed checkpoint file found at start fails the log dir as Kafka's
// CheckpointFileWithFailureHandler does, and with one log dir the broker
// stops through the log-dir failure path: Kafka's "Shutdown broker
// because all log dirs in ... have failed" at ERROR, and Start fails (the
// process exits non-zero). Until 2026-12-02 a garbage
// leader-epoch-checkpoint was rebuilt with a WARN and served, and a
// garbage recovery-point-offset-checkpoint stopped the start with an
// error of its own.
func TestMalformedCheckpointAtStartFailsTheOnlyLogDir(t *testing.T) {
	for _, file := range []string{
		filepath.Join("orders-0", klog.LeaderEpochCheckpointFile),
		klog.RecoveryPointCheckpointFile,
		klog.LogStartOffsetCheckpointFile,
		klog.ReplicationCheckpointFile,
	} {
		t.Run(filepath.Base(file), func(t *testing.T) {
			dir := t.TempDir()
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			n, cl, _ := startWithOrders(ctx, t, dir)
			if err := cl.ProduceSync(ctx, &kgo.Record{Topic: "orders", Value: []byte("v")}).FirstErr(); err != nil {
				t.Fatal(err)
			}
			stopTestNode(t, n, cl)
			if err := os.WriteFile(filepath.Join(dir, file), []byte("0\n2\nnot a line\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			logs := newErrorMessages()
			n, err := Start(configOn(t, dir, logs))
			if err == nil {
				_ = n.Shutdown(ctx)
				t.Fatalf("the broker started over a malformed %s", file)
			}
			want := fmt.Sprintf("Shutdown broker because all log dirs in %s have failed", dir)
			if !strings.Contains(err.Error(), want) {
				t.Fatalf("start: %v, want %q", err, want)
			}
			msgs := logs.all()
			if !slices.Contains(msgs, want) {
				t.Fatalf("no ERROR %q: %q", want, msgs)
			}
			if !slices.ContainsFunc(msgs, func(m string) bool { return strings.HasPrefix(m, "Error while reading checkpoint file ") }) {
				t.Fatalf("no ERROR naming the checkpoint file: %q", msgs)
			}
			// The lock is released: a fixed dir starts again.
			if err := os.Remove(filepath.Join(dir, file)); err != nil {
				t.Fatal(err)
			}
			n2 := startOn(t, dir, newErrorMessages())
			_ = n2
		})
	}
}

// A partition log that fails to open at start (its segment file cannot be
// opened: a directory stands in its place) goes through the same log-dir
// failure path as a failure at run time; until 2026-12-02 Start failed
// with the open error alone.
func TestPartitionThatFailsToOpenAtStartFailsTheLogDir(t *testing.T) {
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	n, cl, _ := startWithOrders(ctx, t, dir)
	stopTestNode(t, n, cl)
	segment := filepath.Join(dir, "orders-0", "00000000000000000000.log")
	if err := os.Remove(segment); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(segment, 0o755); err != nil {
		t.Fatal(err)
	}
	logs := newErrorMessages()
	n, err := Start(configOn(t, dir, logs))
	if err == nil {
		_ = n.Shutdown(ctx)
		t.Fatal("the broker started with a partition it cannot open")
	}
	want := fmt.Sprintf("Shutdown broker because all log dirs in %s have failed", dir)
	if msgs := logs.all(); !slices.Contains(msgs, want) || !slices.Contains(msgs, "Error while loading log dir "+dir) {
		t.Fatalf("start: %v; errors logged %q, want %q and Kafka's load error", err, msgs, want)
	}
}
