package integration

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
	"github.com/twmb/franz-go/pkg/sasl/oauth"

	"github.com/karst-broker/karst/internal/sasl"
	"github.com/karst-broker/karst/karsttest"
	"github.com/karst-broker/karst/karsttest/jwtissuer"
)

// unsecuredToken is a JWS with alg none, as Kafka's unsecured login
// module makes for development.
func unsecuredToken(t *testing.T, claims map[string]any) string {
	t.Helper()
	part := func(v any) string {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		return base64.RawURLEncoding.EncodeToString(b)
	}
	return part(map[string]any{"alg": "none"}) + "." + part(claims) + "."
}

func TestSASLOAuthBearerUnsecuredTokens(t *testing.T) {
	b := startSASLBroker(t,
		karsttest.WithConfig("sasl.enabled.mechanisms", "PLAIN,SCRAM-SHA-256,SCRAM-SHA-512,OAUTHBEARER"),
		karsttest.WithConfig("listener.name.sasl_plaintext.oauthbearer.sasl.jaas.config",
			`org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required unsecuredValidatorRequiredScope="kafka";`))
	addr := b.ListenerAddr("SASL_PLAINTEXT")
	now := time.Now()
	good := unsecuredToken(t, map[string]any{"sub": "erin", "iat": now.Unix(), "exp": now.Add(time.Hour).Unix(), "scope": "kafka"})
	produceAndReadBack(t, saslClient(t, addr, oauth.Auth{Token: good}.AsMechanism()), "oauth")

	expired := unsecuredToken(t, map[string]any{"sub": "erin", "exp": now.Add(-time.Hour).Unix(), "scope": "kafka"})
	wantSASLFailure(t, addr, oauth.Auth{Token: expired}.AsMechanism(), kerr.SaslAuthenticationFailed, `{"status":"invalid_token"}`)
	unscoped := unsecuredToken(t, map[string]any{"sub": "erin", "exp": now.Add(time.Hour).Unix()})
	wantSASLFailure(t, addr, oauth.Auth{Token: unscoped}.AsMechanism(), kerr.SaslAuthenticationFailed, `{"status":"invalid_token", "scope":"[kafka]"}`)

	// The session lasts as long as the token (KIP-368), without
	// connections.max.reauth.ms.
	c := dialKafka(t, addr)
	c.roundTrip(t, handshakeRequest("OAUTHBEARER"))
	shortLived := unsecuredToken(t, map[string]any{"sub": "erin", "exp": now.Add(10 * time.Minute).Unix(), "scope": "kafka"})
	resp := c.roundTrip(t, authenticateRequest(2, "n,,\x01auth=Bearer "+shortLived+"\x01\x01")).(*kmsg.SASLAuthenticateResponse)
	if resp.ErrorCode != 0 || resp.SessionLifetimeMillis <= 0 || resp.SessionLifetimeMillis > (10*time.Minute).Milliseconds() {
		t.Fatalf("authenticate: %+v", resp)
	}
}

// TestSASLOAuthBearerSignedTokens: with OAuthBearerValidatorCallbackHandler
// a listener takes only JWTs signed by a key of its JWKS (a file here, as
// sasl.oauthbearer.jwks.endpoint.url=file://...) for its audience and
// issuer; franz-go's OAUTHBEARER client authenticates with one.
func TestSASLOAuthBearerSignedTokens(t *testing.T) {
	issuer := jwtissuer.New(t, "test-key")
	b := startSASLBroker(t,
		karsttest.WithConfig("sasl.enabled.mechanisms", "PLAIN,OAUTHBEARER"),
		karsttest.WithConfig("listener.name.sasl_plaintext.oauthbearer.sasl.server.callback.handler.class", sasl.OAuthBearerValidatorCallbackHandler),
		karsttest.WithConfig("listener.name.sasl_plaintext.oauthbearer.sasl.oauthbearer.jwks.endpoint.url", issuer.WriteJWKS(t.TempDir())),
		karsttest.WithConfig("sasl.oauthbearer.expected.audience", "karst-cluster"),
		karsttest.WithConfig("sasl.oauthbearer.expected.issuer", "https://idp.example"),
		karsttest.WithConfig("sasl.oauthbearer.clock.skew.seconds", "0"))
	addr := b.ListenerAddr("SASL_PLAINTEXT")
	now := time.Now()
	claims := func(exp time.Time) map[string]any {
		return map[string]any{"sub": "svc-orders", "aud": "karst-cluster", "iss": "https://idp.example", "iat": now.Add(-time.Minute).Unix(), "exp": exp.Unix()}
	}
	cl := saslClient(t, addr, oauth.Auth{Token: issuer.Sign(claims(now.Add(time.Hour)))}.AsMechanism())
	produceAndReadBack(t, cl, "oauth-signed")

	wantSASLFailure(t, addr, oauth.Auth{Token: issuer.Sign(claims(now.Add(-time.Minute)))}.AsMechanism(), kerr.SaslAuthenticationFailed, `{"status":"invalid_token"}`)
	forged := jwtissuer.New(t, "test-key")
	wantSASLFailure(t, addr, oauth.Auth{Token: forged.Sign(claims(now.Add(time.Hour)))}.AsMechanism(), kerr.SaslAuthenticationFailed, `{"status":"invalid_token"}`)
	wantSASLFailure(t, addr, oauth.Auth{Token: unsecuredToken(t, claims(now.Add(time.Hour)))}.AsMechanism(), kerr.SaslAuthenticationFailed, `{"status":"invalid_token"}`)

	// The session ends when the token does (KIP-368).
	c := dialKafka(t, addr)
	c.roundTrip(t, handshakeRequest("OAUTHBEARER"))
	resp := c.roundTrip(t, authenticateRequest(2, "n,,\x01auth=Bearer "+issuer.Sign(claims(now.Add(5*time.Minute)))+"\x01\x01")).(*kmsg.SASLAuthenticateResponse)
	if resp.ErrorCode != 0 || resp.SessionLifetimeMillis <= 0 || resp.SessionLifetimeMillis > (5*time.Minute).Milliseconds() {
		t.Fatalf("authenticate: %+v", resp)
	}
}

// TestSASLOAuthBearerJWKSOverHTTP: the key set can be an http(s) URL,
// fetched at start and every sasl.oauthbearer.jwks.endpoint.refresh.ms.
func TestSASLOAuthBearerJWKSOverHTTP(t *testing.T) {
	issuer := jwtissuer.New(t, "http-key")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.Write(issuer.JWKS()) }))
	t.Cleanup(srv.Close)
	b := startSASLBroker(t,
		karsttest.WithConfig("sasl.enabled.mechanisms", "OAUTHBEARER"),
		karsttest.WithConfig("listener.name.sasl_plaintext.oauthbearer.sasl.server.callback.handler.class", sasl.OAuthBearerValidatorCallbackHandler),
		karsttest.WithConfig("sasl.oauthbearer.jwks.endpoint.url", srv.URL),
		karsttest.WithConfig("sasl.oauthbearer.expected.audience", "karst"),
		karsttest.WithConfig("sasl.oauthbearer.allow.unverified.issuer", "true"))
	now := time.Now()
	token := issuer.Sign(map[string]any{"sub": "svc-http", "aud": []string{"karst"}, "iat": now.Unix(), "exp": now.Add(time.Hour).Unix()})
	produceAndReadBack(t, saslClient(t, b.ListenerAddr("SASL_PLAINTEXT"), oauth.Auth{Token: token}.AsMechanism()), "oauth-http")
}
