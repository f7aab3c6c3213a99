package console_test

import (
	"context"
	"crypto/tls"
	"crypto/x509/pkix"
	"html"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sasl/plain"

	"github.com/karst-broker/karst/internal/security/tlsconfig/tlstest"
	"github.com/karst-broker/karst/karsttest"
	"github.com/karst-broker/karst/karsttest/jwtissuer"
)

// tlsBroker is a broker whose only listener is securityProtocol, with a
// key store certificate (CN=broker) that also authenticates as a client,
// and the StandardAuthorizer; its admin client makes topics orders and
// secret with 3 records each.
type tlsBroker struct {
	b     *karsttest.Broker
	admin *kadm.Client
	ca    *tlstest.CA
}

func startTLSBroker(t *testing.T, ctx context.Context, securityProtocol string, adminAuth kgo.Opt, more ...karsttest.Option) *tlsBroker {
	t.Helper()
	ca := tlstest.NewCA(t, "console-tls-ca")
	dir := t.TempDir()
	b := karsttest.Start(t, append([]karsttest.Option{
		karsttest.WithConfig("listeners", securityProtocol+"://127.0.0.1:0"),
		karsttest.WithConfig("ssl.keystore.type", "PKCS12"),
		karsttest.WithConfig("ssl.keystore.location", tlstest.WriteFile(t, dir, "broker.p12", ca.Broker(t, "broker").PKCS12(t, "ks-secret"))),
		karsttest.WithConfig("ssl.keystore.password", "ks-secret"),
		karsttest.WithConfig("ssl.truststore.type", "PEM"),
		karsttest.WithConfig("ssl.truststore.location", tlstest.WriteFile(t, dir, "trust.pem", []byte(ca.PEM()))),
		karsttest.WithConfig("authorizer.class.name", "org.apache.kafka.metadata.authorizer.StandardAuthorizer"),
		karsttest.WithConfig("karst.console.listener", "127.0.0.1:0")}, more...)...)
	tb := &tlsBroker{b: b, ca: ca}
	cl, err := kgo.NewClient(kgo.SeedBrokers(b.ListenerAddr(securityProtocol)), kgo.DialTLSConfig(tb.clientTLS(t)), adminAuth)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	tb.admin = kadm.NewClient(cl)
	for _, topic := range []string{"orders", "secret"} {
		if _, err := tb.admin.CreateTopic(ctx, 1, 1, nil, topic); err != nil {
			t.Fatal(err)
		}
		for i := range 3 {
			r := &kgo.Record{Topic: topic, Key: []byte(topic + "-key-" + string(rune('a'+i))), Value: []byte(`{"from":"admin"}`)}
			if err := cl.ProduceSync(ctx, r).FirstErr(); err != nil {
				t.Fatal(err)
			}
		}
	}
	return tb
}

// clientTLS trusts the broker and presents CN=admin where asked.
func (tb *tlsBroker) clientTLS(t *testing.T) *tls.Config {
	return &tls.Config{RootCAs: tb.ca.Pool(), Certificates: []tls.Certificate{tb.ca.Client(t, pkix.Name{CommonName: "admin"}).TLSCertificate()}}
}

func (tb *tlsBroker) grant(t *testing.T, ctx context.Context, b *kadm.ACLBuilder) {
	t.Helper()
	(&securedConsole{admin: tb.admin}).grant(t, ctx, b)
}

// TestConsoleReadsThroughAnSSLListener: on a broker whose only listener is
// SSL with ssl.client.auth=required, the console presents the broker's own
// certificate, so the broker knows it as that certificate's principal
// (here mapped by ssl.principal.mapping.rules to User:broker), which every
// page names; its ACLs decide what the console shows: it lists and reads
// orders, and secret only after a grant.
func TestConsoleReadsThroughAnSSLListener(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	tb := startTLSBroker(t, ctx, "SSL", kgo.ClientID("admin"),
		karsttest.WithConfig("ssl.client.auth", "required"),
		karsttest.WithConfig("ssl.principal.mapping.rules", "RULE:^CN=(.*)$/$1/,DEFAULT"),
		karsttest.WithConfig("super.users", "User:admin"))
	tb.grant(t, ctx, kadm.NewACLs().Allow("User:broker").Topics("orders").Operations(kadm.OpRead, kadm.OpDescribe))
	base := tb.b.ConsoleURL()
	hc := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

	body := seesOnly(t, ctx, hc, base, "the console through SSL", "orders", "secret")
	if !strings.Contains(body, `<span class="who" id="principal" title="the broker answers the console as this principal">User:broker</span>`) ||
		strings.Contains(body, "log-out") {
		t.Errorf("the console through SSL does not name its principal, or offers a logout:\n%s", body)
	}
	tb.grant(t, ctx, kadm.NewACLs().Allow("User:broker").Topics("secret").Operations(kadm.OpRead, kadm.OpDescribe))
	if body := untilAllowed(t, ctx, hc, base+"/topics/secret/messages?partition=0"); !strings.Contains(body, "secret-key-a") {
		t.Errorf("secret through SSL after the grant shows no records:\n%s", body)
	}
	for _, path := range []string{"/", "/groups", "/topics/orders"} {
		if resp, body := get(t, ctx, hc, base+path); resp.StatusCode != 200 {
			t.Errorf("GET %s through SSL: %d\n%s", path, resp.StatusCode, body)
		}
	}
}

