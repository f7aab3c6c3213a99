// Package sasl is the server side of Kafka's SASL authentication: the
// mechanisms (PLAIN, SCRAM-SHA-256, SCRAM-SHA-512, OAUTHBEARER with Kafka's
// unsecured tokens or JWTs verified against a JSON Web Key Set, GSSAPI
// with a Kerberos keytab) a listener enables, the JAAS configuration they
// read their users and options from, and the exchange of tokens one
// connection goes through, as Kafka's SaslServerAuthenticator drives its
// SaslServer.
//
// It knows nothing of sockets or Kafka requests: internal/server carries
// the tokens of SaslAuthenticate to an Exchange and its answers back, and
// SCRAM credentials come from the cluster metadata through the
// ScramCredentials a listener is given.
package sasl
