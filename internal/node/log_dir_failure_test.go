package node

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/karst-broker/karst/internal/config"
	klog "github.com/karst-broker/karst/internal/log"
)

// errorMessages is a slog handler keeping the messages logged at ERROR.
type errorMessages struct {
	mu   *sync.Mutex
	msgs *[]string
}

func newErrorMessages() errorMessages { return errorMessages{mu: &sync.Mutex{}, msgs: new([]string)} }

func (h errorMessages) Enabled(_ context.Context, l slog.Level) bool { return l >= slog.LevelError }
func (h errorMessages) WithAttrs([]slog.Attr) slog.Handler           { return h }
func (h errorMessages) WithGroup(string) slog.Handler                { return h }
func (h errorMessages) Handle(_ context.Context, r slog.Record) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	*h.msgs = append(*h.msgs, r.Message)
	return nil
}

func (h errorMessages) all() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]string(nil), *h.msgs...)
}

// configOn is a broker's configuration with its log dir at dataDir, on
// 127.0.0.1.
func configOn(t *testing.T, dataDir string, logs slog.Handler) Config {
	t.Helper()
	settings, _, err := config.Load("", []string{"listeners=PLAINTEXT://127.0.0.1:0", "log.dirs=" + dataDir})
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := ConfigFrom(settings)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Logger = slog.New(logs)
	return cfg
}

// startOn starts a broker on dataDir, shut down when the test ends.
func startOn(t *testing.T, dataDir string, logs slog.Handler) *Node {
	t.Helper()
	n, err := Start(configOn(t, dataDir, logs))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = n.Shutdown(ctx)
	})
	return n
}

// The broker's only log dir fails: on a 2 MiB tmpfs that producing fills
// where the test may mount one, else by the logs' report of a failed
// write. Either way the broker logs why at ERROR, closes its listener,
// leaves no clean-shutdown marker and reports the failure, as Kafka shuts
// down when all its log dirs have failed.
func TestBrokerShutsDownWhenItsLogDirFails(t *testing.T) {
	dataDir := t.TempDir()
	mountErr := syscall.Mount("tmpfs", dataDir, "tmpfs", 0, "size=2m")
	if mountErr == nil {
		t.Cleanup(func() {
			if err := syscall.Unmount(dataDir, 0); err != nil {
				t.Errorf("unmounting %s: %v", dataDir, err)
			}
		})
	} else {
		t.Logf("no tmpfs (%v): the failure is reported as the logs report it", mountErr)
	}
	logs := newErrorMessages()
	n := startOn(t, dataDir, logs)
	addr := n.Addr("PLAINTEXT").String()

	acked := int64(0)
	if mountErr == nil {
		acked = fill(t, n, addr)
	} else {
		n.dirFailures.MaybeAddOfflineLogDir(filepath.Clean(dataDir), "Error while appending in dir "+dataDir, syscall.ENOSPC)
	}
	select {
	case <-n.Failed():
	case <-time.After(20 * time.Second):
		t.Fatalf("the broker did not stop after its log dir failed; its errors: %q", logs.all())
	}
	if err := n.Failure(); err == nil || !strings.Contains(err.Error(), syscall.ENOSPC.Error()) {
		t.Fatalf("failure %v, want the log dir's ENOSPC", err)
	}
	want := fmt.Sprintf("Shutdown broker because all log dirs in %s have failed", dataDir)
	if msgs := logs.all(); !slices.Contains(msgs, want) {
		t.Fatalf("no ERROR %q in the broker's log: %q", want, msgs)
	}
	if c, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
		c.Close()
		t.Fatal("the listener still accepts after the shutdown")
	}
	if _, err := os.Stat(filepath.Join(dataDir, klog.CleanShutdownFile)); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("clean-shutdown marker after a log dir failure: %v", err)
	}
	if mountErr == nil {
		restartAfterTheDiskFilled(t, dataDir, acked)
	}
}

// restartAfterTheDiskFilled starts the broker again on its full log dir,
// which must fail with an error or start (it died of SIGBUS rebuilding
// an index), then once the filesystem has room, when every acknowledged
// record must be there.
func restartAfterTheDiskFilled(t *testing.T, dataDir string, acked int64) {
	if n, err := Start(configOn(t, dataDir, newErrorMessages())); err == nil {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		_ = n.Shutdown(ctx)
		cancel()
	} else {
		t.Logf("start on the full disk: %v", err)
	}
	if err := syscall.Mount("tmpfs", dataDir, "tmpfs", syscall.MS_REMOUNT, "size=8m"); err != nil {
		t.Fatalf("growing the tmpfs: %v", err)
	}
	n := startOn(t, dataDir, newErrorMessages())
	cl, err := kgo.NewClient(kgo.SeedBrokers(n.Addr("PLAINTEXT").String()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	ends, err := kadm.NewClient(cl).ListEndOffsets(ctx, "fill")
	if err != nil {
		t.Fatal(err)
	}
	if end, _ := ends.Lookup("fill", 0); end.Err != nil || end.Offset < acked {
		t.Fatalf("end offset %+v after the restart, %d records acknowledged", end, acked)
	}
}

// fill produces 4 KiB records until the broker refuses them or stops and
// returns how many were acknowledged.
func fill(t *testing.T, n *Node, addr string) (acked int64) {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(addr), kgo.AllowAutoTopicCreation(), kgo.DefaultProduceTopic("fill"),
		kgo.RecordRetries(0), kgo.RequestRetries(0), kgo.RecordDeliveryTimeout(10*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	deadline := time.After(60 * time.Second)
	value := make([]byte, 4096) // random, so that compression keeps it 4 KiB
	for i := 0; i < 2000; i++ {
		_, _ = rand.Read(value)
		done := make(chan error, 1)
		cl.Produce(context.Background(), &kgo.Record{Value: value}, func(_ *kgo.Record, err error) { done <- err })
		// Not ProduceSync: a produce in flight when the broker stops can
		// wait in the client past its context.
		select {
		case err := <-done:
			if err != nil {
				t.Logf("record %d: %v", i, err)
			} else {
				acked++
			}
		case <-n.Failed():
			return acked
		case <-deadline:
			t.Fatal("producing: no answer and no failure in 60 s")
		}
	}
	return acked
}
