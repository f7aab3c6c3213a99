package server

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"math"
	"net"
	"net/netip"
	"slices"
)

// ConnectionLimits are the connection quotas, with Kafka's meanings: a
// limit of 0 admits nothing (max.connections.per.ip 0 with overrides
// admits only the addresses the overrides name).
type ConnectionLimits struct {
	// MaxConnections is max.connections, over all listeners.
	MaxConnections int
	// ListenerMaxConnections are listener.name.<listener>.max.connections
	// by listener name; a listener not named has MaxConnections.
	ListenerMaxConnections map[string]int
	// MaxConnectionsPerIP is max.connections.per.ip.
	MaxConnectionsPerIP int
	// MaxConnectionsPerIPOverrides is max.connections.per.ip.overrides:
	// limits by IP address or host name. A host name counts for every
	// address it resolves to when the limits are applied.
	MaxConnectionsPerIPOverrides map[string]int
	// MaxConnectionCreationRate is max.connection.creation.rate: new
	// connections per second over all listeners but a protected
	// inter-broker one.
	MaxConnectionCreationRate int
	// ListenerMaxConnectionCreationRate are
	// listener.name.<listener>.max.connection.creation.rate by listener
	// name; a listener not named has MaxConnectionCreationRate.
	ListenerMaxConnectionCreationRate map[string]int
	// InterBrokerListener is inter.broker.listener.name, exempt from
	// MaxConnections and MaxConnectionCreationRate when there are other
	// listeners.
	InterBrokerListener string
}

// NoConnectionLimits are Kafka's defaults: every limit is Int.MaxValue.
func NoConnectionLimits() ConnectionLimits {
	return ConnectionLimits{MaxConnections: math.MaxInt32, MaxConnectionsPerIP: math.MaxInt32, MaxConnectionCreationRate: math.MaxInt32}
}

// resolvedLimits are ConnectionLimits with the override hosts resolved.
type resolvedLimits struct {
	ConnectionLimits
	perIP map[netip.Addr]int
}

// resolveLimits looks up the override host names.
func resolveLimits(ctx context.Context, l ConnectionLimits) (resolvedLimits, error) {
	r := resolvedLimits{ConnectionLimits: l, perIP: map[netip.Addr]int{}}
	r.ListenerMaxConnections = maps.Clone(l.ListenerMaxConnections)
	r.ListenerMaxConnectionCreationRate = maps.Clone(l.ListenerMaxConnectionCreationRate)
	r.MaxConnectionsPerIPOverrides = maps.Clone(l.MaxConnectionsPerIPOverrides)
	for host, limit := range l.MaxConnectionsPerIPOverrides {
		if a, err := netip.ParseAddr(host); err == nil {
			r.perIP[a.Unmap()] = limit
			continue
		}
		addrs, err := net.DefaultResolver.LookupNetIP(ctx, "ip", host)
		if err != nil {
			return r, fmt.Errorf("max.connections.per.ip.overrides: %w", err)
		}
		for _, a := range addrs {
			r.perIP[a.Unmap()] = limit
		}
	}
	return r, nil
}

// connSlot is what a connection holds in the quotas.
type connSlot struct {
	listener string
	addr     netip.Addr
	// evicted is set once the connection was closed to bring the total
	// back within max.connections; its slot is released when it ends.
	evicted bool
}

// SetConnectionLimits replaces the connection quotas (a dynamic update of
// max.connections and the per-IP limits). Acceptors waiting for a slot
// look again, and connections past a lowered max.connections are closed,
// least recently active first. On error (an override host that does not
// resolve) the limits in force are kept.
func (s *Server) SetConnectionLimits(ctx context.Context, limits ConnectionLimits) error {
	resolved, err := resolveLimits(ctx, limits)
	if err != nil {
		return err
	}
	s.quotas.update(resolved)
	s.closeExcessConnections()
	return nil
}

// ConnectionLimits returns the connection quotas in force.
func (s *Server) ConnectionLimits() ConnectionLimits { return s.quotas.currentLimits() }

// ConnectionCount is how many connections from addr are open, as the
// per-IP quota counts them.
func (s *Server) ConnectionCount(addr netip.Addr) int { return s.quotas.count(addr.Unmap()) }

// AcceptorBlocked is how long the named listener's acceptor has waited in
// all for a slot under max.connections (Kafka's AcceptorBlockedPercent is
// the rate of this).
func (s *Server) AcceptorBlocked(listener string) float64 {
	return s.quotas.blocked(listener).Seconds()
}

// ConnectionCreationRates are the broker's connection creation rate and
// the named listener's, in connections per second over the quota window
// (Kafka's broker-connection-accept-rate and connection-accept-rate).
func (s *Server) ConnectionCreationRates(listener string) (broker, perListener float64) {
	return s.quotas.creationRates(listener)
}

// AcceptsThrottled is how many connections the acceptors held back for
// the broker's or their listener's max.connection.creation.rate.
func (s *Server) AcceptsThrottled() int64 { return s.quotas.acceptsThrottled() }

// closeExcessConnections closes connections while more are open than
// max.connections allows, least recently active first, sparing the
// protected inter-broker listener (Kafka's Processor closeExcessConnections,
// which closes the selector's least recently used channel).
func (s *Server) closeExcessConnections() {
	excess := s.quotas.excess()
	if excess == 0 {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	var candidates []*conn
	for c, slot := range s.conns {
		switch {
		case slot.evicted:
			excess-- // closed already, not yet released
		case !s.quotas.protectedListener(slot.listener):
			candidates = append(candidates, c)
		}
	}
	slices.SortFunc(candidates, func(a, b *conn) int { return cmp.Compare(a.lastActive.Load(), b.lastActive.Load()) })
	for _, c := range candidates[:max(0, min(excess, len(candidates)))] {
		s.conns[c].evicted = true
		s.stats.ConnectionsClosedOverMax.Add(1)
		s.logger.Info("closing connection over max.connections", "listener", c.info.ListenerName, "remote", c.info.RemoteAddr, "principal", c.info.Principal().String())
		c.nc.Close()
	}
}
