package server

import (
	"context"
	"encoding/binary"
	"io"
	"log/slog"
	"net"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/karst-broker/karst/internal/handler"
)

// startTestServer serves cfg on a loopback port with a handler layer that
// has no storage: enough for ApiVersions and for requests that fail to
// decode.
func startTestServer(t *testing.T, cfg Config) (*Server, string) { return startBenchServer(t, cfg) }

func startBenchServer(t testing.TB, cfg Config) (*Server, string) {
	t.Helper()
	cfg.Listeners = []Listener{{Name: "PLAINTEXT", Addr: "127.0.0.1:0"}}
	cfg.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	s := New(cfg)
	if err := s.Listen(); err != nil {
		t.Fatal(err)
	}
	serveForTest(t, s)
	return s, s.Addr("PLAINTEXT").String()
}

// serveForTest serves s, which has listened, until the test ends.
func serveForTest(t testing.TB, s *Server) {
	s.Serve(handler.NewBroker(handler.Options{Logger: s.logger}))
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := s.Shutdown(ctx); err != nil {
			t.Errorf("shutdown: %v", err)
		}
	})
}

// DialTest is dialTest for the external test package (protocol_test.go).
var DialTest = dialTest

// WatchHostile, WatchUpTo, FinishWatch, MetadataV9Frame,
// MaxCollectionLength and FrameOf are watchHostile, watchUpTo,
// (*hostileWatch).finish, metadataV9Frame, maxCollectionLength and frameOf
// for the external test package.
var (
	WatchUpTo           = watchUpTo
	FrameOf             = frameOf
	WatchHostile        = watchHostile
	FinishWatch         = (*hostileWatch).finish
	MetadataV9Frame     = metadataV9Frame
	MaxCollectionLength = maxCollectionLength
)

// HeapPeak and HeapObjects are heapPeak and heapObjects for the external
// test package.
var (
	HeapPeak    = heapPeak
	HeapObjects = heapObjects
)

// dialTest opens a connection whose every read and write must finish
// within the test's deadline.
func dialTest(t testing.TB, addr string) net.Conn {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	c.SetDeadline(time.Now().Add(60 * time.Second))
	t.Cleanup(func() { c.Close() })
	return c
}

// encodeRequest frames req with a request header (v2 for flexible
// versions, else v1) and a size prefix.
func encodeRequest(req kmsg.Request, correlationID int32) []byte {
	var b []byte
	b = binary.BigEndian.AppendUint32(b, 0)
	b = binary.BigEndian.AppendUint16(b, uint16(req.Key()))
	b = binary.BigEndian.AppendUint16(b, uint16(req.GetVersion()))
	b = binary.BigEndian.AppendUint32(b, uint32(correlationID))
	b = binary.BigEndian.AppendUint16(b, 1)
	b = append(b, 't')
	if req.IsFlexible() {
		b = append(b, 0)
	}
	b = req.AppendTo(b)
	binary.BigEndian.PutUint32(b, uint32(len(b)-4))
	return b
}

// readResponse reads one response frame and returns its correlation id.
func readResponse(c net.Conn) (int32, error) {
	var size [4]byte
	if _, err := io.ReadFull(c, size[:]); err != nil {
		return 0, err
	}
	frame := make([]byte, binary.BigEndian.Uint32(size[:]))
	if _, err := io.ReadFull(c, frame); err != nil {
		return 0, err
	}
	if len(frame) < 4 {
		return 0, io.ErrUnexpectedEOF
	}
	return int32(binary.BigEndian.Uint32(frame)), nil
}

// apiVersions is a small valid request.
func apiVersions(correlationID int32) []byte {
	req := kmsg.NewPtrApiVersionsRequest()
	req.SetVersion(3)
	req.ClientSoftwareName, req.ClientSoftwareVersion = "karst-test", "1"
	return encodeRequest(req, correlationID)
}

// roundTrip sends frame and checks the answer carries its correlation id.
func roundTrip(t *testing.T, c net.Conn, frame []byte, correlationID int32) {
	t.Helper()
	if _, err := c.Write(frame); err != nil {
		t.Fatal(err)
	}
	got, err := readResponse(c)
	if err != nil {
		t.Fatal(err)
	}
	if got != correlationID {
		t.Fatalf("answer to correlation id %d, want %d", got, correlationID)
	}
}
