package server

import (
	"context"
	"crypto/tls"
	"errors"
	"io"
	"log/slog"
	"net"
	"os"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/karst-broker/karst/internal/handler"
	"github.com/karst-broker/karst/internal/quota"
	"github.com/karst-broker/karst/internal/security/principal"
	"github.com/karst-broker/karst/internal/wire"
)

// flushThreshold is how many encoded response bytes the writer gathers
// before writing them to the socket in one call.
const flushThreshold = 64 * 1024

// conn is one client connection. The reader goroutine (serve) owns reading
// and dispatch; the writer goroutine owns the socket's write side and the
// head of queue. mu guards queue and writing.
type conn struct {
	s    *Server
	nc   net.Conn
	info *handler.Conn

	// slots bounds queued requests: the reader puts a token per request,
	// the writer takes it back once the response is written.
	slots chan struct{}

	mu      sync.Mutex
	queue   []*pending
	writing bool
	// broken is set once the socket failed; the writer then discards
	// responses but still releases their slots.
	broken bool

	done chan struct{}

	// zeroCopy is set for TCP sockets, where record bytes are sent from
	// segment files with sendfile; other connections (TLS) copy them.
	zeroCopy bool

	// tls is nc on an SSL listener, whose handshake the reader runs
	// first; principalMapper names the client from its certificate.
	tls             *tls.Conn
	principalMapper *principal.SSLMapper

	// lastActive is when a request was last read or a response written
	// (unix nanoseconds), for connections.max.idle.ms.
	lastActive atomic.Int64
	// receiving is set while a frame's body is awaited: its slot is
	// taken but no request is in flight yet.
	receiving atomic.Bool

	// Owned by the reader: whether it holds a slot for the frame being
	// read, and the request memory (queued.max.request.bytes) it holds.
	slotTaken  bool
	heldMemory int64

	// sasl, on a SASL listener, holds requests back until the client
	// authenticates (sasl_gate.go).
	sasl *saslGate

	// unsupported holds refused requests not yet logged, waiting for the
	// client to name its software (unsupported_log.go). Reader-owned.
	unsupported []unsupportedRequest

	// mutedUntil is when a throttled connection may be read again (unix
	// nanoseconds; client_quotas.go).
	mutedUntil atomic.Int64
}

// pending is a request waiting for its response to be written.
type pending struct {
	correlationID int32
	apiKey        int16
	version       int16
	outcome       handler.Outcome
	// raw is a complete pre-encoded frame, for answers that have no kmsg
	// form (unknown API keys, versions no schema describes).
	raw []byte
	// flexibleHeader selects response header v1 for Outcome responses.
	flexibleHeader bool
	// last marks the end of the connection: the writer closes the socket.
	last bool
	// arrived is when the request was read, for the latency measure.
	arrived time.Time
	// closeAfter ends the connection once this answer is written (a
	// failed authentication).
	closeAfter bool
	// throttle is what the producer byte rate and request time quotas
	// ask of this request, quota the kind that asks most, client who it
	// counts against (client_quotas.go).
	throttle time.Duration
	quota    quota.Kind
	client   quota.Client
}

func newConn(s *Server, nc net.Conn, l Listener) *conn {
	protocol := l.SecurityProtocol
	if protocol == "" {
		protocol = "PLAINTEXT"
	}
	c := &conn{
		s:     s,
		info:  &handler.Conn{RemoteAddr: nc.RemoteAddr().String(), ListenerName: l.Name, SecurityProtocol: protocol},
		slots: make(chan struct{}, s.cfg.MaxInFlight),
		done:  make(chan struct{}),
	}
	c.info.SetPrincipal(principal.Anonymous)
	if l.TLS != nil {
		c.tls = tls.Server(nc, l.TLS.Config())
		c.principalMapper = l.PrincipalMapper
		nc = c.tls
	}
	c.nc, c.zeroCopy = nc, isTCP(nc)
	if l.SASL != nil {
		c.sasl = newSASLGate(l.SASL)
	}
	c.touch()
	return c
}

func isTCP(nc net.Conn) bool {
	_, ok := nc.(*net.TCPConn)
	return ok
}

// authenticatedAs gives the connection the principal it authenticated as,
// on the connection and in the metrics of connections by principal.
func (c *conn) authenticatedAs(p principal.KafkaPrincipal) {
	before := c.info.Principal()
	c.info.SetPrincipal(p)
	c.s.cfg.Metrics.PrincipalChanged(c.info.ListenerName, before.String(), p.String())
}

