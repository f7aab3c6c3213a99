package handler

import (
	"crypto/rand"
	"net"

	"github.com/karst-broker/karst/internal/config"
	"github.com/karst-broker/karst/internal/metadata"
	"github.com/karst-broker/karst/internal/metrics"
)

// telemetrySubscription is the subscription the client-metrics configs in
// the current metadata give a client instance.
func (b *Broker) telemetrySubscription(r *Request, instanceID [16]byte) metrics.ClientSubscription {
	img := b.image()
	var subs []config.ClientMetricsSubscription
	for _, name := range img.ConfigResourceNames(metadata.ConfigResourceClientMetrics) {
		subs = append(subs, config.ClientMetricsSubscriptionFrom(name, img.Configs(metadata.ConfigResource{Type: metadata.ConfigResourceClientMetrics, Name: name})))
	}
	attrs := metrics.ClientAttributes{InstanceID: metadata.UUID(instanceID).String()}
	if r.Header.ClientID != nil {
		attrs.ClientID = *r.Header.ClientID
	}
	if r.Conn != nil {
		attrs.SoftwareName, attrs.SoftwareVersion = r.Conn.ClientSoftware()
		if host, port, err := net.SplitHostPort(r.Conn.RemoteAddr); err == nil {
			attrs.SourceAddress, attrs.SourcePort = host, port
		}
	}
	return metrics.Subscribe(instanceID, attrs, subs)
}

// reservedInstanceID reports Kafka's Uuid.RESERVED: the zero id and the
// metadata topic's id (0...01).
func reservedInstanceID(id [16]byte) bool {
	var zero [16]byte
	one := zero
	one[15] = 1
	return id == zero || id == one
}

// newClientInstanceID is a random id outside the reserved ones.
func newClientInstanceID() [16]byte {
	for {
		var id [16]byte
		_, _ = rand.Read(id[:])
		if !reservedInstanceID(id) {
			return id
		}
	}
}
