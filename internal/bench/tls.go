package bench

import (
	"context"
	"crypto/tls"
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
	"github.com/twmb/franz-go/pkg/sasl"
)

// clientTLS, when set, makes every connection of the load tool (franz-go
// clients and raw connections alike) dial with TLS, for a broker's SSL
// listener. The load tool runs one mode per process, so one setting
// serves it.
var clientTLS *tls.Config

// clientSASL, when set, makes every connection authenticate with this
// mechanism (SaslHandshake then SaslAuthenticate) before its first
// request, for a SASL_PLAINTEXT or SASL_SSL listener.
var clientSASL sasl.Mechanism

// UseTLS makes the load tool dial brokers with TLS configured by c; nil
// dials plaintext.
func UseTLS(c *tls.Config) { clientTLS = c }

// UseSASL makes the load tool authenticate every connection with m; nil
// does not authenticate.
func UseSASL(m sasl.Mechanism) { clientSASL = m }

// tlsOpts is the franz-go options for clientTLS and clientSASL.
func tlsOpts() []kgo.Opt {
	var opts []kgo.Opt
	if clientTLS != nil {
		opts = append(opts, kgo.DialTLSConfig(clientTLS.Clone()))
	}
	if clientSASL != nil {
		opts = append(opts, kgo.SASL(clientSASL))
	}
	return opts
}

// dial opens a raw connection to addr, with TLS when clientTLS is set,
// authenticated when clientSASL is set.
func dial(ctx context.Context, addr string) (net.Conn, error) {
	var conn net.Conn
	var err error
	if clientTLS == nil {
		var d net.Dialer
		conn, err = d.DialContext(ctx, "tcp", addr)
	} else {
		d := tls.Dialer{Config: clientTLS.Clone()}
		conn, err = d.DialContext(ctx, "tcp", addr)
	}
	if err != nil || clientSASL == nil {
		return conn, err
	}
	if err := authenticate(ctx, conn, addr, clientSASL); err != nil {
		conn.Close()
		return nil, err
	}
	return conn, nil
}

// Request versions of the raw SASL exchange: both take response header
// v0 (no tagged fields), and SaslAuthenticate v1 carries the session
// lifetime (KIP-368), which the load tool does not act on.
const (
	saslHandshakeVersion    = 1
	saslAuthenticateVersion = 1
)

// authenticate runs the SASL exchange of m on a raw connection as a Kafka
// client does: SaslHandshake v1 naming the mechanism, then SaslAuthenticate
// until the mechanism is done.
func authenticate(ctx context.Context, conn net.Conn, addr string, m sasl.Mechanism) error {
	if deadline, ok := ctx.Deadline(); ok {
		conn.SetDeadline(deadline)
	} else {
		conn.SetDeadline(time.Now().Add(30 * time.Second))
	}
	defer conn.SetDeadline(time.Time{})
	formatter := kmsg.NewRequestFormatter(kmsg.FormatterClientID("karst-bench"))
	var buf []byte
	var corr int32
	roundTrip := func(req kmsg.Request, resp kmsg.Response) error {
		corr++
		if _, err := conn.Write(formatter.AppendRequest(nil, req, corr)); err != nil {
			return err
		}
		frame, err := readFrame(conn, buf, maxResponseFrame)
		if err != nil {
			return err
		}
		buf = frame[:0]
		if got := int32(binary.BigEndian.Uint32(frame)); got != corr {
			return fmt.Errorf("bench: SASL response correlation id %d, want %d", got, corr)
		}
		return resp.ReadFrom(frame[4:])
	}

	hs := kmsg.NewPtrSASLHandshakeRequest()
	hs.Version = saslHandshakeVersion
	hs.Mechanism = m.Name()
	hsResp := kmsg.NewPtrSASLHandshakeResponse()
	hsResp.Version = saslHandshakeVersion
	if err := roundTrip(hs, hsResp); err != nil {
		return fmt.Errorf("bench: SaslHandshake: %w", err)
	}
	if err := kerr.ErrorForCode(hsResp.ErrorCode); err != nil {
		return fmt.Errorf("bench: SaslHandshake %s (the broker enables %v): %w", m.Name(), hsResp.SupportedMechanisms, err)
	}
	host, _, _ := net.SplitHostPort(addr)
	session, clientWrite, err := m.Authenticate(ctx, host)
	if err != nil {
		return fmt.Errorf("bench: SASL %s: %w", m.Name(), err)
	}
	for {
		auth := kmsg.NewPtrSASLAuthenticateRequest()
		auth.Version = saslAuthenticateVersion
		auth.SASLAuthBytes = clientWrite
		authResp := kmsg.NewPtrSASLAuthenticateResponse()
		authResp.Version = saslAuthenticateVersion
		if err := roundTrip(auth, authResp); err != nil {
			return fmt.Errorf("bench: SaslAuthenticate: %w", err)
		}
		if err := kerr.ErrorForCode(authResp.ErrorCode); err != nil {
			msg := ""
			if authResp.ErrorMessage != nil {
				msg = ": " + *authResp.ErrorMessage
			}
			return fmt.Errorf("bench: SASL %s: %w%s", m.Name(), err, msg)
		}
		var done bool
		done, clientWrite, err = session.Challenge(authResp.SASLAuthBytes)
		if err != nil {
			return fmt.Errorf("bench: SASL %s: %w", m.Name(), err)
		}
		if done {
			return nil
		}
		if clientWrite == nil {
			return errors.New("bench: SASL " + m.Name() + ": the mechanism has nothing to send and is not done")
		}
	}
}
