package server_test

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"io"
	"net"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/karst-broker/karst/internal/server"
	"github.com/karst-broker/karst/karsttest"
)

// readFrame reads one size-prefixed response frame.
func readFrame(t *testing.T, c net.Conn) []byte {
	t.Helper()
	return readFrameUpTo(t, c, 1<<20)
}

// readFrameUpTo reads one response frame of at most limit bytes.
func readFrameUpTo(t *testing.T, c net.Conn, limit uint32) []byte {
	t.Helper()
	var size [4]byte
	if _, err := io.ReadFull(c, size[:]); err != nil {
		t.Fatalf("reading response size: %v", err)
	}
	n := binary.BigEndian.Uint32(size[:])
	if n > limit {
		t.Fatalf("response size %d is implausible", n)
	}
	frame := make([]byte, n)
	if _, err := io.ReadFull(c, frame); err != nil {
		t.Fatalf("reading response body: %v", err)
	}
	return frame
}

// request encodes req with a request header v1/v2 and a size prefix.
func request(req kmsg.Request, version int16, correlationID int32, clientID string) []byte {
	req.SetVersion(version)
	var b []byte
	b = binary.BigEndian.AppendUint32(b, 0)
	b = binary.BigEndian.AppendUint16(b, uint16(req.Key()))
	b = binary.BigEndian.AppendUint16(b, uint16(version))
	b = binary.BigEndian.AppendUint32(b, uint32(correlationID))
	b = binary.BigEndian.AppendUint16(b, uint16(len(clientID)))
	b = append(b, clientID...)
	if req.IsFlexible() {
		b = append(b, 0)
	}
	b = req.AppendTo(b)
	binary.BigEndian.PutUint32(b, uint32(len(b)-4))
	return b
}

func correlationID(frame []byte) int32 { return int32(binary.BigEndian.Uint32(frame[:4])) }

// apiVersionsOK sends a valid ApiVersions v3 and checks the answer.
func apiVersionsOK(t *testing.T, c net.Conn, corr int32) {
	t.Helper()
	req := kmsg.NewPtrApiVersionsRequest()
	req.ClientSoftwareName, req.ClientSoftwareVersion = "karst-test", "1.0"
	if _, err := c.Write(request(req, 3, corr, "t")); err != nil {
		t.Fatal(err)
	}
	frame := readFrame(t, c)
	if got := correlationID(frame); got != corr {
		t.Fatalf("correlation id %d, want %d", got, corr)
	}
	resp := kmsg.NewPtrApiVersionsResponse()
	resp.SetVersion(3)
	if err := resp.ReadFrom(frame[4:]); err != nil {
		t.Fatalf("decoding ApiVersions v3 response: %v", err)
	}
	if resp.ErrorCode != 0 || len(resp.ApiKeys) == 0 {
		t.Fatalf("ApiVersions answered error %d with %d keys", resp.ErrorCode, len(resp.ApiKeys))
	}
}

// TestSeedApiVersionsUnsupportedVersion replays the exact exchange of the
// ApiVersions exercise: version 26442 must be answered with correlation id
// 1333056139 and error 35, in a v0 body that lists the supported ranges.
func TestSeedApiVersionsUnsupportedVersion(t *testing.T) {
	b := karsttest.Start(t)
	c := server.DialTest(t, b.Addr())
	raw, _ := hex.DecodeString("000000230012674a4f74d28b00096b61666b612d636c69000a6b61666b612d636c6904302e3100")
	if _, err := c.Write(raw); err != nil {
		t.Fatal(err)
	}
	frame := readFrame(t, c)
	want := []byte{0x4f, 0x74, 0xd2, 0x8b, 0x00, 0x23}
	if !bytes.Equal(frame[:6], want) {
		t.Fatalf("response starts % x, want % x", frame[:6], want)
	}
	resp := kmsg.NewPtrApiVersionsResponse()
	resp.SetVersion(0)
	if err := resp.ReadFrom(frame[4:]); err != nil {
		t.Fatalf("response body is not an ApiVersions v0 body: %v", err)
	}
	var sawAPIVersions bool
	for _, k := range resp.ApiKeys {
		if k.ApiKey == 18 && k.MinVersion == 0 && k.MaxVersion == 5 {
			sawAPIVersions = true
		}
	}
	if !sawAPIVersions {
		t.Fatalf("v0 body does not list ApiVersions 0-5: %+v", resp.ApiKeys)
	}
	if rest := len(frame) - 4 - 2 - 4 - len(resp.ApiKeys)*6; rest != 0 {
		t.Fatalf("v0 body has %d stray bytes", rest)
	}
	apiVersionsOK(t, c, 7)
}

