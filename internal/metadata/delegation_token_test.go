package metadata

import (
	"errors"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
)

func TestDelegationTokenLifecycle(t *testing.T) {
	img := scramImage(t)
	s := DelegationTokenSettings{SecretKey: "secret", MaxLifetime: 7 * time.Hour, ExpiryTime: time.Hour}
	now := time.UnixMilli(1_800_000_000_000)
	must := func(next *Image, err error) *Image {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return next
	}

	if _, _, err := img.CreateDelegationToken(DelegationTokenSettings{}, CreateDelegationTokenRequest{Owner: "User:a"}, now); !errors.Is(err, kerr.DelegationTokenAuthDisabled) {
		t.Fatalf("without a secret key: %v", err)
	}
	if _, _, err := img.CreateDelegationToken(s, CreateDelegationTokenRequest{Owner: "User:a", Renewers: []string{"Group:g"}}, now); !errors.Is(err, kerr.InvalidPrincipalType) {
		t.Fatalf("a Group renewer: %v", err)
	}
	old := must(EmptyImage().Replay(&FeatureLevelRecord{Name: FeatureMetadataVersion, FeatureLevel: 13}))
	if _, _, err := old.CreateDelegationToken(s, CreateDelegationTokenRequest{Owner: "User:a"}, now); !errors.Is(err, kerr.UnsupportedVersion) {
		t.Fatalf("at metadata.version 3.6-IV1: %v", err)
	}

	recs, tok, err := img.CreateDelegationToken(s, CreateDelegationTokenRequest{Owner: "User:alice", Requester: "User:admin",
		Renewers: []string{"User:bob"}, MaxLifetime: 2 * time.Hour}, now)
	if err != nil {
		t.Fatal(err)
	}
	ms := now.UnixMilli()
	if tok.IssueTimestamp != ms || tok.MaxTimestamp != ms+2*3600_000 || tok.ExpirationTimestamp != ms+3600_000 || len(tok.TokenID) != 22 {
		t.Fatalf("token %+v", tok)
	}
	img = must(img.Replay(recs...))
	mac := DelegationTokenHMAC("secret", tok.TokenID)

	if _, _, err := img.RenewDelegationToken(s, mac, "User:mallory", 0, now); !errors.Is(err, kerr.DelegationTokenOwnerMismatch) {
		t.Fatalf("renewed by a stranger: %v", err)
	}
	if _, _, err := img.RenewDelegationToken(s, DelegationTokenHMAC("other", tok.TokenID), "User:alice", 0, now); !errors.Is(err, kerr.DelegationTokenNotFound) {
		t.Fatalf("renewed with a wrong HMAC: %v", err)
	}
	// A renewal adds delegation.token.expiry.time.ms, capped by the
	// token's max timestamp.
	recs, expiry, err := img.RenewDelegationToken(s, mac, "User:bob", 0, now.Add(50*time.Minute))
	if err != nil || expiry != ms+110*60_000 {
		t.Fatalf("renew: expiry %d err %v", expiry, err)
	}
	img = must(img.Replay(recs...))
	later := now.Add(100 * time.Minute)
	recs, expiry, err = img.RenewDelegationToken(s, mac, "User:bob", 0, later)
	if err != nil || expiry != tok.MaxTimestamp {
		t.Fatalf("renew: expiry %d err %v, want %d", expiry, err, tok.MaxTimestamp)
	}
	img = must(img.Replay(recs...))
	recs, expiry, err = img.ExpireDelegationToken(s, mac, "User:alice", time.Minute, later)
	if err != nil || expiry != later.UnixMilli()+60_000 {
		t.Fatalf("expire in a minute: %d %v", expiry, err)
	}
	img = must(img.Replay(recs...))
	if got, _ := img.DelegationToken(tok.TokenID); got.ExpirationTimestamp != expiry {
		t.Fatalf("replayed %+v", got)
	}

	// A snapshot keeps the token as it is.
	restored := must(EmptyImage().Replay(img.Records()...))
	if got := restored.DelegationTokens(); len(got) != 1 || got[0].ExpirationTimestamp != expiry || got[0].Renewers[0] != "User:bob" {
		t.Fatalf("restored %+v", got)
	}

	gone := later.Add(2 * time.Minute)
	if _, _, err := img.RenewDelegationToken(s, mac, "User:alice", 0, gone); !errors.Is(err, kerr.DelegationTokenExpired) {
		t.Fatalf("renewed after expiry: %v", err)
	}
	if recs := img.ExpiredDelegationTokens(later); len(recs) != 0 {
		t.Fatalf("swept a live token: %+v", recs)
	}
	recs = img.ExpiredDelegationTokens(gone)
	img = must(img.Replay(recs...))
	if len(recs) != 1 || len(img.DelegationTokens()) != 0 {
		t.Fatalf("sweep: %+v left %+v", recs, img.DelegationTokens())
	}

	// A negative period removes a token at once.
	recs, tok, _ = img.CreateDelegationToken(s, CreateDelegationTokenRequest{Owner: "User:alice"}, now)
	img = must(img.Replay(recs...))
	recs, _, err = img.ExpireDelegationToken(s, DelegationTokenHMAC("secret", tok.TokenID), "User:alice", -1, now)
	if err != nil || len(recs) != 1 || recs[0].(*RemoveDelegationTokenRecord).TokenID != tok.TokenID {
		t.Fatalf("expire now: %+v %v", recs, err)
	}
}
