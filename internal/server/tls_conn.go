package server

import (
	"errors"
	"io"
	"slices"
	"sync"

	"github.com/karst-broker/karst/internal/handler"
	"github.com/karst-broker/karst/internal/security/principal"
)

// authenticateTLS runs an SSL connection's handshake and names the client
// as Kafka's SslAuthenticator and DefaultKafkaPrincipalBuilder do: without
// a client certificate (ssl.client.auth none, or requested and not sent)
// it stays User:ANONYMOUS; a certificate's subject, in RFC 2253 form, is
// mapped by ssl.principal.mapping.rules, and a subject no rule maps fails
// authentication. It reports whether the connection may go on.
func (c *conn) authenticateTLS() bool {
	if err := c.tls.HandshakeContext(c.s.ctx); err != nil {
		c.authenticationFailed(false)
		level := c.logger().Info
		if errors.Is(err, io.EOF) {
			level = c.logger().Debug // a port probe, or a client that gave up
		}
		level("failed authentication: SSL handshake failed", "err", err)
		return false
	}
	certs := c.tls.ConnectionState().PeerCertificates
	if len(certs) == 0 {
		c.tlsAuthenticated()
		return true
	}
	dn, err := principal.DistinguishedName(certs[0].RawSubject)
	if err == nil && c.principalMapper != nil {
		dn, err = c.principalMapper.Name(dn)
	}
	if err != nil {
		c.authenticationFailed(false)
		c.logger().Info("failed authentication: no principal for the client certificate", "err", err)
		return false
	}
	c.authenticatedAs(principal.User(dn))
	c.tlsAuthenticated()
	c.logger().Debug("authenticated with a client certificate", "subject", certs[0].Subject.String())
	return true
}

// tlsAuthenticated counts a finished handshake as the connection's
// authentication on an SSL listener; on SASL_SSL, as in Kafka, the
// connection is authenticated only when its SASL exchange ends.
func (c *conn) tlsAuthenticated() {
	if c.sasl == nil {
		c.s.cfg.Metrics.AuthenticationEnded(c.info.ListenerName, true, false)
	}
}

// authenticationFailed counts a refused authentication or
// re-authentication, on the broker's counters and its metrics.
func (c *conn) authenticationFailed(reauthentication bool) {
	if reauthentication {
		c.s.stats.ReauthenticationsFailed.Add(1)
	} else {
		c.s.stats.AuthenticationsFailed.Add(1)
	}
	c.s.cfg.Metrics.AuthenticationEnded(c.info.ListenerName, false, reauthentication)
}

// regionChunk is how many segment bytes at a time go through a pooled
// buffer to a connection that cannot use sendfile.
const regionChunk = 64 << 10

var regionBuffers = sync.Pool{New: func() any { b := make([]byte, regionChunk); return &b }}

// copyFileRegion sends a segment file region on a connection that cannot
// use sendfile (TLS encrypts in user space). A region that fits beside the
// gathered responses joins them; a larger one is read and written a chunk
// at a time through a pooled buffer: no per-record work, and no buffer the
// size of the response. The error is a failed read of the file.
func (c *conn) copyFileRegion(out []byte, part handler.BodyPart) ([]byte, error) {
	if len(out)+int(part.Length) <= flushThreshold {
		start := len(out)
		out = slices.Grow(out, int(part.Length))[:start+int(part.Length)]
		_, err := part.File.ReadAt(out[start:], part.Offset)
		return out, err
	}
	out = c.flush(out)
	bp := regionBuffers.Get().(*[]byte)
	defer regionBuffers.Put(bp)
	buf := *bp
	for off, left := part.Offset, part.Length; left > 0 && !c.isBroken(); {
		n := int(min(left, int64(len(buf))))
		if _, err := part.File.ReadAt(buf[:n], off); err != nil {
			return out, err
		}
		if _, err := c.nc.Write(buf[:n]); err != nil {
			c.markBroken()
		}
		off, left = off+int64(n), left-int64(n)
	}
	return out, nil
}
