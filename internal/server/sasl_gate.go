package server

import (
	"context"
	"fmt"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/karst-broker/karst/internal/handler"
	"github.com/karst-broker/karst/internal/sasl"
	"github.com/karst-broker/karst/internal/security/principal"
	"github.com/karst-broker/karst/internal/wire"
)

// The SASL gate keeps every request of a connection on a SASL listener
// away from the handlers until the client has authenticated, as Kafka's
// SaslServerAuthenticator does: before that only ApiVersions (once),
// SaslHandshake and then the mechanism's tokens are read; anything else
// fails the authentication. A failed authentication is answered (when
// Kafka answers it) after connection.failed.authentication.delay.ms and
// the connection is then closed; the wait is on the connection's own
// writer, so other clients do not feel it.

const (
	saslHandshakeKey    = 17
	saslAuthenticateKey = 36
	// reauthMinInterval: Kafka starts no re-authentication within a
	// second of the last one; such a handshake goes to the handlers.
	reauthMinInterval = time.Second
)

type gateState int

const (
	// gateHandshakeOrVersions: nothing read yet (or, re-authenticating,
	// the handshake is next).
	gateHandshakeOrVersions gateState = iota
	// gateHandshake: ApiVersions was answered; the handshake is next.
	gateHandshake
	// gateAuthenticate: SaslAuthenticate requests carry the tokens.
	gateAuthenticate
	// gateRawTokens: after a v0 handshake, tokens are bare frames.
	gateRawTokens
	// gateBadMechanism: a re-authentication asked for another mechanism;
	// its next token fails it.
	gateBadMechanism
	gateAuthenticated
)

type saslGate struct {
	listener  *sasl.Listener
	state     gateState
	mechanism string
	exchange  sasl.Exchange
	// user is the authenticated user, kept across re-authentications.
	user string
	// expires ends the session (connections.max.reauth.ms); zero never.
	expires time.Time
	// lifetime is the session's length, sent in SaslAuthenticate.
	lifetime time.Duration
	// authStarted is when the current (re-)authentication began.
	authStarted time.Time
	reauth      bool
	badMessage  string
}

func newSASLGate(l *sasl.Listener) *saslGate {
	return &saslGate{listener: l, authStarted: time.Now()}
}

// maxFrameSize is the largest frame to read next: until the client has
// authenticated, the listener's sasl.server.max.receive.size, as Kafka's
// authenticator reads with it.
func (g *saslGate) maxFrameSize(authenticated int32) int32 {
	if g.state == gateAuthenticated || g.listener.MaxReceiveSize <= 0 {
		return authenticated
	}
	return min(authenticated, g.listener.MaxReceiveSize)
}

// admit is where each request frame enters: the SASL gate when the
// listener has one, else straight to dispatch.
func (c *conn) admit(frame []byte) (*pending, bool) {
	if c.sasl == nil {
		return c.dispatch(frame)
	}
	return c.sasl.admit(c, frame)
}

// wantsRawToken reports whether the next frame is a bare SASL token (after
// a v0 handshake), which may be shorter than a request header.
func (c *conn) wantsRawToken() bool { return c.sasl != nil && c.sasl.state == gateRawTokens }

