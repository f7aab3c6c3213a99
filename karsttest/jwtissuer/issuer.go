// Package jwtissuer stands in for an OAuth identity provider in tests:
// JWTs signed with a key made by the test, and the JSON Web Key Set that
// verifies them.
package jwtissuer

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/MicahParks/jwkset"
	"github.com/golang-jwt/jwt/v5"
)

// Issuer signs JWTs with an RSA key made for the test and publishes the
// public key as a JSON Web Key Set, for a broker's
// sasl.oauthbearer.jwks.endpoint.url.
type Issuer struct {
	t   testing.TB
	kid string
	key *rsa.PrivateKey
}

// New makes an issuer with a new 2048-bit RSA key whose JWK has
// key id kid.
func New(t testing.TB, kid string) *Issuer {
	t.Helper()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	return &Issuer{t: t, kid: kid, key: key}
}

// Sign returns the compact serialization of a JWT with claims, signed
// RS256 and naming the issuer's key id.
func (i *Issuer) Sign(claims map[string]any) string {
	i.t.Helper()
	tok := jwt.NewWithClaims(jwt.SigningMethodRS256, jwt.MapClaims(claims))
	tok.Header["kid"] = i.kid
	s, err := tok.SignedString(i.key)
	if err != nil {
		i.t.Fatal(err)
	}
	return s
}

// JWKS is the public key set, as an identity provider serves it.
func (i *Issuer) JWKS() []byte {
	i.t.Helper()
	jwk, err := jwkset.NewJWKFromKey(&i.key.PublicKey, jwkset.JWKOptions{
		Metadata: jwkset.JWKMetadataOptions{KID: i.kid, ALG: jwkset.AlgRS256, USE: jwkset.UseSig}})
	if err != nil {
		i.t.Fatal(err)
	}
	set := jwkset.NewMemoryStorage()
	if err := set.KeyWrite(context.Background(), jwk); err != nil {
		i.t.Fatal(err)
	}
	raw, err := set.JSONPublic(context.Background())
	if err != nil {
		i.t.Fatal(err)
	}
	var check jwkset.JWKSMarshal
	if err := json.Unmarshal(raw, &check); err != nil || len(check.Keys) != 1 {
		i.t.Fatalf("JWKS %s: %v", raw, err)
	}
	return raw
}

// WriteJWKS writes the key set to a file in dir and returns its file://
// URL.
func (i *Issuer) WriteJWKS(dir string) string {
	i.t.Helper()
	path := filepath.Join(dir, "jwks.json")
	if err := os.WriteFile(path, i.JWKS(), 0o600); err != nil {
		i.t.Fatal(err)
	}
	return "file://" + path
}
