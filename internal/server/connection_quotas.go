package server

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"sync"
	"time"

	"github.com/karst-broker/karst/internal/quota"
)

// Connection quotas follow Kafka's SocketServer ConnectionQuotas. Every
// accepted connection first needs a slot on its listener
// (listener.name.<l>.max.connections, else max.connections) and one in
// the broker-wide max.connections, except on the inter-broker listener
// when there are several listeners; until both are free the acceptor waits
// and accepts nothing more, so further clients queue in the listen
// backlog. Then it needs one under its address's limit
// (max.connections.per.ip, or its entry in max.connections.per.ip.overrides)
// or it is closed at once. Connections of the protected inter-broker
// listener can push the total past max.connections, and lowering
// max.connections leaves more open than allowed; either way the least
// recently active connections of the other listeners are closed until the
// total is back within it. Before its address's count, a connection is
// measured against its address's connection_creation_rate (an ip entity's
// client quota, KIP-612): over it, it is accepted, not counted, and closed
// once the throttle time has passed (Kafka's throttledSockets).
//
// Before any of that, the connection is counted in its listener's
// connection creation rate and, unless the listener is the protected
// inter-broker one, in the broker's (KIP-612's
// listener.name.<l>.max.connection.creation.rate and
// max.connection.creation.rate). Over either, the acceptor waits out the
// longer throttle time before it takes the connection, so new clients
// queue in the listen backlog rather than being refused.

// tooManyConnections refuses a connection over its address's limit.
type tooManyConnections struct{ max int }

func (e tooManyConnections) Error() string {
	return fmt.Sprintf("address already has the configured maximum of %d connections", e.max)
}

// connectionThrottled is a connection over its address's
// connection_creation_rate, to be closed after delay.
type connectionThrottled struct{ delay time.Duration }

func (e connectionThrottled) Error() string {
	return fmt.Sprintf("connection creation rate exceeded, closing after %v", e.delay)
}

// errQuotasClosed ends a wait for a slot at shutdown.
var errQuotasClosed = errors.New("server shutting down")

// connectionQuotas counts open connections by listener and address.
type connectionQuotas struct {
	mu        sync.Mutex
	slotFreed sync.Cond // signalled when a connection closes or limits change
	limits    resolvedLimits
	// listeners is how many listeners the server has: the inter-broker
	// one is protected only when there are others.
	listeners   int
	byAddr      map[netip.Addr]int
	byListener  map[string]int
	total       int
	closed      bool
	blockedTime map[string]time.Duration
	// waiting is how many acceptors wait for a slot.
	waiting int
	// throttled counts connections whose accept waited for a creation
	// rate.
	throttled int64
	// done is closed at shutdown, ending throttle waits.
	done chan struct{}
	// creationWindow is the window of the creation rates, those of the
	// broker and by listener.
	creationWindow quota.Window
	brokerRate     *quota.CreationRate
	listenerRates  map[string]*quota.CreationRate
	// connectionRate, if set, records a new connection from an address
	// against its connection_creation_rate and returns its throttle time.
	connectionRate func(netip.Addr) time.Duration
}

func newConnectionQuotas(limits resolvedLimits, listeners int, window quota.Window) *connectionQuotas {
	q := &connectionQuotas{
		limits: limits, listeners: listeners,
		byAddr: map[netip.Addr]int{}, byListener: map[string]int{}, blockedTime: map[string]time.Duration{},
		done: make(chan struct{}), brokerRate: quota.NewCreationRate(window, nil), creationWindow: window,
		listenerRates: map[string]*quota.CreationRate{},
	}
	q.slotFreed.L = &q.mu
	return q
}

// acquire takes a slot for a new connection from addr on listener,
// waiting out the creation rates' throttle and for the listener and
// broker-wide limits; it fails with
// connectionThrottled when addr is over its connection rate and
// tooManyConnections when addr is at its limit, taking nothing.
func (q *connectionQuotas) acquire(listener string, addr netip.Addr) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	throttle := q.recordCreation(listener)
	if throttle > 0 || !q.slotAvailable(listener) {
		start := time.Now()
		q.waiting++
		if throttle > 0 {
			q.throttled++
			q.mu.Unlock()
			t := time.NewTimer(throttle)
			select {
			case <-t.C:
			case <-q.done:
				t.Stop()
			}
			q.mu.Lock()
		}
		for !q.closed && !q.slotAvailable(listener) {
			q.slotFreed.Wait()
		}
		q.waiting--
		q.blockedTime[listener] += time.Since(start)
	}
	if q.closed {
		return errQuotasClosed
	}
	if q.connectionRate != nil {
		if d := q.connectionRate(addr); d > 0 {
			return connectionThrottled{d}
		}
	}
	limit, ok := q.limits.perIP[addr]
	if !ok {
		limit = q.limits.MaxConnectionsPerIP
	}
	if q.byAddr[addr] >= limit {
		return tooManyConnections{limit}
	}
	q.byAddr[addr]++
	q.byListener[listener]++
	q.total++
	return nil
}

