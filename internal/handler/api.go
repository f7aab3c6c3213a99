package handler

import (
	"context"
	"fmt"
	"slices"
	"sync"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/karst-broker/karst/internal/security/principal"
	"github.com/karst-broker/karst/internal/wire"
)

// API is one row of the dispatch table.
type API struct {
	Key        int16
	Name       string
	MinVersion int16
	MaxVersion int16
	handle     func(b *Broker, ctx context.Context, r *Request) Outcome
}

// Supports reports whether version v of this API is served.
func (a *API) Supports(v int16) bool { return v >= a.MinVersion && v <= a.MaxVersion }

// Outcome is what a handler produces for one request.
type Outcome struct {
	// Response is the answer when it is ready at once.
	Response kmsg.Response
	// Later, when set, is called by the connection's writer to produce the
	// answer; it may block (for an fsync or a long-poll) until ctx ends.
	Later func(ctx context.Context) kmsg.Response
	// NoResponse is set for requests Kafka never answers (acks=0 produce).
	NoResponse bool
	// CloseConnection: instead of answering, close the connection once the
	// responses before this request are written, as Kafka does after an
	// acks=0 produce that failed (the client then refreshes its metadata).
	CloseConnection bool
}

// Ready wraps an immediate response.
func Ready(r kmsg.Response) Outcome { return Outcome{Response: r} }

// Request is a decoded request and where it came from.
type Request struct {
	Header wire.RequestHeader
	Body   kmsg.Request
	Conn   *Conn
	// topicRefused, set by the Fetch gate when an authorizer is on, names
	// the topics whose partitions the handler answers
	// TOPIC_AUTHORIZATION_FAILED: a fetch session's partitions are
	// resolved in the handler, so the check is made there.
	topicRefused func(topic string) bool
	// topicDescribable, set by the ConsumerGroupHeartbeat gate when an
	// authorizer is on, is whether the member's principal may describe a
	// topic: the coordinator resolves regex subscriptions, at this and
	// later heartbeats of the group, so the check is made there.
	topicDescribable func(topic string) bool
}

// Version is the request's API version.
func (r *Request) Version() int16 { return r.Header.APIVersion }

// Conn is what handlers may know and remember about a client connection.
type Conn struct {
	RemoteAddr   string
	ListenerName string
	// SecurityProtocol is the listener's: PLAINTEXT, SSL, SASL_PLAINTEXT
	// or SASL_SSL.
	SecurityProtocol string

	mu              sync.Mutex
	softwareName    string
	softwareVersion string
	principal       principal.KafkaPrincipal
	// tokenAuthenticated: the principal authenticated with a delegation
	// token, as Kafka's KafkaPrincipal.tokenAuthenticated.
	tokenAuthenticated bool
	// onClose is what handlers asked to be done when the connection
	// closes, by a key of theirs so that asking again replaces.
	onClose map[any]func()
}

// whenClosed has f run once the connection has closed (ConnectionClosed),
// replacing what was asked under key before.
func (c *Conn) whenClosed(key any, f func()) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.onClose == nil {
		c.onClose = map[any]func(){}
	}
	c.onClose[key] = f
}

// notWhenClosed forgets what was asked under key.
func (c *Conn) notWhenClosed(key any) {
	c.mu.Lock()
	delete(c.onClose, key)
	c.mu.Unlock()
}

// ConnectionClosed is told by the server that c has closed, after its
// last response was written or dropped: no request of c is in flight.
// It runs what handlers asked for with whenClosed, as Kafka's socket
// server tells its ConnectionDisconnectListeners.
func (b *Broker) ConnectionClosed(c *Conn) {
	c.mu.Lock()
	fs := c.onClose
	c.onClose = nil
	c.mu.Unlock()
	for _, f := range fs {
		f()
	}
}

// Principal is who the connection authenticated as: User:ANONYMOUS until
// an authentication (a TLS client certificate, SASL) names someone.
func (c *Conn) Principal() principal.KafkaPrincipal {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.principal == (principal.KafkaPrincipal{}) {
		return principal.Anonymous
	}
	return c.principal
}

// SetPrincipal records who the connection authenticated as.
func (c *Conn) SetPrincipal(p principal.KafkaPrincipal) {
	c.mu.Lock()
	c.principal = p
	c.mu.Unlock()
}

// SetTokenAuthenticated records whether the principal authenticated with
// a delegation token.
func (c *Conn) SetTokenAuthenticated(token bool) {
	c.mu.Lock()
	c.tokenAuthenticated = token
	c.mu.Unlock()
}

// TokenAuthenticated reports whether the principal authenticated with a
// delegation token; such a connection may not ask for more tokens.
func (c *Conn) TokenAuthenticated() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.tokenAuthenticated
}

// SetClientSoftware records what the client said it is (ApiVersions v3+).
func (c *Conn) SetClientSoftware(name, version string) {
	c.mu.Lock()
	c.softwareName, c.softwareVersion = name, version
	c.mu.Unlock()
}

// ClientSoftware returns the name and version the client announced.
func (c *Conn) ClientSoftware() (name, version string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.softwareName, c.softwareVersion
}

var registry = map[int16]*API{}

// register adds an API to the dispatch table; each API file calls it from
// init so the served versions stand beside their code.
func register(key, minVersion, maxVersion int16, handle func(b *Broker, ctx context.Context, r *Request) Outcome) {
	if _, dup := registry[key]; dup {
		panic(fmt.Sprintf("api key %d registered twice", key))
	}
	if req := kmsg.RequestForKey(key); req == nil || req.MaxVersion() < maxVersion {
		panic(fmt.Sprintf("api key %d version %d is not known to kmsg", key, maxVersion))
	}
	registry[key] = &API{Key: key, Name: kmsg.NameForKey(key), MinVersion: minVersion, MaxVersion: maxVersion, handle: handle}
}

// Lookup returns the dispatch table row for key, or nil when Karst does not
// implement that API.
func Lookup(key int16) *API { return registry[key] }

// Table returns every served API ordered by key.
func Table() []*API {
	apis := make([]*API, 0, len(registry))
	for _, a := range registry {
		apis = append(apis, a)
	}
	slices.SortFunc(apis, func(a, b *API) int { return int(a.Key) - int(b.Key) })
	return apis
}
