package sasl

import (
	"github.com/xdg-go/scram"

	"github.com/karst-broker/karst/internal/metadata"
)

// ScramCredentials finds a user's credential for a mechanism.
type ScramCredentials interface {
	ScramCredential(m metadata.ScramMechanism, user string) (metadata.ScramCredential, bool)
}

// scramExchange runs xdg-go/scram's server conversation over credentials
// from the cluster metadata.
type scramExchange struct {
	conv *scram.ServerConversation
}

func newScramExchange(m metadata.ScramMechanism, creds ScramCredentials) (*scramExchange, error) {
	hashGen := scram.SHA256
	if m == metadata.ScramSHA512 {
		hashGen = scram.SHA512
	}
	server, err := hashGen.NewServer(func(user string) (scram.StoredCredentials, error) {
		if creds == nil {
			return scram.StoredCredentials{}, errUnknownUser
		}
		c, ok := creds.ScramCredential(m, user)
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
	return &scramExchange{conv: server.NewConversation()}, nil
}

type scramError string

func (e scramError) Error() string { return string(e) }

const (
	errUnknownUser      scramError = "Authentication failed: Invalid user credentials"
	errTooFewIterations scramError = "credential has fewer iterations than the mechanism's minimum"
	errInvalidProof     scramError = "Invalid client credentials"
)

func (s *scramExchange) Step(token []byte) ([]byte, error) {
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

func (s *scramExchange) Done() bool   { return s.conv.Done() && s.conv.Valid() }
func (s *scramExchange) User() string { return s.conv.Username() }
