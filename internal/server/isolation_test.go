package server_test

import (
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/karst-broker/karst/internal/server"
	"github.com/karst-broker/karst/karsttest"
)

// TestStalledConnectionsDoNotStallOthers opens connections that misbehave
// in the ways that could hold a naive server: one never reads its
// responses while pipelining thousands of requests, one announces a large
// frame and sends half of it, one sends half a size prefix. A well-behaved
// client must still be answered.
func TestStalledConnectionsDoNotStallOthers(t *testing.T) {
	b := karsttest.Start(t)

	nonReader := server.DialTest(t, b.Addr())
	var flood []byte
	for i := range 5000 {
		flood = append(flood, request(kmsg.NewPtrMetadataRequest(), 12, int32(i), "flood")...)
	}
	go nonReader.Write(flood) // blocks once both socket buffers are full

	halfFrame := server.DialTest(t, b.Addr())
	halfFrame.Write([]byte{0, 0x10, 0, 0})
	halfFrame.Write(make([]byte, 1<<19))

	halfPrefix := server.DialTest(t, b.Addr())
	halfPrefix.Write([]byte{0, 0})

	for i := range 20 {
		apiVersionsOK(t, server.DialTest(t, b.Addr()), int32(i))
	}
}
