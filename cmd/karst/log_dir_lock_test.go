package main

import (
	"context"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/karst-broker/karst/karsttest"
)

// TestSecondProcessOnALogDirRefusesToStart runs the binary on the log dir
// of a running broker: it must exit with status 1 naming the dir's lock,
// and the first broker must go on acknowledging writes.
func TestSecondProcessOnALogDirRefusesToStart(t *testing.T) {
	bin := buildBinary(t)
	b := karsttest.Start(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()

	second, stop := context.WithTimeout(ctx, 30*time.Second)
	out, err := exec.CommandContext(second, bin, "serve",
		"--override", "listeners=PLAINTEXT://127.0.0.1:0",
		"--override", "log.dirs="+b.DataDir()).CombinedOutput()
	stop()
	if code := exitCode(err); code != 1 {
		t.Fatalf("second karst on %s: exit %d, want 1\n%s", b.DataDir(), code, out)
	}
	want := "failed to acquire lock on file .lock in " + b.DataDir()
	if !strings.Contains(string(out), want) {
		t.Fatalf("second karst's output does not say %q:\n%s", want, out)
	}

	cl, err := kgo.NewClient(kgo.SeedBrokers(b.Addr()), kgo.DefaultProduceTopic("still-serving"))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	if _, err := kadm.NewClient(cl).CreateTopic(ctx, 1, 1, nil, "still-serving"); err != nil {
		t.Fatal(err)
	}
	if err := cl.ProduceSync(ctx, &kgo.Record{Value: []byte("after the second start")}).FirstErr(); err != nil {
		t.Fatalf("the first broker stopped acknowledging writes: %v", err)
	}
}