func (c *conn) logger() *slog.Logger {
	name, version := c.info.ClientSoftware()
	return c.s.logger.With("remote", c.info.RemoteAddr, "listener", c.info.ListenerName,
		"principal", c.info.Principal().String(),
		"client_software_name", name, "client_software_version", version)
}

// stopReading makes the reader stop after the frame it is reading, so the
// connection drains and closes.
func (c *conn) stopReading() { c.nc.SetReadDeadline(time.Now()) }

func (c *conn) serve() {
	defer c.s.forget(c)
	if c.tls != nil && !c.authenticateTLS() {
		c.nc.Close()
		return
	}
	fr := wire.NewFrameReader(c.nc, c.s.cfg.MaxRequestSize)
	for {
		c.slotTaken = false
		if c.sasl != nil {
			fr.SetMaxSize(c.sasl.maxFrameSize(c.s.cfg.MaxRequestSize))
		}
		c.waitWhileMuted()
		frame, err := fr.ReadFrameFrom(c.frameBufferFor)
		c.receiving.Store(false)
		if err != nil {
			var sizeErr *wire.FrameSizeError
			switch {
			case errors.As(err, &sizeErr) && frame != nil && c.wantsRawToken():
				// A bare SASL token may be shorter than a request header.
				c.slotTaken = false // the answer holds the slot
				c.s.stats.Requests.Add(1)
				p, _ := c.admit(frame)
				c.releaseRequestMemory()
				c.enqueue(p)
				if !p.closeAfter {
					continue
				}
			case errors.As(err, &sizeErr) && frame != nil:
				// Intact but too short for a header: answer, then close,
				// since nothing after it can be trusted to be aligned.
				c.s.stats.FramesRefused.Add(1)
				c.logger().Warn("closing connection after a frame shorter than a request header", "size", sizeErr.Size)
				c.slotTaken = false // the answer now holds the slot
				c.enqueue(&pending{raw: minimalErrorFrame(wire.PeekCorrelationID(frame), kerr.InvalidRequest.Code)})
			case errors.As(err, &sizeErr):
				c.s.stats.FramesRefused.Add(1)
				c.logger().Warn("closing connection: frame size refused", "err", err)
			case errors.Is(err, io.EOF), errors.Is(err, net.ErrClosed), errors.Is(err, os.ErrDeadlineExceeded):
			default:
				c.logger().Debug("connection read ended", "err", err)
			}
			if c.slotTaken {
				c.give()
			}
			c.releaseRequestMemory()
			break
		}
		c.s.stats.Requests.Add(1)
		// A frame read while the previous answer was being throttled
		// waits for the mute to end, as if it had not been read.
		c.waitWhileMuted()
		c.touch()
		p, ok := c.admit(frame)
		c.releaseRequestMemory()
		if !ok {
			c.give()
			break
		}
		recycleFrame(p.apiKey, frame)
		c.enqueue(p)
		if p.closeAfter {
			break
		}
	}
	c.logUnsupported()
	c.enqueue(&pending{last: true})
	<-c.done
	// The writer has answered or dropped every request, so the handler
	// is told of the close with nothing of this connection in flight.
	c.s.broker.ConnectionClosed(c.info)
}

func (c *conn) take() { c.slots <- struct{}{} }
func (c *conn) give() { <-c.slots }

