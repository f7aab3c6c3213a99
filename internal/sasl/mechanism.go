package sasl

import "errors"

// The mechanisms Karst serves, by the names Kafka's clients send in
// SaslHandshake.
const (
	Plain       = "PLAIN"
	ScramSHA256 = "SCRAM-SHA-256"
	ScramSHA512 = "SCRAM-SHA-512"
	OAuthBearer = "OAUTHBEARER"
	GSSAPI      = "GSSAPI"
)

// Exchange is one connection's run through a mechanism: Step takes each
// token the client sends and returns the one to answer with, until Done.
// A nil last answer (GSSAPI's) is no answer at all where tokens are bare
// frames after a v0 handshake, as Kafka sends nothing for a SaslServer's
// null; an empty one is an empty frame.
type Exchange interface {
	Step(token []byte) ([]byte, error)
	Done() bool
	// User is the authenticated name once Done.
	User() string
}

// Failure is an authentication that the client is told about: Message is
// sent back in SaslAuthenticate's error_message, as Kafka sends a
// SaslAuthenticationException's message. Any other error from Step is
// answered with a message that gives nothing away (see FailureMessage),
// as Kafka answers a SaslException.
type Failure struct{ Message string }

func (f *Failure) Error() string { return f.Message }

// FailureMessage is what a client is told when authentication fails with
// err during (re-)authentication with mechanism.
func FailureMessage(err error, mechanism string, reauthenticating bool) string {
	var f *Failure
	if errors.As(err, &f) {
		return f.Message
	}
	stage := "authentication"
	if reauthenticating {
		stage = "re-authentication"
	}
	return "Authentication failed during " + stage + " due to invalid credentials with SASL mechanism " + mechanism
}
