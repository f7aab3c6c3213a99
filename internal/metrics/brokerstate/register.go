package brokerstate

import (
	klog "github.com/karst-broker/karst/internal/log"
	"github.com/karst-broker/karst/internal/metrics"
)

// Register adds the scrape-time collector over src to m's registry and
// feeds m's log flush histogram from every log's fsync rounds. The
// returned function undoes both; call it when the broker stops.
func Register(m *metrics.Metrics, src Sources) (unregister func()) {
	if m == nil {
		return func() {}
	}
	c := New(src)
	m.Registry.MustRegister(c)
	stopFlushes := klog.ObserveFlushes(m.LogFlushed)
	return func() {
		stopFlushes()
		m.Registry.Unregister(c)
	}
}