// TestApiVersionsV5ServedV6Refused: v5 (KIP-1242) is answered at v5; v6,
// one past it, gets the v0 body with UNSUPPORTED_VERSION and the table.
func TestApiVersionsV5ServedV6Refused(t *testing.T) {
	b := karsttest.Start(t)
	c := server.DialTest(t, b.Addr())
	for _, tc := range []struct {
		version, answered int16
		wantErr           int16
	}{{5, 5, 0}, {6, 0, kerr.UnsupportedVersion.Code}} {
		req := kmsg.NewPtrApiVersionsRequest()
		req.ClientSoftwareName, req.ClientSoftwareVersion = "karst-test", "1.0"
		if _, err := c.Write(request(req, tc.version, int32(tc.version), "t")); err != nil {
			t.Fatal(err)
		}
		frame := readFrame(t, c)
		resp := kmsg.NewPtrApiVersionsResponse()
		resp.SetVersion(tc.answered)
		if err := resp.ReadFrom(frame[4:]); err != nil {
			t.Fatalf("v%d: answer is not an ApiVersions v%d body: %v", tc.version, tc.answered, err)
		}
		if resp.ErrorCode != tc.wantErr || len(resp.ApiKeys) == 0 {
			t.Fatalf("v%d: error %d with %d keys, want error %d and the table", tc.version, resp.ErrorCode, len(resp.ApiKeys), tc.wantErr)
		}
	}
}

func TestPipelinedRequestsAnsweredInOrder(t *testing.T) {
	b := karsttest.Start(t)
	c := server.DialTest(t, b.Addr())
	var batch []byte
	for i := range 100 {
		var req kmsg.Request
		if i%2 == 0 {
			req = kmsg.NewPtrMetadataRequest()
			batch = append(batch, request(req, 12, int32(1000+i), "pipeline")...)
		} else {
			req = kmsg.NewPtrApiVersionsRequest()
			batch = append(batch, request(req, 0, int32(1000+i), "pipeline")...)
		}
	}
	if _, err := c.Write(batch); err != nil {
		t.Fatal(err)
	}
	for i := range 100 {
		if got := correlationID(readFrame(t, c)); got != int32(1000+i) {
			t.Fatalf("response %d has correlation id %d, want %d", i, got, 1000+i)
		}
	}
}

func TestRequestSplitAcrossWrites(t *testing.T) {
	b := karsttest.Start(t)
	c := server.DialTest(t, b.Addr())
	req := kmsg.NewPtrApiVersionsRequest()
	req.ClientSoftwareName, req.ClientSoftwareVersion = "split", "1"
	frame := request(req, 3, 42, "split-writer")
	pieces := [][]byte{frame[:2], frame[2:9], frame[9:]}
	for _, p := range pieces {
		if _, err := c.Write(p); err != nil {
			t.Fatal(err)
		}
		// The pause is the stimulus (separate TCP segments), not a wait.
		time.Sleep(30 * time.Millisecond)
	}
	if got := correlationID(readFrame(t, c)); got != 42 {
		t.Fatalf("correlation id %d, want 42", got)
	}
}

func TestThousandConcurrentConnectionsNegotiate(t *testing.T) {
	b := karsttest.Start(t)
	const n = 1000
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, err := net.DialTimeout("tcp", b.Addr(), 10*time.Second)
			if err != nil {
				errs <- err
				return
			}
			defer c.Close()
			c.SetDeadline(time.Now().Add(30 * time.Second))
			req := kmsg.NewPtrApiVersionsRequest()
			req.ClientSoftwareName, req.ClientSoftwareVersion = "conc", "1"
			if _, err := c.Write(request(req, 3, int32(i), "conc")); err != nil {
				errs <- err
				return
			}
			var size [4]byte
			if _, err := io.ReadFull(c, size[:]); err != nil {
				errs <- err
				return
			}
			body := make([]byte, binary.BigEndian.Uint32(size[:]))
			if _, err := io.ReadFull(c, body); err != nil {
				errs <- err
				return
			}
			resp := kmsg.NewPtrApiVersionsResponse()
			resp.SetVersion(3)
			if err := resp.ReadFrom(body[4:]); err != nil || correlationID(body) != int32(i) || resp.ErrorCode != 0 {
				errs <- fmt.Errorf("connection %d: bad answer (err %v, code %d)", i, err, resp.ErrorCode)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

func rssBytes(t *testing.T) int64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Skip("no /proc/self/status on this system")
	}
	for _, line := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(line, "VmRSS:") {
			kb, _ := strconv.ParseInt(strings.Fields(line)[1], 10, 64)
			return kb * 1024
		}
	}
	t.Fatal("VmRSS missing")
	return 0
}