// TestConsoleLogsInOverSASLSSL: on a broker whose only listener is SASL_SSL
// the console dials it over TLS and every user logs in: alice with her
// SCRAM-SHA-512 password, bob by pasting an OAUTHBEARER token from the
// identity provider, which the broker validates as it validates its
// clients' tokens (signed by a key of its JWKS, for its audience and
// issuer) and whose claim sasl.oauthbearer.sub.claim.name names him; what
// each sees is what the broker's ACLs let that principal see. An expired,
// forged or malformed token is refused with the broker's error.
func TestConsoleLogsInOverSASLSSL(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	tb, token := startTokenBroker(t, ctx)
	if _, err := tb.admin.AlterUserSCRAMs(ctx, nil, []kadm.UpsertSCRAM{{User: "alice", Mechanism: kadm.ScramSha512, Password: "alice-secret"}}); err != nil {
		t.Fatal(err)
	}
	tb.grant(t, ctx, kadm.NewACLs().Allow("User:alice").Topics("orders").Operations(kadm.OpRead, kadm.OpDescribe))
	base := tb.b.ConsoleURL()

	resp, body := get(t, ctx, http.DefaultClient, base+"/login")
	if resp.StatusCode != 200 || !strings.Contains(body, `<option selected>SCRAM-SHA-512</option><option>PLAIN</option></select>`) ||
		!strings.Contains(body, `id="token"`) || !strings.Contains(body, `name="mechanism" value="OAUTHBEARER"`) {
		t.Fatalf("login page over SASL_SSL: %d\n%s", resp.StatusCode, body)
	}

	// as logs in with form on a client of its own and returns it.
	as := func(form url.Values) (*http.Client, *http.Response, string) {
		jar, _ := cookiejar.New(nil)
		hc := &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
		form.Set("next", "/topics")
		resp, body := postForm(t, ctx, hc, base+"/login", form)
		return hc, resp, body
	}
	alice, resp, body := as(url.Values{"user": {"alice"}, "password": {"alice-secret"}, "mechanism": {"SCRAM-SHA-512"}})
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/topics" {
		t.Fatalf("alice's login over SASL_SSL: %d\n%s", resp.StatusCode, body)
	}
	seesOnly(t, ctx, alice, base, "alice over SASL_SSL", "orders", "secret")
	bob, resp, body := as(url.Values{"mechanism": {"OAUTHBEARER"}, "token": {"  " + token(nil, time.Now().Add(time.Hour)) + "\n"}})
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/topics" {
		t.Fatalf("bob's token login: %d\n%s", resp.StatusCode, body)
	}
	if body := seesOnly(t, ctx, bob, base, "bob", "secret", "orders"); !strings.Contains(body, `<span id="principal">User:bob</span>`) {
		t.Errorf("bob's pages do not name User:bob:\n%s", body)
	}

	for _, bad := range []struct {
		what  string
		token string
		code  int
		want  string
	}{
		{"an expired token", token(nil, time.Now().Add(-time.Minute)), http.StatusUnauthorized, "SASL_AUTHENTICATION_FAILED"},
		{"a token signed by another key of the same id", token(jwtissuer.New(t, "console-key"), time.Now().Add(time.Hour)), http.StatusUnauthorized,
			"SASL_AUTHENTICATION_FAILED"},
		{"not a token", "not-a-jws", http.StatusUnauthorized, "SASL_AUTHENTICATION_FAILED"},
		{"no token", " ", http.StatusBadRequest, "no token"},
	} {
		hc, resp, body := as(url.Values{"mechanism": {"OAUTHBEARER"}, "token": {bad.token}})
		if resp.StatusCode != bad.code || !strings.Contains(body, bad.want) {
			t.Errorf("%s: %d, want %d saying %q\n%s", bad.what, resp.StatusCode, bad.code, bad.want, body)
		}
		t.Logf("%s: %d %s", bad.what, resp.StatusCode, pageError(body))
		if cookies := hc.Jar.Cookies(mustURL(t, base)); len(cookies) != 0 {
			t.Errorf("%s left a session cookie", bad.what)
		}
	}
}

