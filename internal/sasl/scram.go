package sasl

import (
	"strings"
	"time"

	"github.com/xdg-go/scram"

	"github.com/karst-broker/karst/internal/metadata"
)

// ScramCredentials finds a user's credential for a mechanism.
type ScramCredentials interface {
	ScramCredential(m metadata.ScramMechanism, user string) (metadata.ScramCredential, bool)
}

// scramExchange runs xdg-go/scram's server conversation over credentials
// from the cluster metadata, or over a delegation token's when the client
// sends tokenauth=true.
type scramExchange struct {
	conv *scram.ServerConversation
	// tokenAuth is set from the client's first message; token is the
	// delegation token's credential once looked up.
	tokenAuth bool
	token     TokenCredential
	first     bool
}

func newScramExchange(m metadata.ScramMechanism, creds ScramCredentials, tokens DelegationTokens) (*scramExchange, error) {
	x := &scramExchange{first: true}
	hashGen := scram.SHA256
	if m == metadata.ScramSHA512 {
		hashGen = scram.SHA512
	}
	server, err := hashGen.NewServer(func(user string) (scram.StoredCredentials, error) {
		var c metadata.ScramCredential
		var ok bool
		switch {
		case x.tokenAuth:
			if tokens == nil {
				return scram.StoredCredentials{}, errUnknownToken(user)
			}
			if x.token, ok = tokens.DelegationTokenCredential(m, user); !ok {
				return scram.StoredCredentials{}, errUnknownToken(user)
			}
			c = x.token.ScramCredential
		case creds != nil:
			c, ok = creds.ScramCredential(m, user)
		}
		if !ok {
			return scram.StoredCredentials{}, errUnknownUser
		}
		if c.Iterations < metadata.ScramMinIterations {
			return scram.StoredCredentials{}, errTooFewIterations
		}
		return scram.StoredCredentials{
			KeyFactors: scram.KeyFactors{Salt: string(c.Salt), Iters: int(c.Iterations)},
			StoredKey:  c.StoredKey,
			ServerKey:  c.ServerKey,
		}, nil
	})
	if err != nil {
		return nil, err
	}
	x.conv = server.NewConversation()
	return x, nil
}

func errUnknownToken(tokenID string) error {
	return scramError("Token Authentication failed: Invalid tokenId : " + tokenID)
}

type scramError string

func (e scramError) Error() string { return string(e) }

const (
	errUnknownUser      scramError = "Authentication failed: Invalid user credentials"
	errTooFewIterations scramError = "credential has fewer iterations than the mechanism's minimum"
	errInvalidProof     scramError = "Invalid client credentials"
)

func (s *scramExchange) Step(token []byte) ([]byte, error) {
	if s.first {
		s.first = false
		s.tokenAuth = strings.EqualFold(scramExtensions(string(token))[tokenAuthExtension], "true")
	}
	out, err := s.conv.Step(string(token))
	if err != nil {
		return nil, err
	}
	if s.conv.Done() {
		if !s.conv.Valid() {
			return nil, errInvalidProof
		}
		if authz := s.conv.AuthzID(); authz != "" && authz != s.conv.Username() {
			return nil, &Failure{Message: "Authentication failed: Client requested an authorization id that is different from username"}
		}
	}
	return []byte(out), nil
}

func (s *scramExchange) Done() bool { return s.conv.Done() && s.conv.Valid() }

// User is the user, or a delegation token's owner.
func (s *scramExchange) User() string {
	if s.tokenAuth {
		return s.token.Owner
	}
	return s.conv.Username()
}

// TokenAuthenticated reports whether the client authenticated with a
// delegation token.
func (s *scramExchange) TokenAuthenticated() bool { return s.tokenAuth && s.Done() }

// CredentialExpires is a delegation token's expiry; a password does not
// expire (zero).
func (s *scramExchange) CredentialExpires() time.Time {
	if s.tokenAuth {
		return s.token.Expires
	}
	return time.Time{}
}
