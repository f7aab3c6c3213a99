package server_test

import (
	"io"
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/karst-broker/karst/internal/server"
	"github.com/karst-broker/karst/karsttest"
)

// TestFailedAcksZeroProduceClosesTheConnection: an acks=0 produce gets no
// answer; when it fails (here an unknown topic) Kafka closes the
// connection so the producer refreshes its metadata, after the answers to
// the requests before it. A successful one keeps the connection.
func TestFailedAcksZeroProduceClosesTheConnection(t *testing.T) {
	b := karsttest.Start(t, karsttest.WithConfig("auto.create.topics.enable", "false"))
	acksZero := func(topic string) []byte {
		req := kmsg.NewPtrProduceRequest()
		req.SetVersion(9)
		req.Acks, req.TimeoutMillis = 0, 5000
		rt := kmsg.NewProduceRequestTopic()
		rt.Topic = topic
		rp := kmsg.NewProduceRequestTopicPartition()
		rt.Partitions = append(rt.Partitions, rp)
		req.Topics = append(req.Topics, rt)
		return rawRequest(0, 9, 5, true, req.AppendTo(nil)...)
	}
	c := server.DialTest(t, b.Addr())
	apiVersionsOK(t, c, 4)
	if _, err := c.Write(acksZero("missing")); err != nil {
		t.Fatal(err)
	}
	if n, err := c.Read(make([]byte, 64)); err != io.EOF {
		t.Fatalf("read %d bytes, %v; want the connection closed", n, err)
	}
	// An empty acks=0 produce fails no partition: the connection stays.
	ok := server.DialTest(t, b.Addr())
	if _, err := ok.Write(rawRequest(0, 9, 6, true, func() []byte {
		req := kmsg.NewPtrProduceRequest()
		req.SetVersion(9)
		req.Acks, req.TimeoutMillis = 0, 5000
		return req.AppendTo(nil)
	}()...)); err != nil {
		t.Fatal(err)
	}
	apiVersionsOK(t, ok, 7)
}
