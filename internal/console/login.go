package console

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sasl"
	"github.com/twmb/franz-go/pkg/sasl/oauth"
	"github.com/twmb/franz-go/pkg/sasl/plain"
	"github.com/twmb/franz-go/pkg/sasl/scram"
)

// kafka is one principal's way to the broker: the console's own when
// nobody logs in, else a logged-in user's, so the broker authorizes every
// request the console makes for a page as that user.
type kafka struct {
	client *kgo.Client
	admin  *kadm.Client
	// auth are the options any further client for this principal takes
	// (the message browser's consumer): its SASL login.
	auth []kgo.Opt
	// principal is the logged-in user's, empty without a login.
	principal string
}

func (s *Server) newKafka(principal string, auth ...kgo.Opt) (*kafka, error) {
	cl, err := kgo.NewClient(s.clientOpts(auth...)...)
	if err != nil {
		return nil, err
	}
	return &kafka{client: cl, admin: kadm.NewClient(cl), auth: auth, principal: principal}, nil
}

// consoleMechanisms are the SASL mechanisms a console login can use, in
// the order the login form offers them: the password ones, then
// OAUTHBEARER, where the user pastes a token from their identity
// provider. GSSAPI is not among them: a browser login would have the
// console take the user's Kerberos password, or need SPNEGO with a
// delegated ticket, and franz-go has no GSSAPI client.
var consoleMechanisms = []string{"SCRAM-SHA-512", "SCRAM-SHA-256", "PLAIN", oauthBearer}

const oauthBearer = "OAUTHBEARER"

func mechanism(name, user, password string) sasl.Mechanism {
	switch name {
	case "PLAIN":
		return plain.Auth{User: user, Pass: password}.AsMechanism()
	case "SCRAM-SHA-256":
		return scram.Auth{User: user, Pass: password}.AsSha256Mechanism()
	case "SCRAM-SHA-512":
		return scram.Auth{User: user, Pass: password}.AsSha512Mechanism()
	case oauthBearer:
		return oauth.Auth{Token: password}.AsMechanism()
	}
	return nil
}

// LoginMechanisms are those of the listener's enabled mechanisms a
// console user can log in with, in the console's order of preference;
// none means the listener offers no password login.
func LoginMechanisms(enabled []string) []string {
	var out []string
	for _, m := range consoleMechanisms {
		if slices.Contains(enabled, m) {
			out = append(out, m)
		}
	}
	return out
}

const sessionCookie = "karst_console_session"

// session is a logged-in user's; it ends idle after the timeout, or when
// its credential expires, closing the client that holds the credential.
type session struct {
	kafka    *kafka
	lastUsed time.Time
	// expires is when the credential (an OAUTHBEARER token) expires:
	// the broker refuses it afterwards, and the console cannot renew it.
	// Zero for none.
	expires time.Time
}

// over says whether the session has ended by now.
func (s *session) over(now time.Time, timeout time.Duration) bool {
	return now.Sub(s.lastUsed) > timeout || (!s.expires.IsZero() && !now.Before(s.expires))
}

type sessions struct {
	timeout time.Duration
	mu      sync.Mutex
	byToken map[string]*session
}

func newSessions(timeout time.Duration) *sessions {
	return &sessions{timeout: timeout, byToken: map[string]*session{}}
}

func (ss *sessions) add(k *kafka, expires time.Time) (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	token := base64.RawURLEncoding.EncodeToString(b)
	ss.mu.Lock()
	defer ss.mu.Unlock()
	ss.byToken[token] = &session{kafka: k, lastUsed: time.Now(), expires: expires}
	return token, nil
}

// get is the session of token, still live, marked used now.
func (ss *sessions) get(token string) (*kafka, bool) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	s, ok := ss.byToken[token]
	if !ok {
		return nil, false
	}
	now := time.Now()
	if s.over(now, ss.timeout) {
		delete(ss.byToken, token)
		go s.kafka.client.Close()
		return nil, false
	}
	s.lastUsed = now
	return s.kafka, true
}

func (ss *sessions) end(token string) {
	ss.mu.Lock()
	s, ok := ss.byToken[token]
	delete(ss.byToken, token)
	ss.mu.Unlock()
	if ok {
		s.kafka.client.Close()
	}
}

// expire ends every session idle past the timeout; all, once ctx ends.
func (ss *sessions) expire(ctx context.Context) {
	t := time.NewTicker(min(ss.timeout/4, time.Minute))
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			ss.mu.Lock()
			all := ss.byToken
			ss.byToken = map[string]*session{}
			ss.mu.Unlock()
			for _, s := range all {
				s.kafka.client.Close()
			}
			return
		case now := <-t.C:
			var idle []*session
			ss.mu.Lock()
			for token, s := range ss.byToken {
				if s.over(now, ss.timeout) {
					idle = append(idle, s)
					delete(ss.byToken, token)
				}
			}
			ss.mu.Unlock()
			for _, s := range idle {
				s.kafka.client.Close()
			}
		}
	}
}

