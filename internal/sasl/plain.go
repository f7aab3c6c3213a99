package sasl

import (
	"crypto/subtle"
	"strconv"
	"strings"
)

// PlainLoginModule is the JAAS login module whose options list PLAIN's
// users, as user_<name>="<password>".
const PlainLoginModule = "org.apache.kafka.common.security.plain.PlainLoginModule"

const plainUserPrefix = "user_"

// PlainUsers reads the user_<name> options of a PlainLoginModule entry.
func PlainUsers(m LoginModule) map[string]string {
	users := map[string]string{}
	for k, v := range m.Options {
		if name, ok := strings.CutPrefix(k, plainUserPrefix); ok {
			users[name] = v
		}
	}
	return users
}

// plainExchange is RFC 4616 PLAIN as Kafka's PlainSaslServer checks it: one
// message [authzid] NUL authcid NUL passwd, checked against the JAAS users.
type plainExchange struct {
	users map[string]string
	user  string
	done  bool
}

func (p *plainExchange) Done() bool   { return p.done }
func (p *plainExchange) User() string { return p.user }

func (p *plainExchange) Step(token []byte) ([]byte, error) {
	if p.done {
		return nil, &Failure{Message: "Unexpected SASL/PLAIN message after authentication completed"}
	}
	authzID, user, password, err := ParsePlainMessage(token)
	if err != nil {
		return nil, err
	}
	expected, known := p.users[user]
	if !known || subtle.ConstantTimeCompare([]byte(password), []byte(expected)) != 1 {
		return nil, &Failure{Message: "Authentication failed: Invalid username or password"}
	}
	if authzID != "" && authzID != user {
		return nil, &Failure{Message: "Authentication failed: Client requested an authorization id that is different from username"}
	}
	p.user, p.done = user, true
	return []byte{}, nil
}

// ParsePlainMessage splits a PLAIN client message into its three fields,
// refusing what Kafka's PlainSaslServer refuses, with its messages.
func ParsePlainMessage(token []byte) (authzID, user, password string, err error) {
	// Kafka decodes the bytes as UTF-8 (invalid sequences become U+FFFD)
	// and splits on NUL, up to four fields.
	tokens := strings.SplitN(strings.ToValidUTF8(string(token), "\uFFFD"), "\x00", 4)
	if len(tokens) != 3 {
		return "", "", "", &Failure{Message: "Invalid SASL/PLAIN response: expected 3 tokens, got " + strconv.Itoa(len(tokens))}
	}
	authzID, user, password = tokens[0], tokens[1], tokens[2]
	if user == "" {
		return "", "", "", &Failure{Message: "Authentication failed: username not specified"}
	}
	if password == "" {
		return "", "", "", &Failure{Message: "Authentication failed: password not specified"}
	}
	return authzID, user, password, nil
}
