package node

import (
	"fmt"
	"strings"

	"github.com/karst-broker/karst/internal/config"
	"github.com/karst-broker/karst/internal/metadata"
	"github.com/karst-broker/karst/internal/sasl"
)

// listenerSettings gives internal/sasl a listener's keys: the
// listener.name.<listener>.<key> override, else the broker's value.
type listenerSettings struct{ b *config.Broker }

func (s listenerSettings) ListenerValue(listener, key string) (string, bool) {
	if v, ok := s.b.ListenerOverride(listener, key); ok {
		return v, true
	}
	v, ok := s.b.Get(key)
	if !ok {
		raw, set := s.b.Static()[key]
		return raw, set
	}
	if list, isList := v.([]string); isList {
		return strings.Join(list, ","), true
	}
	return fmt.Sprint(v), true
}

// saslListener reads the SASL set-up of a SASL_PLAINTEXT or SASL_SSL
// listener (the TLS of SASL_SSL is serverListener's); other protocols have
// none.
func saslListener(b *config.Broker, l config.Listener) (*sasl.Listener, error) {
	switch l.SecurityProtocol {
	case "SASL_PLAINTEXT", "SASL_SSL":
		return sasl.NewListener(l.Name, listenerSettings{b}, nil)
	}
	return nil, nil
}

// storeCredentials looks SCRAM credentials up in the current metadata
// image, so a credential altered through AlterUserScramCredentials counts
// from the next authentication.
type storeCredentials struct{ store *metadata.Store }

func (s storeCredentials) ScramCredential(m metadata.ScramMechanism, user string) (metadata.ScramCredential, bool) {
	return s.store.Image().ScramCredential(m, user)
}