// recordCreation counts a new connection in listener's creation rate and,
// unless listener is protected, the broker's, and returns the longer of
// their throttle times (ConnectionQuotas.recordConnectionAndGetThrottleTimeMs).
func (q *connectionQuotas) recordCreation(listener string) time.Duration {
	var broker time.Duration
	if !q.protected(listener) {
		broker = q.brokerRate.Record(q.limits.MaxConnectionCreationRate)
	}
	bound, ok := q.limits.ListenerMaxConnectionCreationRate[listener]
	if !ok {
		bound = q.limits.MaxConnectionCreationRate
	}
	return max(broker, q.listenerRate(listener).Record(bound))
}

func (q *connectionQuotas) listenerRate(listener string) *quota.CreationRate {
	r, ok := q.listenerRates[listener]
	if !ok {
		r = quota.NewCreationRate(q.creationWindow, nil)
		q.listenerRates[listener] = r
	}
	return r
}

// creationRates are the broker's connection creation rate and listener's,
// in connections per second.
func (q *connectionQuotas) creationRates(listener string) (broker, perListener float64) {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.brokerRate.Measure(), q.listenerRate(listener).Measure()
}

// acceptsThrottled is how many connections waited for a creation rate.
func (q *connectionQuotas) acceptsThrottled() int64 {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.throttled
}

// release gives back a slot acquire took.
func (q *connectionQuotas) release(listener string, addr netip.Addr) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.byAddr[addr]--; q.byAddr[addr] <= 0 {
		delete(q.byAddr, addr)
	}
	q.byListener[listener]--
	q.total--
	q.slotFreed.Broadcast()
}

func (q *connectionQuotas) slotAvailable(listener string) bool {
	if q.byListener[listener] >= q.listenerLimit(listener) {
		return false
	}
	return q.protected(listener) || q.total < q.limits.MaxConnections
}

func (q *connectionQuotas) listenerLimit(listener string) int {
	if n, ok := q.limits.ListenerMaxConnections[listener]; ok {
		return n
	}
	return q.limits.MaxConnections
}

func (q *connectionQuotas) protected(listener string) bool {
	return listener == q.limits.InterBrokerListener && q.listeners > 1
}

// excess is how many connections are open past max.connections.
func (q *connectionQuotas) excess() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return max(q.total-q.limits.MaxConnections, 0)
}

// protectedListener reports whether connections of listener are exempt
// from max.connections (and so are never closed to enforce it).
func (q *connectionQuotas) protectedListener(listener string) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.protected(listener)
}

// update replaces the limits and wakes acceptors waiting for a slot.
func (q *connectionQuotas) update(limits resolvedLimits) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.limits = limits
	q.slotFreed.Broadcast()
}

func (q *connectionQuotas) currentLimits() ConnectionLimits {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.limits.ConnectionLimits
}

// close ends every wait for a slot.
func (q *connectionQuotas) close() {
	q.mu.Lock()
	defer q.mu.Unlock()
	if !q.closed {
		close(q.done)
	}
	q.closed = true
	q.slotFreed.Broadcast()
}

// count is how many connections from addr are open.
func (q *connectionQuotas) count(addr netip.Addr) int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.byAddr[addr]
}

// acceptorsWaiting is how many acceptors wait for a slot.
func (q *connectionQuotas) acceptorsWaiting() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.waiting
}

// blocked is how long listener's acceptor has waited for slots in all.
func (q *connectionQuotas) blocked(listener string) time.Duration {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.blockedTime[listener]
}

// remoteIP is the address a connection's per-IP quota counts against;
// IPv4-mapped IPv6 addresses count as the IPv4 address, as in Java.
func remoteIP(nc net.Conn) netip.Addr {
	if a, ok := nc.RemoteAddr().(*net.TCPAddr); ok {
		return a.AddrPort().Addr().Unmap()
	}
	return netip.Addr{}
}
