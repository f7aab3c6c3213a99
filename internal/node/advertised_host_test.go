package node

import (
	"context"
	"net"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// TestAListenerOnEveryInterfaceAdvertisesTheHostName: with no host in
// listeners (the embedded default), Metadata names this machine as Kafka
// does, by its host name when that resolves, so clients elsewhere can
// follow it; 127.0.0.1 only when the name does not resolve.
func TestAListenerOnEveryInterfaceAdvertisesTheHostName(t *testing.T) {
	n, seed := startTestNode(t, t.TempDir(), "listeners=PLAINTEXT://:0")
	defer stopTestNode(t, n, seed)
	_, port, err := net.SplitHostPort(n.Addr("PLAINTEXT").String())
	if err != nil {
		t.Fatal(err)
	}
	cl, err := kgo.NewClient(kgo.SeedBrokers("127.0.0.1:" + port))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	resp, err := kmsg.NewPtrMetadataRequest().RequestWith(ctx, cl)
	if err != nil {
		t.Fatal(err)
	}
	want := "127.0.0.1"
	if name, err := os.Hostname(); err == nil {
		if addrs, err := net.LookupHost(name); err == nil && len(addrs) > 0 {
			want = name
		}
	}
	if len(resp.Brokers) != 1 || resp.Brokers[0].Host != want || port != strconv.Itoa(int(resp.Brokers[0].Port)) {
		t.Fatalf("advertised %+v, want host %s port %s", resp.Brokers, want, port)
	}
}