// principal is the way to the broker for r: the console's own, or the
// session's. Without a live session it sends the browser to the login
// page and returns false.
func (s *Server) principal(w http.ResponseWriter, r *http.Request) (*kafka, bool) {
	if s.sessions == nil {
		return s.shared, true
	}
	if c, err := r.Cookie(sessionCookie); err == nil {
		if k, ok := s.sessions.get(c.Value); ok {
			return k, true
		}
	}
	http.Redirect(w, r, "/login?next="+url.QueryEscape(r.URL.RequestURI()), http.StatusSeeOther)
	return nil, false
}

type loginData struct {
	// Mechanisms are the password mechanisms; Token says OAUTHBEARER is
	// offered too, with a form of its own.
	Mechanisms []string
	Token      bool
	Mechanism  string
	User       string
	Next       string
}

func (s *Server) newLoginData(mechanism, next string) *loginData {
	d := &loginData{Mechanism: mechanism, Next: localPath(next)}
	for _, m := range s.opts.Mechanisms {
		if m == oauthBearer {
			d.Token = true
		} else {
			d.Mechanisms = append(d.Mechanisms, m)
		}
	}
	if d.Mechanism == "" && len(d.Mechanisms) > 0 {
		d.Mechanism = d.Mechanisms[0]
	}
	return d
}

// localPath is next when it is a path on this console, else /: a login
// link must not send the browser elsewhere.
func localPath(next string) string {
	if !strings.HasPrefix(next, "/") || strings.HasPrefix(next, "//") || strings.HasPrefix(next, "/\\") {
		return "/"
	}
	return next
}

func (s *Server) loginPage(w http.ResponseWriter, r *http.Request) {
	d := s.newLoginData("", r.FormValue("next"))
	s.render(w, r, "login", page{Title: "Log in", Nav: "login", Data: d})
}

// login checks the credentials with the broker itself: a client that
// logs in as the user and asks for the cluster's brokers. What the broker
// answers a failed login is what the page says.
func (s *Server) login(w http.ResponseWriter, r *http.Request) {
	d := s.newLoginData(r.PostFormValue("mechanism"), r.PostFormValue("next"))
	d.User = strings.TrimSpace(r.PostFormValue("user"))
	p := page{Title: "Log in", Nav: "login", Data: d}
	fail := func(status int, err error) {
		p.Err, p.Status = err.Error(), status
		s.render(w, r, "login", p)
	}
	if !slices.Contains(s.opts.Mechanisms, d.Mechanism) {
		fail(http.StatusBadRequest, fmt.Errorf("mechanism %q: the listener offers %s", d.Mechanism, strings.Join(s.opts.Mechanisms, ", ")))
		return
	}
	secret := r.PostFormValue("password")
	if d.Mechanism == oauthBearer {
		// The token names the user; the listener's validation says who.
		d.User, secret = "", strings.TrimSpace(r.PostFormValue("token"))
		if secret == "" {
			fail(http.StatusBadRequest, fmt.Errorf("no token"))
			return
		}
	} else if d.User == "" {
		fail(http.StatusBadRequest, fmt.Errorf("no user name"))
		return
	}
	k, err := s.newKafka("User:"+d.User, kgo.SASL(mechanism(d.Mechanism, d.User, secret)))
	if err != nil {
		fail(http.StatusInternalServerError, err)
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), requestTimeout)
	defer cancel()
	if _, err := k.admin.BrokerMetadata(ctx); err != nil {
		k.client.Close()
		s.opts.Logger.Info("web console login refused", "user", d.User, "mechanism", d.Mechanism, "remote", r.RemoteAddr, "err", err)
		fail(http.StatusUnauthorized, err)
		return
	}
	var expires time.Time
	if d.Mechanism == oauthBearer {
		// The broker took the token; the same validation names its
		// principal (sasl.oauthbearer.sub.claim.name) and its expiry,
		// which ends the session.
		var name string
		if name, expires, err = s.opts.OAuthBearer(secret); err != nil {
			k.client.Close()
			fail(http.StatusUnauthorized, err)
			return
		}
		k.principal = "User:" + name
	}
	token, err := s.sessions.add(k, expires)
	if err != nil {
		k.client.Close()
		fail(http.StatusInternalServerError, err)
		return
	}
	s.opts.Logger.Info("web console login", "principal", k.principal, "mechanism", d.Mechanism, "remote", r.RemoteAddr)
	http.SetCookie(w, &http.Cookie{Name: sessionCookie, Value: token, Path: "/", HttpOnly: true, SameSite: http.SameSiteStrictMode,
		Secure: r.TLS != nil})
	http.Redirect(w, r, d.Next, http.StatusSeeOther)
}

func (s *Server) logout(w http.ResponseWriter, r *http.Request) {
	if c, err := r.Cookie(sessionCookie); err == nil {
		s.sessions.end(c.Value)
	}
	http.SetCookie(w, &http.Cookie{Name: sessionCookie, Value: "", Path: "/", MaxAge: -1, HttpOnly: true, SameSite: http.SameSiteStrictMode})
	http.Redirect(w, r, "/login", http.StatusSeeOther)
}
