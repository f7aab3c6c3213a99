package sasl

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"testing"
	"time"
)

// UnsecuredJWS builds a token as Kafka's OAuthBearerUnsecuredLoginCallbackHandler does.
func unsecuredJWS(t testing.TB, header, claims map[string]any) string {
	t.Helper()
	enc := func(v any) string {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		return base64.RawURLEncoding.EncodeToString(b)
	}
	return enc(header) + "." + enc(claims) + "."
}

func oauthMessage(authzID, token string) []byte {
	gs2 := "n,,"
	if authzID != "" {
		gs2 = "n,a=" + authzID + ","
	}
	return []byte(gs2 + "\x01auth=Bearer " + token + "\x01traceId=abc\x01\x01")
}

func TestOAuthBearerUnsecuredTokens(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	none := map[string]any{"alg": "none"}
	validator, err := newUnsecuredValidator(map[string]string{"unsecuredValidatorRequiredScope": "produce", "unsecuredValidatorAllowableClockSkewMs": "1000"})
	if err != nil {
		t.Fatal(err)
	}
	start := func() *oauthBearerExchange {
		return &oauthBearerExchange{validator: validator, now: func() time.Time { return now }}
	}

	good := unsecuredJWS(t, none, map[string]any{"sub": "alice", "exp": 1_800_000_060.5, "iat": 1_800_000_000, "scope": "produce consume"})
	x := start()
	out, err := x.Step(oauthMessage("", good))
	if err != nil || len(out) != 0 || !x.Done() || x.User() != "alice" || !x.CredentialExpires().Equal(time.UnixMilli(1_800_000_060_500)) {
		t.Fatalf("good token: out %q err %v done %v user %q expires %v", out, err, x.Done(), x.User(), x.CredentialExpires())
	}
	x = start()
	if _, err := x.Step(oauthMessage("bob", good)); err == nil {
		t.Fatal("an authorization id other than the principal was accepted")
	}

	refused := map[string]string{
		"expired":        unsecuredJWS(t, none, map[string]any{"sub": "alice", "exp": 1_799_999_998}),
		"future iat":     unsecuredJWS(t, none, map[string]any{"sub": "alice", "exp": 1_800_000_100, "iat": 1_800_000_050}),
		"no sub":         unsecuredJWS(t, none, map[string]any{"exp": 1_800_000_100, "scope": "produce"}),
		"signed":         unsecuredJWS(t, map[string]any{"alg": "HS256"}, map[string]any{"sub": "alice", "exp": 1_800_000_100, "scope": "produce"}),
		"with signature": good + "c2ln",
	}
	for name, token := range refused {
		x := start()
		challenge, err := x.Step(oauthMessage("", token))
		if err != nil || string(challenge) != `{"status":"invalid_token"}` || x.Done() {
			t.Fatalf("%s: challenge %q err %v", name, challenge, err)
		}
		_, err = x.Step([]byte{0x01})
		var f *Failure
		if !errors.As(err, &f) || f.Message != `{"status":"invalid_token"}` {
			t.Fatalf("%s: after the client's 0x01: %v", name, err)
		}
	}
	x = start()
	challenge, _ := x.Step(oauthMessage("", unsecuredJWS(t, none, map[string]any{"sub": "alice", "exp": 1_800_000_100, "scope": []string{"consume"}})))
	if string(challenge) != `{"status":"invalid_token", "scope":"[produce]"}` {
		t.Fatalf("missing scope: %q", challenge)
	}
	for _, bad := range []string{"", "n,,\x01\x01", "n,,\x01auth=Basic abc\x01\x01", "y,,\x01auth=Bearer a.b.\x01\x01"} {
		if _, err := start().Step([]byte(bad)); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

func FuzzOAuthBearerMessage(f *testing.F) {
	f.Add(oauthMessage("alice", unsecuredJWS(f, map[string]any{"alg": "none"}, map[string]any{"sub": "alice", "exp": 4e9})))
	f.Add([]byte("n,a=x=2Cy,\x01auth=bearer ..\x01k=v\x01\x01"))
	f.Add([]byte{0x01})
	validator, _ := newUnsecuredValidator(nil)
	f.Fuzz(func(t *testing.T, msg []byte) {
		x := &oauthBearerExchange{validator: validator, now: time.Now}
		if _, err := x.Step(msg); err == nil && x.Done() && x.User() == "" {
			t.Fatal("authenticated without a principal")
		}
	})
}
