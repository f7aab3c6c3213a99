package bench

import (
	"context"
	"crypto/tls"
	"net"

	"github.com/twmb/franz-go/pkg/kgo"
)

// clientTLS, when set, makes every connection of the load tool (franz-go
// clients and raw connections alike) dial with TLS, for a broker's SSL
// listener. The load tool runs one mode per process, so one setting
// serves it.
var clientTLS *tls.Config

// UseTLS makes the load tool dial brokers with TLS configured by c; nil
// dials plaintext.
func UseTLS(c *tls.Config) { clientTLS = c }

// tlsOpts is the franz-go option for clientTLS.
func tlsOpts() []kgo.Opt {
	if clientTLS == nil {
		return nil
	}
	return []kgo.Opt{kgo.DialTLSConfig(clientTLS.Clone())}
}

// dial opens a raw connection to addr, with TLS when clientTLS is set.
func dial(ctx context.Context, addr string) (net.Conn, error) {
	if clientTLS == nil {
		var d net.Dialer
		return d.DialContext(ctx, "tcp", addr)
	}
	d := tls.Dialer{Config: clientTLS.Clone()}
	return d.DialContext(ctx, "tcp", addr)
}
