package integration

import (
	"encoding/base64"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kversion"
	"github.com/twmb/franz-go/pkg/sasl/plain"
	"github.com/twmb/franz-go/pkg/sasl/scram"

	"github.com/karst-broker/karst/karsttest"
)

// startTokenBroker runs a SASL broker with delegation tokens enabled and
// a PLAINTEXT listener beside it.
func startTokenBroker(t *testing.T, extra ...karsttest.Option) *karsttest.Broker {
	t.Helper()
	return startSASLBroker(t, append([]karsttest.Option{
		karsttest.WithConfig("listeners", "SASL_PLAINTEXT://127.0.0.1:0,PLAINTEXT://127.0.0.1:0"),
		karsttest.WithConfig("delegation.token.secret.key", "test-secret-key"),
		karsttest.WithConfig("delegation.token.expiry.time.ms", "3600000"),
		karsttest.WithConfig("delegation.token.max.lifetime.ms", "7200000"),
	}, extra...)...)
}

// TestDelegationTokensFranzGo: kadm creates, describes, renews and
// expires tokens as Kafka answers them, and a client authenticates with
// a token through SCRAM with tokenauth=true as the token's owner.
func TestDelegationTokensFranzGo(t *testing.T) {
	b := startTokenBroker(t)
	addr := b.ListenerAddr("SASL_PLAINTEXT")
	ctx := testContext(t)
	alice := kadm.NewClient(saslClient(t, addr, plain.Auth{User: "alice", Pass: "alice-secret"}.AsMechanism()))

	before := time.Now().Truncate(time.Millisecond)
	tok, err := alice.CreateDelegationToken(ctx, kadm.CreateDelegationToken{
		Renewers: []kadm.Principal{{Name: "admin"}}, MaxLifetime: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	if tok.Owner.Name != "alice" || tok.TokenRequesterPrincipal.Name != "alice" || tok.IssueTimestamp.Before(before) ||
		!tok.MaxTimestamp.Equal(tok.IssueTimestamp.Add(time.Hour)) || !tok.ExpiryTimestamp.Equal(tok.MaxTimestamp) || len(tok.HMAC) != 64 {
		t.Fatalf("created %+v", tok)
	}

	described, err := alice.DescribeDelegationTokens(ctx)
	if err != nil || len(described) != 1 || described[0].TokenID != tok.TokenID || string(described[0].HMAC) != string(tok.HMAC) ||
		len(described[0].Renewers) != 1 || described[0].Renewers[0].Name != "admin" {
		t.Fatalf("described %+v, %v", described, err)
	}
	if none, err := alice.DescribeDelegationTokens(ctx, kadm.Principal{Name: "nobody"}); err != nil || len(none) != 0 {
		t.Fatalf("tokens of nobody: %+v, %v", none, err)
	}

	// The token authenticates, as its owner.
	password := base64.StdEncoding.EncodeToString(tok.HMAC)
	for _, m := range []kgo.Opt{
		kgo.SASL(scram.Auth{User: tok.TokenID, Pass: password, IsToken: true}.AsSha256Mechanism()),
		kgo.SASL(scram.Auth{User: tok.TokenID, Pass: password, IsToken: true}.AsSha512Mechanism()),
	} {
		cl, err := kgo.NewClient(kgo.SeedBrokers(addr), m, kgo.RetryTimeout(5*time.Second))
		if err != nil {
			t.Fatal(err)
		}
		produceAndReadBack(t, cl, "token-"+strings.ToLower(tok.TokenID[:6])+time.Now().Format("150405.000000"))
		// A token-authenticated client may not ask for tokens.
		if _, err := kadm.NewClient(cl).CreateDelegationToken(ctx, kadm.CreateDelegationToken{}); !errors.Is(err, kerr.DelegationTokenRequestNotAllowed) {
			t.Fatalf("token-authenticated create: %v", err)
		}
		cl.Close()
	}
	wantSASLFailure(t, addr, scram.Auth{User: tok.TokenID, Pass: "wrong", IsToken: true}.AsSha256Mechanism(), kerr.SaslAuthenticationFailed,
		"invalid credentials with SASL mechanism SCRAM-SHA-256")
	wantSASLFailure(t, addr, scram.Auth{User: "no-such-token", Pass: password, IsToken: true}.AsSha256Mechanism(), kerr.SaslAuthenticationFailed,
		"invalid credentials with SASL mechanism SCRAM-SHA-256")

	// The renewer renews; a stranger may not.
	admin := kadm.NewClient(saslClient(t, addr, plain.Auth{User: "admin", Pass: "admin-secret"}.AsMechanism()))
	expiry, err := admin.RenewDelegationToken(ctx, tok.HMAC, time.Minute)
	if err != nil || expiry.Before(time.Now()) || expiry.After(time.Now().Add(time.Minute)) {
		t.Fatalf("renew: %v %v", expiry, err)
	}
	if _, err := admin.RenewDelegationToken(ctx, []byte("not an hmac"), 0); !errors.Is(err, kerr.DelegationTokenNotFound) {
		t.Fatalf("renew of an unknown HMAC: %v", err)
	}
	stranger := kadm.NewClient(saslClient(t, addr, plain.Auth{User: "admin", Pass: "admin-secret"}.AsMechanism()))
	other, err := alice.CreateDelegationToken(ctx, kadm.CreateDelegationToken{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := stranger.RenewDelegationToken(ctx, other.HMAC, 0); !errors.Is(err, kerr.DelegationTokenOwnerMismatch) {
		t.Fatalf("renew by a stranger: %v", err)
	}

	// PLAINTEXT may not ask for tokens.
	plainCl, err := kgo.NewClient(kgo.SeedBrokers(b.ListenerAddr("PLAINTEXT")))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(plainCl.Close)
	plainAdmin := kadm.NewClient(plainCl)
	if _, err := plainAdmin.CreateDelegationToken(ctx, kadm.CreateDelegationToken{}); !errors.Is(err, kerr.DelegationTokenRequestNotAllowed) {
		t.Fatalf("create over PLAINTEXT: %v", err)
	}

	// Expired at once, the token is gone and authenticates no more.
	if _, err := alice.ExpireDelegationToken(ctx, tok.HMAC, -time.Millisecond); err != nil {
		t.Fatal(err)
	}
	if left, err := alice.DescribeDelegationTokens(ctx); err != nil || len(left) != 1 || left[0].TokenID != other.TokenID {
		t.Fatalf("after expiry: %+v %v", left, err)
	}
	wantSASLFailure(t, addr, scram.Auth{User: tok.TokenID, Pass: password, IsToken: true}.AsSha256Mechanism(), kerr.SaslAuthenticationFailed,
		"invalid credentials with SASL mechanism SCRAM-SHA-256")
}

// aliceWithToken returns an admin client authenticated as alice and a
// token she created.
func aliceWithToken(t *testing.T, addr string) (*kadm.Client, kadm.DelegationToken) {
	t.Helper()
	alice := kadm.NewClient(saslClient(t, addr, plain.Auth{User: "alice", Pass: "alice-secret"}.AsMechanism()))
	tok, err := alice.CreateDelegationToken(testContext(t), kadm.CreateDelegationToken{})
	if err != nil {
		t.Fatal(err)
	}
	return alice, tok
}

// TestDelegationTokenExpiry: the periodic sweep
// (delegation.token.expiry.check.interval.ms) removes an expired token,
// which then neither renews nor authenticates.
func TestDelegationTokenExpiry(t *testing.T) {
	b := startTokenBroker(t, karsttest.WithConfig("delegation.token.expiry.time.ms", "1"),
		karsttest.WithConfig("delegation.token.expiry.check.interval.ms", "50"))
	addr := b.ListenerAddr("SASL_PLAINTEXT")
	ctx := testContext(t)
	alice, tok := aliceWithToken(t, addr)
	if !tok.ExpiryTimestamp.Equal(tok.IssueTimestamp.Add(time.Millisecond)) {
		t.Fatalf("token %+v", tok)
	}
	for {
		left, err := alice.DescribeDelegationTokens(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(left) == 0 {
			break
		}
		if ctx.Err() != nil {
			t.Fatalf("expired token never removed: %+v", left)
		}
	}
	if _, err := alice.RenewDelegationToken(ctx, tok.HMAC, 0); !errors.Is(err, kerr.DelegationTokenNotFound) {
		t.Fatalf("renew of a removed token: %v", err)
	}
	wantSASLFailure(t, addr, scram.Auth{User: tok.TokenID, Pass: base64.StdEncoding.EncodeToString(tok.HMAC), IsToken: true}.AsSha512Mechanism(),
		kerr.SaslAuthenticationFailed, "invalid credentials with SASL mechanism SCRAM-SHA-512")
}

func TestDelegationTokensDisabledWithoutSecretKey(t *testing.T) {
	b := startSASLBroker(t)
	adm := kadm.NewClient(saslClient(t, b.ListenerAddr("SASL_PLAINTEXT"), plain.Auth{User: "alice", Pass: "alice-secret"}.AsMechanism()))
	if _, err := adm.CreateDelegationToken(testContext(t), kadm.CreateDelegationToken{}); !errors.Is(err, kerr.DelegationTokenAuthDisabled) {
		t.Fatalf("create: %v", err)
	}
	if _, err := adm.DescribeDelegationTokens(testContext(t)); !errors.Is(err, kerr.DelegationTokenAuthDisabled) {
		t.Fatalf("describe: %v", err)
	}
}

// TestDelegationTokenExpiredGivesNoSession: a token past its expiry but
// not yet swept still passes SCRAM, as in Kafka, but its session lasts 0
// ms (KIP-368), so the client's first request after authenticating
// closes the connection and it never gets an answer.
func TestDelegationTokenExpiredGivesNoSession(t *testing.T) {
	b := startTokenBroker(t, karsttest.WithConfig("delegation.token.expiry.time.ms", "1"))
	addr := b.ListenerAddr("SASL_PLAINTEXT")
	ctx := testContext(t)
	_, tok := aliceWithToken(t, addr)
	for !time.Now().After(tok.ExpiryTimestamp.Add(time.Millisecond)) {
		if ctx.Err() != nil {
			t.Fatal(ctx.Err())
		}
		time.Sleep(time.Millisecond)
	}
	expiredBefore := b.SessionsExpired()
	cl := saslClient(t, addr, scram.Auth{User: tok.TokenID, Pass: base64.StdEncoding.EncodeToString(tok.HMAC), IsToken: true}.AsSha256Mechanism(),
		kgo.RequestRetries(0))
	if _, err := kadm.NewClient(cl).ListTopics(ctx); err == nil {
		t.Fatal("an expired token's client was answered")
	}
	if b.SessionsExpired() == expiredBefore {
		t.Fatal("no session ended as expired")
	}
}

// TestDelegationTokenAPIsAtVersion0: a client that speaks the delegation
// token APIs at v0 (Kafka 1.1's) creates, describes, renews and expires a
// token; v0 answers as v1 does (v1 only changed when throttling applies).
func TestDelegationTokenAPIsAtVersion0(t *testing.T) {
	b := startTokenBroker(t)
	ctx := testContext(t)
	v0 := kversion.Stable()
	for _, key := range []int16{38, 39, 40, 41} {
		v0.SetMaxKeyVersion(key, 0)
	}
	alice := kadm.NewClient(saslClient(t, b.ListenerAddr("SASL_PLAINTEXT"), plain.Auth{User: "alice", Pass: "alice-secret"}.AsMechanism(),
		kgo.MaxVersions(v0)))
	tok, err := alice.CreateDelegationToken(ctx, kadm.CreateDelegationToken{MaxLifetime: time.Hour})
	if err != nil || tok.Owner.Name != "alice" || len(tok.HMAC) != 64 {
		t.Fatalf("CreateDelegationToken v0: %+v, %v", tok, err)
	}
	if described, err := alice.DescribeDelegationTokens(ctx); err != nil || len(described) != 1 || described[0].TokenID != tok.TokenID {
		t.Fatalf("DescribeDelegationToken v0: %+v, %v", described, err)
	}
	if expiry, err := alice.RenewDelegationToken(ctx, tok.HMAC, time.Minute); err != nil || !expiry.After(time.Now()) {
		t.Fatalf("RenewDelegationToken v0: %v, %v", expiry, err)
	}
	if _, err := alice.ExpireDelegationToken(ctx, tok.HMAC, -time.Millisecond); err != nil {
		t.Fatalf("ExpireDelegationToken v0: %v", err)
	}
	if described, err := alice.DescribeDelegationTokens(ctx); err != nil || len(described) != 0 {
		t.Fatalf("after expiring at v0: %+v, %v", described, err)
	}
}
