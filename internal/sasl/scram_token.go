package sasl

import (
	"strings"
	"time"

	"github.com/karst-broker/karst/internal/metadata"
)

// DelegationTokens finds the SCRAM credential of a delegation token:
// tokenid as the user, the token's HMAC (base64) as the password, as
// Kafka's DelegationTokenCache keeps it for each SCRAM mechanism.
type DelegationTokens interface {
	DelegationTokenCredential(m metadata.ScramMechanism, tokenID string) (TokenCredential, bool)
}

// TokenCredential is a delegation token's SCRAM credential and what the
// authenticated connection takes from the token.
type TokenCredential struct {
	metadata.ScramCredential
	// Owner is the token owner's principal name, which the connection
	// authenticates as.
	Owner string
	// Expires is the token's expiry, which bounds the session.
	Expires time.Time
}

// scramExtensions returns the extensions of a SCRAM client-first message
// (RFC 5802 §5.1: attributes after the nonce), as Kafka's
// ScramMessages.ClientFirstMessage reads them: "key=value" pairs, later
// ones overriding earlier.
func scramExtensions(clientFirst string) map[string]string {
	// gs2-header "," username "," nonce ["," extensions]
	fields := strings.Split(clientFirst, ",")
	if len(fields) <= 4 {
		return nil
	}
	ext := map[string]string{}
	for _, f := range fields[4:] {
		if k, v, ok := strings.Cut(f, "="); ok && k != "" {
			ext[k] = v
		}
	}
	return ext
}

// tokenAuthExtension is the SCRAM extension with which a client asks to
// authenticate with a delegation token.
const tokenAuthExtension = "tokenauth"