func (g *saslGate) admit(c *conn, frame []byte) (*pending, bool) {
	now := time.Now()
	if g.state == gateRawTokens {
		return g.rawToken(c, frame)
	}
	key, version, _ := wire.PeekAPI(frame)
	p := &pending{correlationID: wire.PeekCorrelationID(frame), apiKey: key, version: version, arrived: now}
	switch g.state {
	case gateAuthenticated:
		if key == saslHandshakeKey && !g.expires.IsZero() && now.Sub(g.authStarted) >= reauthMinInterval {
			g.reauth, g.authStarted, g.state = true, now, gateHandshakeOrVersions
			c.logger().Debug("re-authenticating", "mechanism", g.mechanism)
			return g.handshake(c, p, frame)
		}
		if !g.expires.IsZero() && now.After(g.expires) {
			c.logger().Info("closing connection: its SASL session expired (connections.max.reauth.ms) and it did not re-authenticate",
				"api_key", key)
			c.s.stats.SessionsExpired.Add(1)
			return nil, false
		}
		return c.dispatch(frame)
	case gateHandshakeOrVersions, gateHandshake:
		switch {
		case key == apiVersionsKey && g.state == gateHandshakeOrVersions && !g.reauth:
			p, ok := c.dispatch(frame)
			if ok {
				if resp, isAV := p.outcome.Response.(*kmsg.ApiVersionsResponse); isAV && resp.ErrorCode == 0 {
					g.state = gateHandshake
				}
			}
			return p, ok
		case key == saslHandshakeKey:
			return g.handshake(c, p, frame)
		case g.state == gateHandshakeOrVersions && !g.reauth && handler.Lookup(key) == nil && g.listener.Enabled(sasl.GSSAPI):
			// As Kafka, for clients of 0.9 (and sarama's v0 GSSAPI): a
			// first frame that is no Kafka request is GSSAPI's first
			// token, and the tokens after it are bare frames.
			return g.startBareGSSAPI(c, frame)
		}
		return g.fail(c, p, nil, fmt.Sprintf("Unexpected Kafka request of type %s during SASL handshake.", apiName(key)))
	case gateBadMechanism:
		return g.fail(c, p, nil, g.badMessage)
	}
	if key != saslAuthenticateKey {
		// Kafka answers with the request's own error response.
		reason := fmt.Sprintf("Unexpected Kafka request of type %s during SASL authentication.", apiName(key))
		api := handler.Lookup(key)
		if api == nil || !api.Supports(version) {
			c.logger().Info("closing connection: "+reason, "api_key", key, "api_version", version)
			return nil, false
		}
		resp := handler.ErrorResponse(key, version, kerr.IllegalSaslState.Code)
		return g.fail(c, p, resp, reason)
	}
	return g.authenticate(c, p, frame)
}

func apiName(key int16) string {
	if name := kmsg.NameForKey(key); name != "" {
		return name
	}
	return fmt.Sprint(key)
}

// decodeGated decodes a request the gate answers itself; false means the
// frame cannot be read and the connection closes, as Kafka's
// authenticator gives up on a request it cannot parse.
func (g *saslGate) decodeGated(c *conn, frame []byte, p *pending) (kmsg.Request, bool) {
	api := handler.Lookup(p.apiKey)
	if api == nil || !api.Supports(p.version) {
		c.logger().Info("closing connection: SASL request at a version not served", "api_key", p.apiKey, "api_version", p.version)
		return nil, false
	}
	req := kmsg.RequestForKey(p.apiKey)
	req.SetVersion(p.version)
	_, body, err := wire.ParseRequestHeader(frame, req.IsFlexible())
	if err == nil {
		err = c.s.decodes.decode(req, body)
	}
	if err != nil {
		c.logger().Info("closing connection: SASL request could not be decoded", "api_key", p.apiKey, "api_version", p.version, "err", err)
		return nil, false
	}
	return req, true
}

func (g *saslGate) handshake(c *conn, p *pending, frame []byte) (*pending, bool) {
	body, ok := g.decodeGated(c, frame, p)
	if !ok {
		return nil, false
	}
	req := body.(*kmsg.SASLHandshakeRequest)
	resp := kmsg.NewPtrSASLHandshakeResponse()
	resp.SupportedMechanisms = g.listener.Mechanisms
	if !g.listener.Enabled(req.Mechanism) {
		resp.ErrorCode = kerr.UnsupportedSaslMechanism.Code
		return g.fail(c, p, resp, "Unsupported SASL mechanism "+req.Mechanism)
	}
	c.answer(p, resp)
	if g.reauth && req.Mechanism != g.mechanism {
		g.state = gateBadMechanism
		g.badMessage = fmt.Sprintf("SASL mechanism '%s' requested by client is not supported for re-authentication of mechanism '%s'", req.Mechanism, g.mechanism)
		return p, true
	}
	x, err := g.listener.Start(req.Mechanism)
	if err != nil {
		c.logger().Warn("closing connection: starting a SASL exchange failed", "mechanism", req.Mechanism, "err", err)
		return nil, false
	}
	g.mechanism, g.exchange = req.Mechanism, x
	g.state = gateAuthenticate
	if p.version == 0 {
		g.state = gateRawTokens
	}
	return p, true
}

func (g *saslGate) authenticate(c *conn, p *pending, frame []byte) (*pending, bool) {
	body, ok := g.decodeGated(c, frame, p)
	if !ok {
		return nil, false
	}
	req := body.(*kmsg.SASLAuthenticateRequest)
	out, err := g.exchange.Step(req.SASLAuthBytes)
	if err == nil && g.exchange.Done() {
		err = g.complete(c)
	}
	resp := kmsg.NewPtrSASLAuthenticateResponse()
	if err != nil {
		resp.ErrorCode = kerr.SaslAuthenticationFailed.Code
		msg := sasl.FailureMessage(err, g.mechanism, g.reauth)
		resp.ErrorMessage = &msg
		return g.fail(c, p, resp, err.Error())
	}
	resp.SASLAuthBytes = out
	if g.state == gateAuthenticated {
		resp.SessionLifetimeMillis = g.lifetime.Milliseconds()
	}
	c.answer(p, resp)
	return p, true
}