// dispatch turns a frame into a pending response. It returns false when
// the body was refused or a handler panicked; the connection is then
// closed.
func (c *conn) dispatch(frame []byte) (*pending, bool) {
	key, version, _ := wire.PeekAPI(frame)
	p := &pending{correlationID: wire.PeekCorrelationID(frame), apiKey: key, version: version, arrived: time.Now()}
	api := handler.Lookup(key)
	if api == nil {
		c.noteUnsupported("", key, version)
		p.raw = minimalErrorFrame(p.correlationID, kerr.UnsupportedVersion.Code)
		return p, true
	}
	if !api.Supports(version) {
		c.noteUnsupported(api.Name, key, version)
		c.answerUnsupported(p, api)
		return p, true
	}
	req := kmsg.RequestForKey(key)
	req.SetVersion(version)
	header, body, err := wire.ParseRequestHeader(frame, req.IsFlexible())
	if err == nil {
		err = c.s.decodes.decode(req, body)
	}
	if refusedAsKafkaRefuses(err) {
		// A body built to cost memory, with a null where Kafka's schema
		// allows none, or with a collection above Kafka's caps: Kafka's
		// parser throws and its socket server closes the connection;
		// nothing after it can be trusted.
		c.s.stats.FramesRefused.Add(1)
		c.logger().Info("closing connection: request refused before decoding", "api", api.Name, "api_version", version, "err", err)
		return nil, false
	}
	if err != nil {
		// A body that is merely malformed is answered, echoing its
		// correlation id, and the connection stays open: the frame
		// validation rules this broker started from ask for that, where
		// Kafka would close the connection.
		c.logger().Info("request could not be decoded", "api", api.Name, "api_version", version, "err", err)
		c.answerError(p, kerr.InvalidRequest.Code)
		return p, true
	}
	r := &handler.Request{Header: header, Body: req, Conn: c.info}
	started := time.Now()
	outcome, ok := c.handle(api, r)
	c.recordQuotas(p, r, len(frame), time.Since(started))
	if key == apiVersionsKey {
		c.logUnsupported()
	}
	if !ok {
		return nil, false
	}
	if outcome.CloseConnection {
		c.logger().Info("closing connection as the handler asked (a failed acks=0 produce, or a request Kafka cannot parse)", "api", api.Name, "api_version", version)
		return nil, false
	}
	p.outcome = outcome
	if outcome.Response != nil {
		p.flexibleHeader = c.setVersion(outcome.Response, version)
	}
	return p, true
}

// handle runs the handler, turning a panic into a logged, counted failure.
func (c *conn) handle(api *handler.API, r *handler.Request) (o handler.Outcome, ok bool) {
	defer func() {
		if v := recover(); v != nil {
			c.s.stats.PanicsRecovered.Add(1)
			c.logger().Error("PANIC in request handler; closing the connection", "api", api.Name,
				"api_version", r.Version(), "panic", v, "stack", string(debug.Stack()))
			ok = false
		}
	}()
	c.s.stats.RequestsHandled.Add(1)
	return c.s.broker.Handle(c.s.ctx, api, r), true
}

// setVersion pins resp to the request's version and reports whether the
// response header is flexible (v1). ApiVersions always answers with header
// v0 so that a client can read it whatever version it asked for.
func (c *conn) setVersion(resp kmsg.Response, version int16) bool {
	resp.SetVersion(version)
	return resp.IsFlexible() && resp.Key() != apiVersionsKey
}

const apiVersionsKey = 18

func (c *conn) answerUnsupported(p *pending, api *handler.API) {
	switch {
	case api.Key == apiVersionsKey:
		// KIP-35/KIP-511: answer with a v0 body the client can always
		// parse, listing every range so it can pick a version.
		p.outcome = handler.Ready(handler.APIVersionsResponse(0, kerr.UnsupportedVersion.Code))
		p.version = 0
	case p.version >= 0 && p.version <= kmsg.RequestForKey(api.Key).MaxVersion():
		c.answerError(p, kerr.UnsupportedVersion.Code)
	default:
		p.raw = minimalErrorFrame(p.correlationID, kerr.UnsupportedVersion.Code)
	}
}

func (c *conn) answerError(p *pending, code int16) {
	resp := handler.ErrorResponse(p.apiKey, p.version, code)
	p.outcome = handler.Ready(resp)
	p.flexibleHeader = c.setVersion(resp, p.version)
}

// minimalErrorFrame is a response header v0 followed by a bare error code:
// the only answer possible when no schema describes the request.
func minimalErrorFrame(correlationID int32, code int16) []byte {
	f, at := wire.AppendSizePrefix(nil)
	f = wire.AppendResponseHeader(f, correlationID, false)
	f = append(f, byte(uint16(code)>>8), byte(code))
	wire.FinishFrame(f, at)
	return f
}

func (c *conn) enqueue(p *pending) {
	c.mu.Lock()
	c.queue = append(c.queue, p)
	start := !c.writing
	c.writing = true
	c.mu.Unlock()
	if start {
		go c.writeLoop()
	}
}

// writeLoop writes queued responses in order, gathering ready ones into
// one write, and exits when the queue is empty.
func (c *conn) writeLoop() {
	var out []byte
	for {
		c.mu.Lock()
		if len(c.queue) == 0 {
			if len(out) > 0 {
				c.mu.Unlock()
				out = c.flush(out)
				continue
			}
			c.writing = false
			c.mu.Unlock()
			return
		}
		p := c.queue[0]
		c.queue[0] = nil
		c.queue = c.queue[1:]
		c.mu.Unlock()

		if p.last {
			c.flush(out)
			c.nc.Close()
			close(c.done)
			return
		}
		if p.outcome.Later != nil && len(out) > 0 {
			out = c.flush(out)
		}
		out = c.encode(out, p)
		c.s.cfg.Metrics.Request(p.apiKey, p.version, time.Since(p.arrived))
		c.touch()
		c.give()
		if len(out) >= flushThreshold {
			out = c.flush(out)
		}
	}
}