// pageError is the error a page shows, as its text.
func pageError(body string) string {
	_, after, ok := strings.Cut(body, `id="error">`)
	if !ok {
		return ""
	}
	text, _, _ := strings.Cut(after, "</p>")
	return html.UnescapeString(text)
}

// startTokenBroker is a SASL_SSL-only broker (PLAIN for its admin,
// SCRAM-SHA-512, and OAUTHBEARER validating JWTs of the test's identity
// provider by their JWKS, audience and issuer, the principal named by
// preferred_username), where bob may read and describe secret. token signs
// bob's token expiring at expires, with the provider's key, or with
// issuer's, another key of the same key id, when issuer is not nil.
func startTokenBroker(t *testing.T, ctx context.Context) (tb *tlsBroker, token func(issuer *jwtissuer.Issuer, expires time.Time) string) {
	t.Helper()
	idp := jwtissuer.New(t, "console-key")
	tb = startTLSBroker(t, ctx, "SASL_SSL", kgo.SASL(plain.Auth{User: "admin", Pass: "admin-secret"}.AsMechanism()),
		karsttest.WithConfig("sasl.enabled.mechanisms", "PLAIN,SCRAM-SHA-512,OAUTHBEARER"),
		karsttest.WithConfig("listener.name.sasl_ssl.plain.sasl.jaas.config", securedUsersJAAS),
		karsttest.WithConfig("listener.name.sasl_ssl.oauthbearer.sasl.server.callback.handler.class",
			"org.apache.kafka.common.security.oauthbearer.OAuthBearerValidatorCallbackHandler"),
		karsttest.WithConfig("listener.name.sasl_ssl.oauthbearer.sasl.oauthbearer.jwks.endpoint.url", idp.WriteJWKS(t.TempDir())),
		karsttest.WithConfig("sasl.oauthbearer.expected.audience", "karst-cluster"),
		karsttest.WithConfig("sasl.oauthbearer.expected.issuer", "https://idp.example"),
		karsttest.WithConfig("sasl.oauthbearer.sub.claim.name", "preferred_username"),
		karsttest.WithConfig("super.users", "User:admin"))
	tb.grant(t, ctx, kadm.NewACLs().Allow("User:bob").Topics("secret").Operations(kadm.OpRead, kadm.OpDescribe))
	return tb, func(issuer *jwtissuer.Issuer, expires time.Time) string {
		if issuer == nil {
			issuer = idp
		}
		return issuer.Sign(map[string]any{"sub": "8d1c-42", "preferred_username": "bob", "aud": "karst-cluster", "iss": "https://idp.example",
			"iat": time.Now().Add(-time.Minute).Unix(), "exp": expires.Unix()})
	}
}

// seesOnly checks that the console, for the principal of hc, lists topic
// allowed and not refused, shows allowed's records and refuses refused's
// with the broker's TOPIC_AUTHORIZATION_FAILED; it returns the topics page.
func seesOnly(t *testing.T, ctx context.Context, hc *http.Client, base, who, allowed, refused string) string {
	t.Helper()
	resp, topics := get(t, ctx, hc, base+"/topics")
	if resp.StatusCode != 200 || !strings.Contains(topics, `data-topic="`+allowed+`"`) || strings.Contains(topics, `data-topic="`+refused+`"`) {
		t.Errorf("%s's topics: %d, want %s listed and not %s\n%s", who, resp.StatusCode, allowed, refused, topics)
	}
	if resp, body := get(t, ctx, hc, base+"/topics/"+allowed+"/messages?partition=0"); resp.StatusCode != 200 || !strings.Contains(body, allowed+"-key-c") {
		t.Errorf("%s's %s: %d\n%s", who, allowed, resp.StatusCode, body)
	}
	if resp, body := get(t, ctx, hc, base+"/topics/"+refused+"/messages?partition=0"); resp.StatusCode != http.StatusForbidden ||
		!strings.Contains(body, "TOPIC_AUTHORIZATION_FAILED") || strings.Contains(body, refused+"-key-") {
		t.Errorf("%s's %s: %d, want 403 with the broker's TOPIC_AUTHORIZATION_FAILED\n%s", who, refused, resp.StatusCode, body)
	}
	return topics
}

// untilAllowed loads u until the broker's refusal (403) gives way, as an
// ACL grant reaches the authorizer through the metadata log, and returns
// the page.
func untilAllowed(t *testing.T, ctx context.Context, hc *http.Client, u string) string {
	t.Helper()
	granted := time.Now()
	for tries := 1; ; tries++ {
		resp, body := get(t, ctx, hc, u)
		if resp.StatusCode == 200 {
			t.Logf("the grant showed on try %d, %s after it", tries, time.Since(granted))
			return body
		}
		if ctx.Err() != nil || resp.StatusCode != http.StatusForbidden {
			t.Fatalf("%s after the grant: %d\n%s", u, resp.StatusCode, body)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