func (g *saslGate) startBareGSSAPI(c *conn, token []byte) (*pending, bool) {
	x, err := g.listener.Start(sasl.GSSAPI)
	if err != nil {
		c.logger().Warn("closing connection: starting a SASL exchange failed", "mechanism", sasl.GSSAPI, "err", err)
		return nil, false
	}
	g.mechanism, g.exchange, g.state = sasl.GSSAPI, x, gateRawTokens
	return g.rawToken(c, token)
}

// rawToken carries one bare token after a v0 handshake; the answer is a
// bare size-prefixed token too, and a failure closes the connection
// unanswered, as Kafka does for clients without SaslAuthenticate.
func (g *saslGate) rawToken(c *conn, token []byte) (*pending, bool) {
	p := &pending{apiKey: saslHandshakeKey, arrived: time.Now()}
	out, err := g.exchange.Step(token)
	if err == nil && g.exchange.Done() {
		err = g.complete(c)
	}
	if err != nil {
		return g.fail(c, p, nil, err.Error())
	}
	if out == nil && g.state == gateAuthenticated {
		// Kafka writes no frame for a SaslServer's null final answer.
		p.outcome = handler.Outcome{NoResponse: true}
		return p, true
	}
	f, at := wire.AppendSizePrefix(nil)
	f = append(f, out...)
	wire.FinishFrame(f, at)
	p.raw = f
	return p, true
}

// complete finishes a successful exchange: the session starts, with its
// lifetime, and the connection takes the principal.
func (g *saslGate) complete(c *conn) error {
	user := g.exchange.User()
	if g.reauth && user != g.user {
		return &sasl.Failure{Message: fmt.Sprintf("Cannot change principals during re-authentication from User.%s: User.%s", g.user, user)}
	}
	g.user, g.state = user, gateAuthenticated
	now := time.Now()
	g.lifetime, g.expires = g.listener.MaxReauth[g.mechanism], time.Time{}
	if g.lifetime > 0 {
		g.expires = now.Add(g.lifetime)
	}
	if e, ok := g.exchange.(sasl.Expiring); ok && !e.CredentialExpires().IsZero() {
		// As Kafka: a credential that expires bounds the session, with
		// or without connections.max.reauth.ms; one expired already
		// leaves a session of 0 ms, which the next request ends.
		left := max(e.CredentialExpires().Sub(now), 0)
		if g.expires.IsZero() || left < g.lifetime {
			g.lifetime, g.expires = left, now.Add(left)
		}
	}
	c.authenticatedAs(principal.User(user))
	t, isToken := g.exchange.(sasl.TokenAuthenticating)
	c.info.SetTokenAuthenticated(isToken && t.TokenAuthenticated())
	c.s.stats.Authentications.Add(1)
	c.s.cfg.Metrics.AuthenticationEnded(c.info.ListenerName, true, g.reauth)
	// logger() already names the principal the connection now has.
	c.logger().Info("authenticated", "mechanism", g.mechanism, "reauthentication", g.reauth,
		"token_authenticated", c.info.TokenAuthenticated(), "session_lifetime_ms", g.lifetime.Milliseconds())
	return nil
}

// fail ends an authentication: resp (nil when Kafka sends none) is written
// after the listener's failed-authentication delay and the connection is
// then closed.
func (g *saslGate) fail(c *conn, p *pending, resp kmsg.Response, reason string) (*pending, bool) {
	c.authenticationFailed(g.reauth)
	stage := "authentication"
	if g.reauth {
		stage = "re-authentication"
	}
	c.logger().Info("SASL "+stage+" failed; closing the connection", "mechanism", g.mechanism, "reason", reason)
	delay := g.listener.FailedAuthenticationDelay
	p.raw = nil
	p.outcome = handler.Outcome{Later: func(ctx context.Context) kmsg.Response {
		sleepUnlessDone(ctx, delay)
		return resp
	}}
	p.closeAfter = true
	return p, true
}

func sleepUnlessDone(ctx context.Context, d time.Duration) {
	if d <= 0 {
		return
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
}

// answer sets an immediate response at the request's version.
func (c *conn) answer(p *pending, resp kmsg.Response) {
	p.outcome = handler.Ready(resp)
	p.flexibleHeader = c.setVersion(resp, p.version)
}
