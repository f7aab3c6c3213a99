package integration

import (
	"encoding/base64"
	"encoding/json"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
	"github.com/twmb/franz-go/pkg/sasl/oauth"

	"github.com/karst-broker/karst/karsttest"
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
