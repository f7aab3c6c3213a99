package sasl

import (
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/karst-broker/karst/karsttest/jwtissuer"
)

func jwtSettings(extra map[string]string) func(string) (string, bool) {
	return func(key string) (string, bool) {
		v, ok := extra[key]
		return v, ok
	}
}

func TestOAuthBearerJWTValidation(t *testing.T) {
	issuer := jwtissuer.New(t, "k1")
	jwks := issuer.WriteJWKS(t.TempDir())
	v, err := newJWTValidator(jwtSettings(map[string]string{
		"sasl.oauthbearer.jwks.endpoint.url":        jwks,
		"sasl.oauthbearer.expected.audience":        "karst, other",
		"sasl.oauthbearer.expected.issuer":          "https://idp.test",
		"sasl.oauthbearer.clock.skew.seconds":       "5",
		"sasl.oauthbearer.sub.claim.name":           "client_id",
		"sasl.oauthbearer.scope.claim.name":         "scp",
		"sasl.oauthbearer.jwks.endpoint.refresh.ms": "1000",
	}), slog.Default())
	if err != nil {
		t.Fatal(err)
	}
	now := time.Unix(1_800_000_000, 0)
	claims := func(change map[string]any) map[string]any {
		c := map[string]any{"client_id": "svc-a", "aud": []string{"karst"}, "iss": "https://idp.test",
			"iat": now.Unix(), "exp": now.Add(time.Hour).Unix(), "scp": []string{"kafka"}}
		for k, val := range change {
			if val == nil {
				delete(c, k)
			} else {
				c[k] = val
			}
		}
		return c
	}
	x := &oauthBearerExchange{validator: v, now: func() time.Time { return now }}
	if _, err := x.Step(oauthMessage("", issuer.Sign(claims(nil)))); err != nil || !x.Done() || x.User() != "svc-a" ||
		!x.CredentialExpires().Equal(now.Add(time.Hour)) {
		t.Fatalf("good token: err %v done %v user %q expires %v", err, x.Done(), x.User(), x.CredentialExpires())
	}
	if tok, r := v.validate(issuer.Sign(claims(map[string]any{"exp": now.Add(-3 * time.Second).Unix()})), now); r != nil {
		t.Fatalf("a token expired within the clock skew was refused: %s", r.reason)
	} else if tok.principal != "svc-a" {
		t.Fatalf("principal %q", tok.principal)
	}
	other := jwtissuer.New(t, "k1")
	refused := map[string]string{
		"expired":        issuer.Sign(claims(map[string]any{"exp": now.Add(-time.Minute).Unix()})),
		"no exp":         issuer.Sign(claims(map[string]any{"exp": nil})),
		"no iat":         issuer.Sign(claims(map[string]any{"iat": nil})),
		"future iat":     issuer.Sign(claims(map[string]any{"iat": now.Add(time.Minute).Unix()})),
		"wrong audience": issuer.Sign(claims(map[string]any{"aud": "someone-else"})),
		"no audience":    issuer.Sign(claims(map[string]any{"aud": nil})),
		"wrong issuer":   issuer.Sign(claims(map[string]any{"iss": "https://evil.test"})),
		"no subject":     issuer.Sign(claims(map[string]any{"client_id": nil})),
		"blank scope":    issuer.Sign(claims(map[string]any{"scp": []string{" "}})),
		"other key":      other.Sign(claims(nil)),
		"unsecured":      unsecuredJWS(t, map[string]any{"alg": "none"}, claims(nil)),
		"not a JWT":      "abc.def.ghi",
	}
	for name, token := range refused {
		x := &oauthBearerExchange{validator: v, now: func() time.Time { return now }}
		challenge, err := x.Step(oauthMessage("", token))
		if err != nil || string(challenge) != `{"status":"invalid_token"}` || x.Done() {
			t.Errorf("%s: challenge %q err %v done %v", name, challenge, err, x.Done())
			continue
		}
		var f *Failure
		if _, err := x.Step([]byte{0x01}); !errors.As(err, &f) {
			t.Errorf("%s: after the client's 0x01: %v", name, err)
		}
	}

	// A rotated key set is read again when the file changes, as Kafka's
	// JwksFileVerificationKeyResolver does.
	rotated := jwtissuer.New(t, "k2")
	path := strings.TrimPrefix(jwks, "file://")
	if err := os.WriteFile(path, rotated.JWKS(), 0o600); err != nil {
		t.Fatal(err)
	}
	later := time.Now().Add(time.Minute)
	if err := os.Chtimes(path, later, later); err != nil {
		t.Fatal(err)
	}
	if _, r := v.validate(rotated.Sign(claims(nil)), now); r != nil {
		t.Fatalf("a token of the rotated key was refused: %s", r.reason)
	}
	if _, r := v.validate(issuer.Sign(claims(nil)), now); r == nil {
		t.Fatal("a token of the key removed from the set was accepted")
	}
}

