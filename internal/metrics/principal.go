package metrics

import (
	"sync"

	"github.com/prometheus/client_golang/prometheus"
)

// principalConnections is the count of open connections by listener and
// principal (User:ANONYMOUS until a connection authenticates): who is
// connected, which Kafka's connection-count by listener does not say. A
// series goes away when its last connection closes, so principals that
// come and go do not pile up.
type principalConnections struct {
	gauge *prometheus.GaugeVec
	mu    sync.Mutex
	open  map[[2]string]int
}

func newPrincipalConnections() *principalConnections {
	return &principalConnections{
		gauge: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Namespace: "karst", Subsystem: "server", Name: "connections_by_principal",
			Help: "Open client connections, by listener and principal (User:ANONYMOUS before authentication).",
		}, []string{"listener", "principal"}),
		open: map[[2]string]int{},
	}
}

func (p *principalConnections) add(listener, principal string, delta int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	k := [2]string{listener, principal}
	n := p.open[k] + delta
	if n <= 0 {
		delete(p.open, k)
		p.gauge.DeleteLabelValues(listener, principal)
		return
	}
	p.open[k] = n
	p.gauge.WithLabelValues(listener, principal).Set(float64(n))
}

// PrincipalConnected counts a connection of principal on listener.
func (m *Metrics) PrincipalConnected(listener, principal string) {
	if m == nil {
		return
	}
	m.principals.add(listener, principal, 1)
}

// PrincipalDisconnected is the end of a connection PrincipalConnected or
// PrincipalChanged counted.
func (m *Metrics) PrincipalDisconnected(listener, principal string) {
	if m == nil {
		return
	}
	m.principals.add(listener, principal, -1)
}

// PrincipalChanged moves a connection from one principal to another, when
// it authenticates.
func (m *Metrics) PrincipalChanged(listener, from, to string) {
	if m == nil || from == to {
		return
	}
	m.principals.add(listener, from, -1)
	m.principals.add(listener, to, 1)
}
