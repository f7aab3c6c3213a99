package handler

import (
	"strings"

	"github.com/karst-broker/karst/internal/metadata"
	"github.com/karst-broker/karst/internal/security/principal"
)

// tokenRequestsAllowed is Kafka's KafkaApis.allowTokenRequests: delegation
// tokens are handed out, renewed, expired and described only to a client
// that proved who it is by other means than a token: never on PLAINTEXT,
// nor over one-way TLS (SSL without a client certificate), nor to a
// connection that authenticated with a delegation token.
func tokenRequestsAllowed(c *Conn) bool {
	p := c.Principal()
	switch {
	case c.TokenAuthenticated():
		return false
	case c.SecurityProtocol == "PLAINTEXT":
		return false
	case c.SecurityProtocol == "SSL" && p == principal.Anonymous:
		return false
	}
	return true
}

// delegationTokenSettings reads the delegation.token.* keys.
func (b *Broker) delegationTokenSettings() metadata.DelegationTokenSettings {
	if b.opts.DelegationTokens != nil {
		return *b.opts.DelegationTokens
	}
	return metadata.DelegationTokenSettings{}
}

// principalOf splits Kafka's "Type:Name" form.
func principalOf(s string) principal.KafkaPrincipal {
	typ, name, _ := strings.Cut(s, ":")
	return principal.KafkaPrincipal{Type: typ, Name: name}
}
