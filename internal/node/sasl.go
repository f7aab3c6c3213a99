package node

import (
	"github.com/karst-broker/karst/internal/config"
	"github.com/karst-broker/karst/internal/metadata"
	"github.com/karst-broker/karst/internal/sasl"
)

// saslListener reads the SASL set-up of a SASL_PLAINTEXT or SASL_SSL
// listener (the TLS of SASL_SSL is serverListener's); other protocols have
// none.
func saslListener(b *config.Broker, l config.Listener) (*sasl.Listener, error) {
	switch l.SecurityProtocol {
	case "SASL_PLAINTEXT", "SASL_SSL":
		return sasl.NewListener(l.Name, b, nil)
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
