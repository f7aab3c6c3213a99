package main

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// requestTimeout bounds one request's round trip; a broker that answers nothing within it is
// recorded as "no response" rather than stalling the comparison.
const requestTimeout = 15 * time.Second

// brokerConn is one raw Kafka connection: requests are encoded by kmsg and written with the
// request header their version calls for, responses are read back in order. It reconnects after
// the broker closes the connection, which is itself an outcome worth comparing.
type brokerConn struct {
	addr          string
	clientID      string
	user, secret  string // SASL/PLAIN credentials, logged in with at every connect; none when user is empty
	conn          net.Conn
	reader        *bufio.Reader
	correlationID int32
}

func newBrokerConn(addr string) *brokerConn {
	return &brokerConn{addr: addr, clientID: "karst-differential"}
}

func (c *brokerConn) close() {
	if c.conn != nil {
		_ = c.conn.Close()
		c.conn = nil
	}
}

// errClosed is the outcome of a request the broker answered by closing the connection.
var errClosed = errors.New("connection closed by broker")

// errNoResponse is the outcome of a request that got no answer within requestTimeout.
var errNoResponse = errors.New("no response")

// roundTrip sends req and decodes its response. A nil response comes with errClosed,
// errNoResponse or a decoding error.
func (c *brokerConn) roundTrip(req kmsg.Request) (kmsg.Response, error) {
	if c.conn == nil {
		if err := c.connect(); err != nil {
			return nil, err
		}
	}
	return c.exchange(req)
}

// connect dials the broker and, with credentials, logs in with SaslHandshake v1 and
// SaslAuthenticate v2 (PLAIN), as a Java client on a SASL_PLAINTEXT listener does.
func (c *brokerConn) connect() error {
	conn, err := net.DialTimeout("tcp", c.addr, requestTimeout)
	if err != nil {
		return fmt.Errorf("dial %s: %w", c.addr, err)
	}
	c.conn, c.reader = conn, bufio.NewReader(conn)
	if c.user == "" {
		return nil
	}
	hs := kmsg.NewPtrSASLHandshakeRequest()
	hs.SetVersion(1)
	hs.Mechanism = "PLAIN"
	resp, err := c.exchange(hs)
	if err != nil {
		return fmt.Errorf("SaslHandshake on %s: %w", c.addr, err)
	}
	if code := resp.(*kmsg.SASLHandshakeResponse).ErrorCode; code != 0 {
		c.close()
		return fmt.Errorf("SaslHandshake on %s: error %d", c.addr, code)
	}
	auth := kmsg.NewPtrSASLAuthenticateRequest()
	auth.SetVersion(2)
	auth.SASLAuthBytes = []byte("\x00" + c.user + "\x00" + c.secret)
	if resp, err = c.exchange(auth); err != nil {
		return fmt.Errorf("SaslAuthenticate on %s: %w", c.addr, err)
	}
	if code := resp.(*kmsg.SASLAuthenticateResponse).ErrorCode; code != 0 {
		c.close()
		return fmt.Errorf("SaslAuthenticate on %s as %s: error %d", c.addr, c.user, code)
	}
	return nil
}

// exchange writes req on the open connection and reads its response.
func (c *brokerConn) exchange(req kmsg.Request) (kmsg.Response, error) {
	c.correlationID++
	frame := c.encode(req)
	_ = c.conn.SetDeadline(time.Now().Add(requestTimeout))
	if _, err := c.conn.Write(frame); err != nil {
		c.close()
		return nil, errClosed
	}
	body, err := c.readFrame()
	if err != nil {
		c.close()
		var netErr net.Error
		if errors.As(err, &netErr) && netErr.Timeout() {
			return nil, errNoResponse
		}
		return nil, errClosed
	}
	return c.decode(req, body)
}

func (c *brokerConn) encode(req kmsg.Request) []byte {
	frame := make([]byte, 4, 256)
	frame = binary.BigEndian.AppendUint16(frame, uint16(req.Key()))
	frame = binary.BigEndian.AppendUint16(frame, uint16(req.GetVersion()))
	frame = binary.BigEndian.AppendUint32(frame, uint32(c.correlationID))
	frame = binary.BigEndian.AppendUint16(frame, uint16(len(c.clientID)))
	frame = append(frame, c.clientID...)
	if req.IsFlexible() {
		frame = append(frame, 0) // no tagged fields in the header
	}
	frame = req.AppendTo(frame)
	binary.BigEndian.PutUint32(frame, uint32(len(frame)-4))
	return frame
}

func (c *brokerConn) readFrame() ([]byte, error) {
	var size [4]byte
	if _, err := io.ReadFull(c.reader, size[:]); err != nil {
		return nil, err
	}
	n := binary.BigEndian.Uint32(size[:])
	if n > 256<<20 {
		return nil, fmt.Errorf("response frame of %d bytes", n)
	}
	body := make([]byte, n)
	if _, err := io.ReadFull(c.reader, body); err != nil {
		return nil, err
	}
	return body, nil
}

func (c *brokerConn) decode(req kmsg.Request, body []byte) (kmsg.Response, error) {
	if len(body) < 4 {
		return nil, fmt.Errorf("response of %d bytes", len(body))
	}
	if got := int32(binary.BigEndian.Uint32(body)); got != c.correlationID {
		return nil, fmt.Errorf("correlation id %d, sent %d", got, c.correlationID)
	}
	body = body[4:]
	resp := req.ResponseKind()
	resp.SetVersion(req.GetVersion())
	// ApiVersions answers with response header v0 even when its body is flexible.
	if resp.IsFlexible() && req.Key() != kmsg.ApiVersions.Int16() {
		var err error
		if body, err = skipTaggedFields(body); err != nil {
			return nil, err
		}
	}
	if err := resp.ReadFrom(body); err != nil {
		return nil, fmt.Errorf("decoding %s v%d response: %w", kmsg.NameForKey(req.Key()), req.GetVersion(), err)
	}
	return resp, nil
}

func skipTaggedFields(b []byte) ([]byte, error) {
	count, n := binary.Uvarint(b)
	if n <= 0 {
		return nil, errors.New("bad tagged field count")
	}
	b = b[n:]
	for i := uint64(0); i < count; i++ {
		if _, n = binary.Uvarint(b); n <= 0 {
			return nil, errors.New("bad tag")
		}
		b = b[n:]
		size, n := binary.Uvarint(b)
		if n <= 0 || uint64(len(b)-n) < size {
			return nil, errors.New("bad tagged field size")
		}
		b = b[n+int(size):]
	}
	return b, nil
}
