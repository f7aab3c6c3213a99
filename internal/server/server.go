package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/netip"
	"sync"
	"sync/atomic"
	"time"

	"github.com/karst-broker/karst/internal/handler"
	"github.com/karst-broker/karst/internal/metrics"
	"github.com/karst-broker/karst/internal/quota"
	"github.com/karst-broker/karst/internal/sasl"
	"github.com/karst-broker/karst/internal/security/principal"
	"github.com/karst-broker/karst/internal/security/tlsconfig"
	"github.com/karst-broker/karst/internal/wire"
)

// Listener is one address to accept connections on.
type Listener struct {
	Name string // listener name, e.g. PLAINTEXT
	Addr string // host:port; port 0 picks a free port
	// SecurityProtocol is PLAINTEXT (the default), SSL, SASL_PLAINTEXT or
	// SASL_SSL; Listen refuses one whose TLS or SASL set-up is missing.
	SecurityProtocol string
	// TLS serves an SSL listener's handshakes; it may be reloaded while
	// the listener accepts.
	TLS *tlsconfig.Listener
	// PrincipalMapper maps client certificate names to principals
	// (ssl.principal.mapping.rules); nil maps with DEFAULT.
	PrincipalMapper *principal.SSLMapper
	// SASL, when set, makes clients authenticate with one of its
	// mechanisms before any request reaches a handler.
	SASL *sasl.Listener
}

// checkSecurity refuses a listener whose security protocol this server
// cannot serve, rather than serving it as plaintext.
func (l Listener) checkSecurity() error {
	switch l.SecurityProtocol {
	case "", "PLAINTEXT":
		return nil
	case "SSL":
		if l.TLS == nil {
			return fmt.Errorf("listener %s: security protocol SSL needs a key store (ssl.keystore.*)", l.Name)
		}
		return nil
	case "SASL_PLAINTEXT", "SASL_SSL":
		if l.SASL == nil {
			return fmt.Errorf("listener %s: security protocol %s needs sasl.enabled.mechanisms with their JAAS configuration", l.Name, l.SecurityProtocol)
		}
		if l.SecurityProtocol == "SASL_SSL" && l.TLS == nil {
			return fmt.Errorf("listener %s: security protocol SASL_SSL needs a key store (ssl.keystore.*)", l.Name)
		}
		return nil
	}
	return fmt.Errorf("listener %s: unknown security protocol %s", l.Name, l.SecurityProtocol)
}

// Config shapes the server.
type Config struct {
	Listeners []Listener
	// MaxRequestSize is socket.request.max.bytes.
	MaxRequestSize int32
	// MaxInFlight bounds the requests one connection may have queued.
	MaxInFlight int
	// SendBufferBytes and ReceiveBufferBytes are socket.send.buffer.bytes
	// and socket.receive.buffer.bytes: SO_SNDBUF and SO_RCVBUF of every
	// accepted connection; 0 or -1 leaves the OS default (autotuning).
	SendBufferBytes, ReceiveBufferBytes int
	// IdleTimeout is connections.max.idle.ms: a connection with no
	// request read, no response written and nothing in flight for longer
	// is closed. 0 or less keeps connections forever.
	IdleTimeout time.Duration
	// QueuedMaxRequestBytes is queued.max.request.bytes: the bytes of
	// request frames, from every connection, read (or being read) and not
	// yet handled. Once they reach it the server stops reading from
	// sockets until some are handled; no request is refused for it. 0 or
	// less means no limit (Kafka's default, -1).
	QueuedMaxRequestBytes int64
	// DecodeBudget is how many bytes decodes of request bodies larger
	// than 64 KiB may allocate at once, at worst (see decode_budget.go);
	// 0 means DefaultDecodeBudget and a negative value turns both decode
	// budgets off.
	DecodeBudget int64
	// ConnectionLimits are max.connections and the per-IP limits (see
	// connection_quotas.go); nil means none (NoConnectionLimits).
	ConnectionLimits *ConnectionLimits
	// ClientQuotas, if set, are the client quotas: the producer byte rate
	// and request time are recorded here, and every throttled response
	// mutes its connection (client_quotas.go).
	ClientQuotas *quota.Manager
	Logger       *slog.Logger
	// Metrics, if set, counts requests and connections.
	Metrics *metrics.Metrics
}

// Server accepts Kafka client connections.
type Server struct {
	cfg    Config
	broker *handler.Broker
	logger *slog.Logger

	mu        sync.Mutex
	listeners map[string]net.Listener
	// security is each listener's configuration, by name.
	security map[string]Listener
	conns    map[*conn]*connSlot
	closing  bool

	quotas *connectionQuotas
	// stopAccepting is closed when shutdown begins, ending accept loops
	// that wait to retry.
	stopAccepting chan struct{}

	// ctx is cancelled when shutdown begins; waiting work (long polls)
	// watches it and answers with what it has.
	ctx    context.Context
	cancel context.CancelFunc

	acceptWG sync.WaitGroup
	connWG   sync.WaitGroup

	stats Stats

	// requestMemory is queued.max.request.bytes' pool; nil without one.
	requestMemory *byteBudget
	decodes       decodeBudgets

	// unsupported remembers which client software was told about which
	// unsupported request, to log each once.
	unsupported unsupportedLog
}

