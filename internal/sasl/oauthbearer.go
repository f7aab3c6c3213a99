package sasl

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// OAuthBearerLoginModule is the JAAS login module whose options configure
// OAUTHBEARER's unsecured token validation (Kafka's default when no
// server callback handler is set: for development only, tokens are not
// signed).
const OAuthBearerLoginModule = "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule"

// unsecuredValidator is Kafka's OAuthBearerUnsecuredValidatorCallbackHandler
// configuration.
type unsecuredValidator struct {
	principalClaim string
	scopeClaim     string
	requiredScope  []string
	clockSkew      time.Duration
}

func newUnsecuredValidator(options map[string]string) (unsecuredValidator, error) {
	v := unsecuredValidator{principalClaim: "sub", scopeClaim: "scope"}
	if s := strings.TrimSpace(options["unsecuredValidatorPrincipalClaimName"]); s != "" {
		v.principalClaim = s
	}
	if s := strings.TrimSpace(options["unsecuredValidatorScopeClaimName"]); s != "" {
		v.scopeClaim = s
	}
	v.requiredScope = strings.Fields(options["unsecuredValidatorRequiredScope"])
	if s := strings.TrimSpace(options["unsecuredValidatorAllowableClockSkewMs"]); s != "" {
		ms, err := strconv.Atoi(s)
		if err != nil || ms < 0 {
			return v, fmt.Errorf("unsecuredValidatorAllowableClockSkewMs: %q is not a non-negative integer", s)
		}
		v.clockSkew = time.Duration(ms) * time.Millisecond
	}
	return v, nil
}

// oauthBearerInitialResponse is RFC 7628's client initial response as
// Kafka's OAuthBearerClientInitialResponse matches it: a GS2 header with
// an optional authorization id, then key=value pairs separated by 0x01,
// one of them auth=Bearer <token>.
var oauthBearerInitialResponse = regexp.MustCompile(
	"^n,(?:a=((?:[\\x01-\\x2B\\x2D-\\x3C\\x3E-\\x7F]|=2C|=3D)+))?,\x01((?:[A-Za-z]+=[\\x21-\\x7E \t\r\n]+\x01)*)\x01$")

var oauthBearerAuth = regexp.MustCompile(`^(\w+) +([-_~+/.a-zA-Z0-9]+=*)$`)

// ParseOAuthBearerInitialResponse returns the token, authorization id and
// extensions of a client's first OAUTHBEARER message.
func ParseOAuthBearerInitialResponse(msg []byte) (token, authzID string, extensions map[string]string, err error) {
	m := oauthBearerInitialResponse.FindSubmatch(msg)
	if m == nil {
		return "", "", nil, fmt.Errorf("invalid OAUTHBEARER client first message")
	}
	authzID = strings.NewReplacer("=2C", ",", "=3D", "=").Replace(string(m[1]))
	extensions = map[string]string{}
	var auth string
	for _, kv := range strings.Split(strings.TrimSuffix(string(m[2]), "\x01"), "\x01") {
		if kv == "" {
			continue
		}
		k, v, _ := strings.Cut(kv, "=")
		if k == "auth" {
			auth = v
			continue
		}
		extensions[k] = v
	}
	a := oauthBearerAuth.FindStringSubmatch(auth)
	if a == nil {
		return "", "", nil, fmt.Errorf("invalid OAuth token auth value")
	}
	if !strings.EqualFold(a[1], "bearer") {
		return "", "", nil, fmt.Errorf("invalid scheme in OAuth token auth value: %s", a[1])
	}
	return a[2], authzID, extensions, nil
}

// validToken is a token a validator accepted.
type validToken struct {
	principal string
	expires   time.Time
}

// tokenRefusal is why a token was refused: the challenge Kafka sends
// (RFC 7628 §3.2.2 JSON) and a message for the log.
type tokenRefusal struct {
	status, scope, reason string
}

func (r *tokenRefusal) challenge() string {
	s := `{"status":"` + r.status + `"`
	if r.scope != "" {
		s += `, "scope":"` + r.scope + `"`
	}
	return s + "}"
}