func TestOAuthBearerJWKSOverHTTP(t *testing.T) {
	issuer := jwtissuer.New(t, "k1")
	var served atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		served.Add(1)
		w.Header().Set("Content-Type", "application/json")
		w.Write(issuer.JWKS())
	}))
	defer srv.Close()
	v, err := newJWTValidator(jwtSettings(map[string]string{
		"sasl.oauthbearer.jwks.endpoint.url":         srv.URL + "/jwks",
		"sasl.oauthbearer.allow.unverified.audience": "true",
		"sasl.oauthbearer.allow.unverified.issuer":   "true",
		"sasl.oauthbearer.jwks.endpoint.refresh.ms":  "20",
	}), slog.Default())
	if err != nil {
		t.Fatal(err)
	}
	defer v.close()
	now := time.Now()
	tok, r := v.validate(issuer.Sign(map[string]any{"sub": "bob", "iat": now.Unix(), "exp": now.Add(time.Hour).Unix()}), now)
	if r != nil || tok.principal != "bob" {
		t.Fatalf("token: %+v %v", tok, r)
	}
	// The set is fetched again every sasl.oauthbearer.jwks.endpoint.refresh.ms.
	deadline := time.Now().Add(10 * time.Second)
	for served.Load() < 3 {
		if time.Now().After(deadline) {
			t.Fatalf("JWKS fetched %d times in 10 s with a 20 ms refresh", served.Load())
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestOAuthBearerJWTValidatorConfiguration(t *testing.T) {
	jwks := jwtissuer.New(t, "k").WriteJWKS(t.TempDir())
	for name, tc := range map[string]struct {
		settings map[string]string
		want     string
	}{
		"no audience":  {map[string]string{"sasl.oauthbearer.jwks.endpoint.url": jwks, "sasl.oauthbearer.expected.issuer": "i"}, "sasl.oauthbearer.expected.audience"},
		"no issuer":    {map[string]string{"sasl.oauthbearer.jwks.endpoint.url": jwks, "sasl.oauthbearer.expected.audience": "a"}, "sasl.oauthbearer.expected.issuer"},
		"no JWKS":      {map[string]string{"sasl.oauthbearer.expected.audience": "a", "sasl.oauthbearer.expected.issuer": "i"}, "sasl.oauthbearer.jwks.endpoint.url is required"},
		"ftp":          {map[string]string{"sasl.oauthbearer.jwks.endpoint.url": "ftp://x/y", "sasl.oauthbearer.expected.audience": "a", "sasl.oauthbearer.expected.issuer": "i"}, "invalid protocol (ftp)"},
		"missing file": {map[string]string{"sasl.oauthbearer.jwks.endpoint.url": "file:///nonexistent/jwks.json", "sasl.oauthbearer.expected.audience": "a", "sasl.oauthbearer.expected.issuer": "i"}, "no such file"},
	} {
		if _, err := newJWTValidator(jwtSettings(tc.settings), slog.Default()); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error with %q", name, err, tc.want)
		}
	}
}

// FuzzOAuthBearerJWT: no token string panics the JWT validator or
// authenticates without a principal.
func FuzzOAuthBearerJWT(f *testing.F) {
	issuer := jwtissuer.New(f, "k")
	now := time.Now()
	f.Add(issuer.Sign(map[string]any{"sub": "a", "aud": "x", "iat": now.Unix(), "exp": now.Add(time.Hour).Unix()}))
	f.Add(issuer.Sign(map[string]any{"sub": 7, "aud": []any{1}, "iat": "x", "exp": 1e300, "scope": []any{nil}}))
	f.Add("eyJhbGciOiJub25lIn0.e30.")
	f.Add("..")
	v, err := newJWTValidator(jwtSettings(map[string]string{
		"sasl.oauthbearer.jwks.endpoint.url":       issuer.WriteJWKS(f.TempDir()),
		"sasl.oauthbearer.expected.audience":       "x",
		"sasl.oauthbearer.allow.unverified.issuer": "true",
	}), slog.Default())
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, token string) {
		if tok, r := v.validate(token, now); r == nil && tok.principal == "" {
			t.Fatal("accepted without a principal")
		}
	})
}
