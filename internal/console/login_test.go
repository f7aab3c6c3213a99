package console_test

import (
	"context"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sasl/plain"

	"github.com/karst-broker/karst/karsttest"
)

// securedConsole is a broker whose only Kafka listener is SASL_PLAINTEXT
// with the StandardAuthorizer, so its console asks everyone to log in:
// admin (PLAIN, a super user) made topics orders and secret with records
// in both, and a SCRAM-SHA-512 user alice who may read and describe
// orders only.
type securedConsole struct {
	b     *karsttest.Broker
	admin *kadm.Client
}

const securedUsersJAAS = `org.apache.kafka.common.security.plain.PlainLoginModule required username="admin" password="admin-secret" user_admin="admin-secret";`

func startSecuredConsole(t *testing.T, ctx context.Context, more ...karsttest.Option) *securedConsole {
	t.Helper()
	b := karsttest.Start(t, append([]karsttest.Option{
		karsttest.WithConfig("listeners", "SASL_PLAINTEXT://127.0.0.1:0"),
		karsttest.WithConfig("sasl.enabled.mechanisms", "PLAIN,SCRAM-SHA-512"),
		karsttest.WithConfig("listener.name.sasl_plaintext.plain.sasl.jaas.config", securedUsersJAAS),
		karsttest.WithConfig("authorizer.class.name", "org.apache.kafka.metadata.authorizer.StandardAuthorizer"),
		karsttest.WithConfig("super.users", "User:admin"),
		karsttest.WithConfig("karst.console.listener", "127.0.0.1:0")}, more...)...)
	cl, err := kgo.NewClient(kgo.SeedBrokers(b.ListenerAddr("SASL_PLAINTEXT")), kgo.SASL(plain.Auth{User: "admin", Pass: "admin-secret"}.AsMechanism()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	c := &securedConsole{b: b, admin: kadm.NewClient(cl)}
	for _, topic := range []string{"orders", "secret"} {
		if _, err := c.admin.CreateTopic(ctx, 1, 1, nil, topic); err != nil {
			t.Fatal(err)
		}
		for i := range 3 {
			r := &kgo.Record{Topic: topic, Key: []byte(topic + "-key-" + string(rune('a'+i))), Value: []byte(`{"from":"admin"}`)}
			if err := cl.ProduceSync(ctx, r).FirstErr(); err != nil {
				t.Fatal(err)
			}
		}
	}
	if _, err := c.admin.AlterUserSCRAMs(ctx, nil, []kadm.UpsertSCRAM{{User: "alice", Mechanism: kadm.ScramSha512, Password: "alice-secret"}}); err != nil {
		t.Fatal(err)
	}
	c.grant(t, ctx, kadm.NewACLs().Allow("User:alice").Topics("orders").Operations(kadm.OpRead, kadm.OpDescribe))
	return c
}

func (c *securedConsole) grant(t *testing.T, ctx context.Context, b *kadm.ACLBuilder) {
	t.Helper()
	results, err := c.admin.CreateACLs(ctx, b.ResourcePatternType(kadm.ACLPatternLiteral))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range results {
		if r.Err != nil {
			t.Fatal(r.Err)
		}
	}
}

// get fetches path with the client's cookies, not following redirects.
func get(t *testing.T, ctx context.Context, hc *http.Client, u string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		t.Fatal(err)
	}
	return do(t, hc, req)
}

func do(t *testing.T, hc *http.Client, req *http.Request) (*http.Response, string) {
	t.Helper()
	resp, err := hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	return resp, string(body)
}

func postForm(t *testing.T, ctx context.Context, hc *http.Client, u string, form url.Values) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u, strings.NewReader(form.Encode()))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	return do(t, hc, req)
}