func (c *conn) flush(out []byte) []byte {
	c.mu.Lock()
	broken := c.broken
	c.mu.Unlock()
	if !broken && len(out) > 0 {
		if _, err := c.nc.Write(out); err != nil {
			c.markBroken()
		}
	}
	return out[:0]
}

func (c *conn) markBroken() {
	c.mu.Lock()
	c.broken = true
	c.mu.Unlock()
	c.nc.Close()
}

func (c *conn) encode(out []byte, p *pending) []byte {
	if p.raw != nil {
		return append(out, p.raw...)
	}
	resp := p.outcome.Response
	if p.outcome.Later != nil {
		var ok bool
		if resp, ok = c.complete(p); !ok {
			c.markBroken()
			return out[:0]
		}
		if resp != nil {
			p.flexibleHeader = c.setVersion(resp, p.version)
		}
	}
	c.throttle(p, resp)
	if p.outcome.NoResponse || resp == nil {
		return out
	}
	if parts, ok := resp.(*handler.PartsResponse); ok {
		return c.encodeParts(out, p, parts.Parts)
	}
	out, at := wire.AppendSizePrefix(out)
	out = wire.AppendResponseHeader(out, p.correlationID, p.flexibleHeader)
	out = resp.AppendTo(out)
	wire.FinishFrame(out, at)
	return out
}

// encodeParts writes a response whose body includes file regions: the
// bytes before each region are flushed, then the region is sent with
// sendfile.
func (c *conn) encodeParts(out []byte, p *pending, parts []handler.BodyPart) []byte {
	size := int64(len(wire.AppendResponseHeader(nil, p.correlationID, p.flexibleHeader)))
	for _, part := range parts {
		size += int64(len(part.Bytes)) + part.Length
	}
	out = append(out, byte(size>>24), byte(size>>16), byte(size>>8), byte(size))
	out = wire.AppendResponseHeader(out, p.correlationID, p.flexibleHeader)
	for _, part := range parts {
		if part.Stream != nil {
			out = c.writeStream(out, part)
			continue
		}
		if part.File == nil {
			out = append(out, part.Bytes...)
			continue
		}
		if !c.zeroCopy {
			var err error
			if out, err = c.copyFileRegion(out, part); err != nil {
				c.logger().Warn("reading records from a segment file failed; closing the connection", "err", err)
				c.markBroken()
				return out[:0]
			}
			continue
		}
		out = c.flush(out)
		if c.isBroken() {
			continue
		}
		if err := sendFile(c.nc, part.File, part.Offset, part.Length); err != nil {
			c.logger().Warn("sending records from a segment file failed; closing the connection", "err", err)
			c.markBroken()
		}
	}
	return out
}

// writeStream writes a part made as it is sent (down-converted records),
// flushing after each chunk so that no more than a chunk of it is held.
func (c *conn) writeStream(out []byte, part handler.BodyPart) []byte {
	for made := int64(0); made < part.Length && !c.isBroken(); {
		n := len(out)
		out = part.Stream.Next(out)
		if len(out) == n {
			// The stream broke its promise of Length bytes: the frame
			// cannot be finished, so the connection cannot go on.
			c.logger().Error("a streamed response part ended early; closing the connection", "made", made, "length", part.Length)
			c.markBroken()
			return out[:0]
		}
		made += int64(len(out) - n)
		out = c.flush(out)
	}
	return out
}

func (c *conn) isBroken() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.broken
}

// complete runs a deferred handler stage with the same panic guard as
// dispatch.
func (c *conn) complete(p *pending) (resp kmsg.Response, ok bool) {
	defer func() {
		if v := recover(); v != nil {
			c.s.stats.PanicsRecovered.Add(1)
			c.logger().Error("PANIC completing a request; closing the connection", "api_key", p.apiKey,
				"api_version", p.version, "panic", v, "stack", string(debug.Stack()))
			ok = false
		}
	}()
	return p.outcome.Later(c.laterContext()), true
}

func (c *conn) laterContext() context.Context { return c.s.ctx }
