package config

// oauthBearerKeys are the broker keys of OAUTHBEARER token validation with
// OAuthBearerValidatorCallbackHandler, with Kafka 4.4's defaults
// (SaslConfigs); a listener.name.<listener>.oauthbearer.<key> form
// overrides each for one listener.
var oauthBearerKeys = []Key{
	null("sasl.oauthbearer.jwks.endpoint.url", TypeString, nil, ReadOnly, "URL (https://, http:// or file://) of the JSON Web Key Set that verifies the signatures of OAUTHBEARER tokens."),
	def("sasl.oauthbearer.jwks.endpoint.refresh.ms", TypeLong, "3600000", atLeast(0), ReadOnly, "How often an http(s) JWKS is fetched again."),
	def("sasl.oauthbearer.jwks.endpoint.retry.backoff.ms", TypeLong, "100", atLeast(0), ReadOnly, "First wait before retrying a failed JWKS fetch."),
	def("sasl.oauthbearer.jwks.endpoint.retry.backoff.max.ms", TypeLong, "10000", atLeast(0), ReadOnly, "Longest wait between JWKS fetch retries."),
	def("sasl.oauthbearer.clock.skew.seconds", TypeInt, "30", atLeast(0), ReadOnly, "Clock difference allowed when checking a token's exp and iat."),
	null("sasl.oauthbearer.expected.audience", TypeList, nil, ReadOnly, "Audiences, one of which a token's aud claim must name."),
	null("sasl.oauthbearer.expected.issuer", TypeString, nil, ReadOnly, "Issuer a token's iss claim must name."),
	def("sasl.oauthbearer.allow.unverified.audience", TypeBoolean, "false", nil, ReadOnly, "Accept tokens without checking aud when no expected audience is set (insecure)."),
	def("sasl.oauthbearer.allow.unverified.issuer", TypeBoolean, "false", nil, ReadOnly, "Accept tokens without checking iss when no expected issuer is set (insecure)."),
	def("sasl.oauthbearer.scope.claim.name", TypeString, "scope", nil, ReadOnly, "Claim holding a token's scope."),
	def("sasl.oauthbearer.sub.claim.name", TypeString, "sub", nil, ReadOnly, "Claim holding a token's subject, the principal name."),
	def("sasl.oauthbearer.jwt.validator.class", TypeClass, "org.apache.kafka.common.security.oauthbearer.DefaultJwtValidator", nil, ReadOnly, "JwtValidator class (Karst: DefaultJwtValidator or BrokerJwtValidator, both verify against the JWKS)."),
}

// delegationTokenKeys configure delegation tokens (Kafka 4.4's
// DelegationTokenManagerConfigs); no secret key disables them.
var delegationTokenKeys = []Key{
	null("delegation.token.secret.key", TypePassword, nil, ReadOnly, "Secret key that signs delegation tokens (HMAC-SHA512); unset or empty disables delegation tokens."),
	def("delegation.token.max.lifetime.ms", TypeLong, "604800000", atLeast(1), ReadOnly, "Lifetime beyond which a delegation token cannot be renewed."),
	def("delegation.token.expiry.time.ms", TypeLong, "86400000", atLeast(1), ReadOnly, "How long a delegation token is valid before it must be renewed."),
	def("delegation.token.expiry.check.interval.ms", TypeLong, "3600000", atLeast(1), ReadOnly, "How often expired delegation tokens are removed."),
}
