package bench

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// maxResponseFrame bounds what a raw connection will read for one response:
// an ApiVersions response is a few KiB, so anything near this is garbage.
const maxResponseFrame = 1 << 20

// corrIDOffset is where the correlation id sits in an encoded request:
// after the size (4), api key (2) and api version (2).
const corrIDOffset = 8

// apiVersionsRequest encodes one ApiVersions request of the given version
// with correlation id 0; patchCorrelationID sets the id of a copy.
func apiVersionsRequest(version int16) []byte {
	req := kmsg.NewPtrApiVersionsRequest()
	req.Version = version
	req.ClientSoftwareName = "karst-bench"
	req.ClientSoftwareVersion = "1"
	return kmsg.NewRequestFormatter(kmsg.FormatterClientID("karst-bench")).AppendRequest(nil, req, 0)
}

func patchCorrelationID(req []byte, id int32) {
	binary.BigEndian.PutUint32(req[corrIDOffset:], uint32(id))
}

// readFrame reads one size-prefixed frame into buf (grown if needed) and
// returns it without the size. It refuses sizes outside [4, max].
func readFrame(r io.Reader, buf []byte, max int) ([]byte, error) {
	var size [4]byte
	if _, err := io.ReadFull(r, size[:]); err != nil {
		return nil, err
	}
	n := int32(binary.BigEndian.Uint32(size[:]))
	if n < 4 || int(n) > max {
		return nil, fmt.Errorf("bench: response frame of %d bytes (want 4..%d)", n, max)
	}
	if cap(buf) < int(n) {
		buf = make([]byte, n)
	}
	buf = buf[:n]
	if _, err := io.ReadFull(r, buf); err != nil {
		return nil, err
	}
	return buf, nil
}

// apiVersionsHead returns the correlation id and error code of an
// ApiVersions response frame (size already removed). ApiVersions responses
// always use header v0 (no tagged fields), whatever the body version, so
// the error code is at bytes 4..6.
func apiVersionsHead(frame []byte) (corrID int32, errCode int16, err error) {
	if len(frame) < 6 {
		return 0, 0, fmt.Errorf("bench: ApiVersions response of %d bytes is too short", len(frame))
	}
	return int32(binary.BigEndian.Uint32(frame)), int16(binary.BigEndian.Uint16(frame[4:])), nil
}

// decodeAPIVersions fully decodes an ApiVersions response frame, to check
// once per connection that the broker answers something well-formed.
func decodeAPIVersions(frame []byte, version int16) (*kmsg.ApiVersionsResponse, error) {
	if len(frame) < 4 {
		return nil, errors.New("bench: ApiVersions response without header")
	}
	resp := kmsg.NewPtrApiVersionsResponse()
	resp.Version = version
	if err := resp.ReadFrom(frame[4:]); err != nil {
		return nil, fmt.Errorf("bench: decoding ApiVersions v%d response: %w", version, err)
	}
	return resp, nil
}

// rawConn is one TCP connection that speaks just enough Kafka to send
// ApiVersions: no client library between the benchmark and the socket.
type rawConn struct {
	conn net.Conn
	r    *bufio.Reader
	buf  []byte
}

func dialRaw(ctx context.Context, addr string) (*rawConn, error) {
	c, err := dial(ctx, addr)
	if err != nil {
		return nil, err
	}
	return &rawConn{conn: c, r: bufio.NewReaderSize(c, 64<<10)}, nil
}

// roundTrip sends one ApiVersions request and checks its answer fully.
func (rc *rawConn) roundTrip(req []byte, version int16, id int32) error {
	patchCorrelationID(req, id)
	if _, err := rc.conn.Write(req); err != nil {
		return err
	}
	frame, err := readFrame(rc.r, rc.buf, maxResponseFrame)
	if err != nil {
		return err
	}
	rc.buf = frame[:0]
	corr, code, err := apiVersionsHead(frame)
	if err != nil {
		return err
	}
	if corr != id {
		return fmt.Errorf("bench: correlation id %d, want %d", corr, id)
	}
	if code != 0 {
		return fmt.Errorf("bench: ApiVersions error code %d", code)
	}
	resp, err := decodeAPIVersions(frame, version)
	if err != nil {
		return err
	}
	if len(resp.ApiKeys) == 0 {
		return errors.New("bench: ApiVersions response lists no APIs")
	}
	return nil
}

func (rc *rawConn) Close() error { return rc.conn.Close() }
