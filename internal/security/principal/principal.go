// Package principal holds Kafka's principals: who a connection is, as
// Kafka's KafkaPrincipal names it ("User:alice"), and the mapping of TLS
// client certificate names to principal names that
// ssl.principal.mapping.rules configures.
package principal

// UserType is the principal type every built-in authentication yields.
const UserType = "User"

// KafkaPrincipal is the identity of a connection, as Kafka's
// org.apache.kafka.common.security.auth.KafkaPrincipal.
type KafkaPrincipal struct {
	Type string
	Name string
}

// Anonymous is the principal of a connection that did not authenticate
// (PLAINTEXT, or SSL without a client certificate).
var Anonymous = KafkaPrincipal{Type: UserType, Name: "ANONYMOUS"}

// User is a principal of type User.
func User(name string) KafkaPrincipal { return KafkaPrincipal{Type: UserType, Name: name} }

// String is Kafka's form, "Type:Name", which ACLs and logs use.
func (p KafkaPrincipal) String() string { return p.Type + ":" + p.Name }
