package node

import (
	"os"

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
		file, err := loginConfigFile()
		if err != nil {
			return nil, err
		}
		return sasl.NewListener(l.Name, sasl.WithJAASFile(b, file), nil)
	}
	return nil, nil
}

// loginConfigFile reads the JAAS file that KAFKA_OPTS names with
// -Djava.security.auth.login.config=, as Kafka's start script hands it to
// the JVM, so an operator's kafka_server_jaas.conf serves unchanged: each
// mechanism without a <mechanism>.sasl.jaas.config takes its login module
// from the file's <listener>.KafkaServer or KafkaServer entry. nil when
// KAFKA_OPTS names none.
func loginConfigFile() (*sasl.JAASFile, error) {
	path := sasl.LoginConfigFromKafkaOpts(os.Getenv("KAFKA_OPTS"))
	if path == "" {
		return nil, nil
	}
	return sasl.LoadJAASFile(path)
}

// storeCredentials looks SCRAM credentials up in the current metadata
// image, so a credential altered through AlterUserScramCredentials counts
// from the next authentication.
type storeCredentials struct{ store *metadata.Store }

func (s storeCredentials) ScramCredential(m metadata.ScramMechanism, user string) (metadata.ScramCredential, bool) {
	return s.store.Image().ScramCredential(m, user)
}
