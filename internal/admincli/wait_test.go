package admincli

import (
	"bytes"
	"context"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/karst-broker/karst/karsttest"
)

// TestCommandsWaitForABrokerStillStarting: as Kafka's tools do, a command
// whose bootstrap server refuses connections keeps trying within
// --timeout, so `karst serve &` followed at once by a command works; past
// --timeout it fails with the dial error.
func TestCommandsWaitForABrokerStillStarting(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close() // nothing listens there now: dials are refused

	run := func(args ...string) (int, string) {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		var out, errOut bytes.Buffer
		status := commandNamed(t, args[0]).Run(ctx, append(args[1:], "--bootstrap-server", addr),
			Streams{In: strings.NewReader(""), Out: &out, Err: &errOut})
		return status, out.String() + errOut.String()
	}
	if status, out := run("topic", "list", "--timeout", "300ms"); status != 1 || !strings.Contains(out, "connection refused") {
		t.Fatalf("no broker, --timeout 300ms: exit %d\n%s", status, out)
	}

	done := make(chan struct{})
	var status int
	var out string
	go func() {
		defer close(done)
		status, out = run("topic", "create", "late", "--partitions", "2")
	}()
	karsttest.Start(t, karsttest.WithConfig("listeners", "PLAINTEXT://"+addr))
	<-done
	if status != 0 || !strings.Contains(out, "late") {
		t.Fatalf("topic create before the broker listened: exit %d\n%s", status, out)
	}
}