func TestHugeSizePrefixRefusedWithoutAllocating(t *testing.T) {
	b := karsttest.Start(t)
	runtime.GC()
	before := rssBytes(t)
	for _, prefix := range [][]byte{{0x80, 0, 0, 0}, {0x7f, 0xff, 0xff, 0xff}, {0x06, 0x40, 0x00, 0x01}} {
		c := server.DialTest(t, b.Addr())
		if _, err := c.Write(prefix); err != nil {
			t.Fatal(err)
		}
		if n, err := c.Read(make([]byte, 1)); err != io.EOF {
			t.Fatalf("size prefix % x: connection not closed (read %d, %v)", prefix, n, err)
		}
	}
	// A large but legal size with no bytes behind it must not reserve it.
	legal := server.DialTest(t, b.Addr())
	legal.Write([]byte{0x05, 0xff, 0xff, 0xff})       // ~96 MiB announced, nothing sent
	apiVersionsOK(t, server.DialTest(t, b.Addr()), 1) // proves the server got past the prefix
	runtime.GC()
	if grown := rssBytes(t) - before; grown > 32<<20 {
		t.Fatalf("RSS grew by %d bytes after refused size prefixes", grown)
	}
}

func TestUnknownAPIAndUnsupportedVersionKeepConnection(t *testing.T) {
	b := karsttest.Start(t)
	c := server.DialTest(t, b.Addr())
	// API key 9999: not an API at all.
	unknown := []byte{0, 0, 0, 10, 0x27, 0x0f, 0, 0, 0, 0, 0, 5, 0xff, 0xff}
	// Metadata v99: a known API at a version no one serves.
	unsupported := []byte{0, 0, 0, 10, 0, 3, 0, 99, 0, 0, 0, 6, 0xff, 0xff}
	for _, tc := range []struct {
		frame []byte
		corr  int32
	}{{unknown, 5}, {unsupported, 6}} {
		if _, err := c.Write(tc.frame); err != nil {
			t.Fatal(err)
		}
		frame := readFrame(t, c)
		if correlationID(frame) != tc.corr || binary.BigEndian.Uint16(frame[4:6]) != 35 {
			t.Fatalf("answer % x: want correlation id %d and error 35", frame, tc.corr)
		}
	}
	apiVersionsOK(t, c, 8)
}

func TestUndecodableBodyAnsweredWithInvalidRequest(t *testing.T) {
	b := karsttest.Start(t)
	c := server.DialTest(t, b.Addr())
	// Metadata v4 whose topic array claims 1,000 entries in 1 byte.
	frame := []byte{0, 0, 0, 15, 0, 3, 0, 4, 0, 0, 0, 9, 0xff, 0xff, 0, 0, 0x03, 0xe8, 1}
	if _, err := c.Write(frame); err != nil {
		t.Fatal(err)
	}
	resp := readFrame(t, c)
	if correlationID(resp) != 9 {
		t.Fatalf("correlation id %d, want 9", correlationID(resp))
	}
	md := kmsg.NewPtrMetadataResponse()
	md.SetVersion(4)
	if err := md.ReadFrom(resp[4:]); err != nil {
		t.Fatalf("error answer is not a Metadata v4 body: %v", err)
	}
	apiVersionsOK(t, c, 10)
	if b.PanicsRecovered() != 0 {
		t.Fatal("a handler panicked")
	}
}

func TestFrameShorterThanCorrelationIDAnsweredWithZero(t *testing.T) {
	b := karsttest.Start(t)
	c := server.DialTest(t, b.Addr())
	if _, err := c.Write([]byte{0, 0, 0, 3, 0, 18, 0}); err != nil {
		t.Fatal(err)
	}
	frame := readFrame(t, c)
	if correlationID(frame) != 0 {
		t.Fatalf("correlation id %d, want 0", correlationID(frame))
	}
	if _, err := c.Read(make([]byte, 1)); err != io.EOF {
		t.Fatalf("connection stayed open after a short frame: %v", err)
	}
}