// validate checks an unsecured JWS as Kafka's
// OAuthBearerUnsecuredValidatorCallbackHandler: header.claims. with an
// empty signature and alg none, a string principal claim, an expiration
// not passed (within the clock skew), an issued-at not in the future and
// not after the expiration, and the required scope.
func (v unsecuredValidator) validate(token string, now time.Time) (validToken, *tokenRefusal) {
	refuse := func(format string, args ...any) (validToken, *tokenRefusal) {
		return validToken{}, &tokenRefusal{status: "invalid_token", reason: fmt.Sprintf(format, args...)}
	}
	parts := strings.Split(token, ".")
	if len(parts) != 3 || parts[2] != "" {
		return refuse("unsecured JWS compact serializations must have 3 dot-separated Base64URL-encoded values and the third must be empty")
	}
	var header map[string]any
	if err := decodeJWSPart(parts[0], &header); err != nil {
		return refuse("JWS header: %v", err)
	}
	if header["alg"] != "none" {
		return refuse("unsecured JWS must have alg=none")
	}
	var claims map[string]any
	if err := decodeJWSPart(parts[1], &claims); err != nil {
		return refuse("JWS claims: %v", err)
	}
	principal, ok := claims[v.principalClaim].(string)
	if !ok || principal == "" {
		return refuse("required claim missing or not a string: %s", v.principalClaim)
	}
	exp, ok := claims["exp"].(float64)
	if !ok {
		return refuse("required claim missing or not a number: exp")
	}
	expires := time.UnixMilli(int64(exp * 1000))
	if now.After(expires.Add(v.clockSkew)) {
		return refuse("the token expired at %s", expires.UTC().Format(time.RFC3339))
	}
	if raw, present := claims["iat"]; present {
		iat, ok := raw.(float64)
		if !ok {
			return refuse("claim iat is not a number")
		}
		issued := time.UnixMilli(int64(iat * 1000))
		if issued.After(now.Add(v.clockSkew)) {
			return refuse("the token is issued in the future (%s)", issued.UTC().Format(time.RFC3339))
		}
		if issued.After(expires) {
			return refuse("the token is issued after it expires")
		}
	}
	if missing := v.missingScope(claims[v.scopeClaim]); missing != "" {
		_, r := refuse("the token's scope lacks %s", missing)
		r.scope = "[" + strings.Join(v.requiredScope, ", ") + "]"
		return validToken{}, r
	}
	return validToken{principal: principal, expires: expires}, nil
}

func (v unsecuredValidator) missingScope(claim any) string {
	var have []string
	switch s := claim.(type) {
	case string:
		have = strings.Fields(s)
	case []any:
		for _, e := range s {
			if str, ok := e.(string); ok {
				have = append(have, str)
			}
		}
	}
	for _, want := range v.requiredScope {
		if !slices.Contains(have, want) {
			return want
		}
	}
	return ""
}

func decodeJWSPart(part string, into any) error {
	raw, err := base64.RawURLEncoding.DecodeString(part)
	if err != nil {
		return err
	}
	return json.Unmarshal(raw, into)
}

// oauthBearerExchange is Kafka's OAuthBearerSaslServer: one client message
// with the token; a refused token is answered with an error challenge,
// which the client acknowledges with 0x01 before the failure.
type oauthBearerExchange struct {
	validator tokenValidator
	now       func() time.Time
	token     validToken
	refusal   *tokenRefusal
	done      bool
}

func (o *oauthBearerExchange) Step(msg []byte) ([]byte, error) {
	if len(msg) == 1 && msg[0] == 0x01 && o.refusal != nil {
		return nil, &Failure{Message: o.refusal.challenge()}
	}
	if o.done {
		return nil, fmt.Errorf("unexpected OAUTHBEARER message after authentication completed")
	}
	o.refusal = nil
	token, authzID, _, err := ParseOAuthBearerInitialResponse(msg)
	if err != nil {
		return nil, err
	}
	t, refusal := o.validator.validate(token, o.now())
	if refusal != nil {
		o.refusal = refusal
		return []byte(refusal.challenge()), nil
	}
	if authzID != "" && authzID != t.principal {
		return nil, &Failure{Message: fmt.Sprintf("Authentication failed: Client requested an authorization id (%s) that is different from the token's principal name (%s)", authzID, t.principal)}
	}
	o.token, o.done = t, true
	return []byte{}, nil
}

func (o *oauthBearerExchange) Done() bool   { return o.done }
func (o *oauthBearerExchange) User() string { return o.token.principal }

// CredentialExpires is when the token expires: the session may not
// outlive it (KIP-368).
func (o *oauthBearerExchange) CredentialExpires() time.Time { return o.token.expires }

// Expiring is an Exchange whose credential may have an expiry (zero for
// none), which bounds the session as Kafka's CREDENTIAL_LIFETIME_MS
// negotiated property does.
type Expiring interface {
	CredentialExpires() time.Time
}

// TokenAuthenticating is an Exchange that may authenticate with a
// delegation token (SCRAM with tokenauth=true).
type TokenAuthenticating interface {
	TokenAuthenticated() bool
}