// Stats are counters the server keeps; read them with the atomic getters.
type Stats struct {
	ConnectionsAccepted atomic.Int64
	ConnectionsOpen     atomic.Int64
	Requests            atomic.Int64
	PanicsRecovered     atomic.Int64
	FramesRefused       atomic.Int64
	// ConnectionsIdleClosed counts connections closed for being idle
	// longer than connections.max.idle.ms.
	ConnectionsIdleClosed atomic.Int64
	// AcceptErrors counts failed accepts (EMFILE and the like).
	AcceptErrors atomic.Int64
	// ConnectionsRefusedPerIP counts connections closed at once for their
	// address's max.connections.per.ip (or override).
	ConnectionsRefusedPerIP atomic.Int64
	// ConnectionsClosedOverMax counts connections closed to bring the
	// total back within max.connections.
	ConnectionsClosedOverMax atomic.Int64
	// ConnectionsThrottled counts connections closed after a delay for
	// their address's connection_creation_rate.
	ConnectionsThrottled atomic.Int64
	// AuthenticationsFailed counts connections whose first authentication
	// failed (Kafka's failed-authentication): a failed TLS handshake, an
	// unmapped client certificate, or a refused SASL exchange (wrong
	// password, unknown mechanism, a request out of turn).
	// ReauthenticationsFailed counts refused SASL re-authentications.
	AuthenticationsFailed   atomic.Int64
	ReauthenticationsFailed atomic.Int64
	// RequestsHandled counts requests given to a handler.
	RequestsHandled atomic.Int64
	// Authentications counts SASL authentications and re-authentications
	// that succeeded; SessionsExpired counts connections closed for a
	// session past its lifetime.
	Authentications atomic.Int64
	SessionsExpired atomic.Int64
	// ThrottledWaits counts the times a connection's reader waited out a
	// client quota's mute.
	ThrottledWaits atomic.Int64
}

// New returns a server. Call Listen, then Serve.
func New(cfg Config) *Server {
	if cfg.MaxRequestSize <= 0 {
		cfg.MaxRequestSize = wire.DefaultMaxFrameSize
	}
	if cfg.MaxInFlight <= 0 {
		cfg.MaxInFlight = 64
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.ConnectionLimits == nil {
		unlimited := NoConnectionLimits()
		cfg.ConnectionLimits = &unlimited
	}
	ctx, cancel := context.WithCancel(context.Background())
	// Listen resolves the override host names.
	quotas := newConnectionQuotas(resolvedLimits{ConnectionLimits: *cfg.ConnectionLimits}, len(cfg.Listeners), cfg.ClientQuotas.Window())
	if cfg.ClientQuotas != nil {
		quotas.connectionRate = cfg.ClientQuotas.RecordConnection
	}
	return &Server{
		cfg: cfg, logger: cfg.Logger,
		quotas:    quotas,
		listeners: map[string]net.Listener{}, security: map[string]Listener{}, conns: map[*conn]*connSlot{},
		stopAccepting: make(chan struct{}),
		ctx:           ctx, cancel: cancel,
		requestMemory: newRequestMemory(cfg.QueuedMaxRequestBytes),
		decodes:       newDecodeBudgets(cfg.DecodeBudget),
	}
}

// Stats returns the server's counters.
func (s *Server) Stats() *Stats { return &s.stats }

// Listen resolves the host names of the connection limits and binds every
// listener; on error nothing is left listening. The bound addresses are
// known from then on (see Addr), which lets the caller advertise a port the
// kernel picked.
func (s *Server) Listen() error {
	limits, err := resolveLimits(context.Background(), *s.cfg.ConnectionLimits)
	if err != nil {
		return err
	}
	for _, l := range s.cfg.Listeners {
		if err := l.checkSecurity(); err != nil {
			return err
		}
	}
	s.quotas.update(limits)
	var bound []net.Listener
	for _, l := range s.cfg.Listeners {
		ln, err := net.Listen("tcp", l.Addr)
		if err != nil {
			for _, b := range bound {
				b.Close()
			}
			return fmt.Errorf("listener %s on %s: %w", l.Name, l.Addr, err)
		}
		bound = append(bound, ln)
	}
	s.mu.Lock()
	for i, l := range s.cfg.Listeners {
		s.listeners[l.Name] = bound[i]
		s.security[l.Name] = l
	}
	s.mu.Unlock()
	return nil
}

// Serve starts accepting connections on every bound listener and
// dispatching their requests to broker.
func (s *Server) Serve(broker *handler.Broker) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.broker = broker
	for name, ln := range s.listeners {
		s.acceptWG.Add(1)
		go s.accept(name, ln)
	}
	if s.cfg.IdleTimeout > 0 {
		go s.closeIdle()
	}
}