// TestConsoleLoginIsTheBrokersLogin: without a session every page sends
// the browser to the login page; the broker itself checks the
// credentials, and what it answers a wrong password is what the page
// says; a session's pages are what the broker answers that principal,
// refusals included, with ACL changes seen at once; logging out ends it.
func TestConsoleLoginIsTheBrokersLogin(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c := startSecuredConsole(t, ctx)
	base := c.b.ConsoleURL()
	jar, _ := cookiejar.New(nil)
	hc := &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

	for _, path := range []string{"/", "/topics", "/topics/orders/messages?partition=0", "/groups"} {
		resp, _ := get(t, ctx, hc, base+path)
		if want := "/login?next=" + url.QueryEscape(path); resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != want {
			t.Errorf("GET %s without a login: %d to %q, want 303 to %q", path, resp.StatusCode, resp.Header.Get("Location"), want)
		}
	}
	resp, body := get(t, ctx, hc, base+"/login?next=/topics")
	if resp.StatusCode != 200 || !strings.Contains(body, `<option selected>SCRAM-SHA-512</option><option>PLAIN</option>`) {
		t.Errorf("login page %d offers:\n%s", resp.StatusCode, body)
	}

	login := func(user, password, mechanism, next string) (*http.Response, string) {
		return postForm(t, ctx, hc, base+"/login", url.Values{"user": {user}, "password": {password}, "mechanism": {mechanism}, "next": {next}})
	}
	resp, body = login("alice", "wrong", "SCRAM-SHA-512", "/topics")
	if resp.StatusCode != http.StatusUnauthorized || !strings.Contains(body, "SASL_AUTHENTICATION_FAILED") ||
		!strings.Contains(body, "invalid credentials with SASL mechanism SCRAM-SHA-512") {
		t.Errorf("wrong password: %d\n%s", resp.StatusCode, body)
	}
	if resp, body = login("alice", "alice-secret", "GSSAPI", "/"); resp.StatusCode != http.StatusBadRequest ||
		!strings.Contains(body, "the listener offers SCRAM-SHA-512, PLAIN") {
		t.Errorf("mechanism GSSAPI: %d\n%s", resp.StatusCode, body)
	}
	if len(jar.Cookies(mustURL(t, base))) != 0 {
		t.Fatal("a refused login left a session cookie")
	}

	// A next that leaves the console goes to / instead.
	resp, _ = login("alice", "alice-secret", "SCRAM-SHA-512", "//attacker.example/")
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/" {
		t.Fatalf("login: %d to %q, want 303 to /", resp.StatusCode, resp.Header.Get("Location"))
	}
	var session *http.Cookie
	for _, ck := range resp.Cookies() {
		if ck.Name == "karst_console_session" {
			session = ck
		}
	}
	if session == nil || !session.HttpOnly || session.SameSite != http.SameSiteStrictMode {
		t.Fatalf("session cookie %+v, want HttpOnly and SameSite=Strict", session)
	}

	body = seesOnly(t, ctx, hc, base, "alice", "orders", "secret")
	if strings.Contains(body, "secret") || !strings.Contains(body, "User:alice") || !strings.Contains(body, "Sizes not shown: CLUSTER_AUTHORIZATION_FAILED") {
		t.Errorf("alice's topics:\n%s", body)
	}
	// ACLs reach the authorizer through the metadata log, as in Kafka,
	// so the grant shows on a later request, not necessarily the next.
	c.grant(t, ctx, kadm.NewACLs().Allow("User:alice").Topics("secret").Operations(kadm.OpRead, kadm.OpDescribe))
	if body = untilAllowed(t, ctx, hc, base+"/topics/secret/messages?partition=0"); !strings.Contains(body, "secret-key-c") {
		t.Errorf("alice's secret after the grant shows no records:\n%s", body)
	}

	resp, _ = postForm(t, ctx, hc, base+"/logout", nil)
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/login" {
		t.Errorf("logout: %d to %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	// The old cookie is no session any more, even sent again by hand.
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, base+"/topics", nil)
	req.AddCookie(session)
	if resp, _ = do(t, &http.Client{CheckRedirect: hc.CheckRedirect}, req); resp.StatusCode != http.StatusSeeOther {
		t.Errorf("the logged-out session's cookie still reads /topics: %d", resp.StatusCode)
	}
}

func mustURL(t *testing.T, s string) *url.URL {
	t.Helper()
	u, err := url.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return u
}