// Addr returns the bound address of the named listener.
func (s *Server) Addr(name string) net.Addr {
	s.mu.Lock()
	defer s.mu.Unlock()
	if ln, ok := s.listeners[name]; ok {
		return ln.Addr()
	}
	return nil
}

// accept is one listener's acceptor: it takes each connection's quota
// slot (waiting under max.connections) and starts serving it.
func (s *Server) accept(name string, ln net.Listener) {
	defer s.acceptWG.Done()
	var retry acceptRetry
	var refusals logThrottle
	for {
		nc, err := ln.Accept()
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return
			}
			s.stats.AcceptErrors.Add(1)
			if !s.waitToRetryAccept(retry.failed(s.logger, name, err, time.Now())) {
				return
			}
			continue
		}
		retry.succeeded(s.logger, name, time.Now())
		addr := remoteIP(nc)
		if err := s.quotas.acquire(name, addr); err != nil {
			if errors.Is(err, errQuotasClosed) {
				nc.Close()
				return
			}
			if th, ok := err.(connectionThrottled); ok {
				s.closeAfter(nc, th.delay)
				continue
			}
			s.stats.ConnectionsRefusedPerIP.Add(1)
			nc.Close()
			if ok, notLogged := refusals.allow(time.Now()); ok {
				s.logger.Info("rejected connection", "listener", name, "remote", addr, "reason", err.Error(),
					"rejections_not_logged", notLogged)
			}
			continue
		}
		if !s.open(name, addr, nc) {
			return
		}
		if s.quotas.protectedListener(name) {
			s.closeExcessConnections()
		}
	}
}

// closeAfter closes a connection throttled by its address's
// connection_creation_rate once its delay has passed, or at shutdown; it
// is never read from (Kafka's DelayedCloseSocket).
func (s *Server) closeAfter(nc net.Conn, delay time.Duration) {
	s.stats.ConnectionsThrottled.Add(1)
	s.acceptWG.Add(1)
	go func() {
		defer s.acceptWG.Done()
		t := time.NewTimer(delay)
		select {
		case <-t.C:
		case <-s.stopAccepting:
			t.Stop()
		}
		nc.Close()
	}()
}

// open starts serving nc, which holds a quota slot; it reports false when
// the server is shutting down.
func (s *Server) open(listener string, addr netip.Addr, nc net.Conn) bool {
	s.setSocketBuffers(nc)
	s.mu.Lock()
	security := s.security[listener]
	s.mu.Unlock()
	c := newConn(s, nc, security)
	s.mu.Lock()
	if s.closing {
		s.mu.Unlock()
		nc.Close()
		s.quotas.release(listener, addr)
		return false
	}
	s.conns[c] = &connSlot{listener: listener, addr: addr}
	s.connWG.Add(1)
	s.mu.Unlock()
	s.stats.ConnectionsAccepted.Add(1)
	s.stats.ConnectionsOpen.Add(1)
	s.cfg.Metrics.ConnectionOpened(listener)
	s.cfg.Metrics.PrincipalConnected(c.info.ListenerName, c.info.Principal().String())
	go c.serve()
	return true
}

func (s *Server) forget(c *conn) {
	s.mu.Lock()
	slot := s.conns[c]
	delete(s.conns, c)
	s.mu.Unlock()
	s.quotas.release(slot.listener, slot.addr)
	s.stats.ConnectionsOpen.Add(-1)
	s.cfg.Metrics.ConnectionClosed()
	s.cfg.Metrics.PrincipalDisconnected(c.info.ListenerName, c.info.Principal().String())
	s.connWG.Done()
}

// Shutdown stops accepting, lets every connection finish the requests it
// has already read, sends their responses and closes. When ctx ends first,
// the remaining connections are closed at once.
func (s *Server) Shutdown(ctx context.Context) error {
	s.mu.Lock()
	if !s.closing {
		close(s.stopAccepting)
	}
	s.closing = true
	s.quotas.close()
	for _, ln := range s.listeners {
		ln.Close()
	}
	conns := make([]*conn, 0, len(s.conns))
	for c := range s.conns {
		conns = append(conns, c)
	}
	s.mu.Unlock()
	s.acceptWG.Wait()
	s.cancel()
	for _, l := range s.cfg.Listeners {
		if l.SASL != nil {
			l.SASL.Close()
		}
	}
	for _, c := range conns {
		c.stopReading()
	}
	done := make(chan struct{})
	go func() { s.connWG.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		s.mu.Lock()
		for c := range s.conns {
			c.nc.Close()
		}
		s.mu.Unlock()
		<-done
		return ctx.Err()
	}
}
