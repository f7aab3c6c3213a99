package sasl

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/MicahParks/keyfunc/v3"
	"github.com/golang-jwt/jwt/v5"
)

// OAuthBearerValidatorCallbackHandler is the server callback handler that
// makes a listener verify OAUTHBEARER tokens as signed JWTs against a JSON
// Web Key Set, instead of Kafka's unsecured development tokens.
const OAuthBearerValidatorCallbackHandler = "org.apache.kafka.common.security.oauthbearer.OAuthBearerValidatorCallbackHandler"

// jwtValidatorClasses are the sasl.oauthbearer.jwt.validator.class values
// whose behaviour Karst serves: with a JWKS URL both are Kafka's
// BrokerJwtValidator.
var jwtValidatorClasses = []string{
	"org.apache.kafka.common.security.oauthbearer.DefaultJwtValidator",
	"org.apache.kafka.common.security.oauthbearer.BrokerJwtValidator",
}

// tokenValidator checks the token of an OAUTHBEARER client message.
type tokenValidator interface {
	validate(token string, now time.Time) (validToken, *tokenRefusal)
}

// jwtValidator is Kafka's BrokerJwtValidator: a JWS signed by a key of the
// JWKS (alg none refused), with exp and iat required, aud and iss checked
// when expected, within the clock skew; the principal is the sub claim
// (sasl.oauthbearer.sub.claim.name).
type jwtValidator struct {
	keys       jwt.Keyfunc
	options    []jwt.ParserOption
	subClaim   string
	scopeClaim string
	close      func()
}

// newJWTValidator reads the sasl.oauthbearer.* keys of a listener whose
// OAUTHBEARER server callback handler is OAuthBearerValidatorCallbackHandler.
func newJWTValidator(value func(key string) (string, bool), logger *slog.Logger) (*jwtValidator, error) {
	get := func(key string) string { v, _ := value(key); return strings.TrimSpace(v) }
	if class := get("sasl.oauthbearer.jwt.validator.class"); class != "" && !slices.Contains(jwtValidatorClasses, class) {
		return nil, fmt.Errorf("sasl.oauthbearer.jwt.validator.class %s is not served by Karst (served: %s)", class, strings.Join(jwtValidatorClasses, ", "))
	}
	v := &jwtValidator{subClaim: get("sasl.oauthbearer.sub.claim.name"), scopeClaim: get("sasl.oauthbearer.scope.claim.name")}
	if v.subClaim == "" {
		v.subClaim = "sub"
	}
	if v.scopeClaim == "" {
		v.scopeClaim = "scope"
	}
	skew := 30 * time.Second
	if s := get("sasl.oauthbearer.clock.skew.seconds"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 0 {
			return nil, fmt.Errorf("sasl.oauthbearer.clock.skew.seconds: %q is not a non-negative number of seconds", s)
		}
		skew = time.Duration(n) * time.Second
	}
	var audiences []string
	for _, a := range strings.Split(get("sasl.oauthbearer.expected.audience"), ",") {
		if a = strings.TrimSpace(a); a != "" {
			audiences = append(audiences, a)
		}
	}
	issuer := get("sasl.oauthbearer.expected.issuer")
	// As Kafka 4.4's BrokerJwtValidator: an unchecked aud or iss must be
	// asked for.
	if len(audiences) == 0 && get("sasl.oauthbearer.allow.unverified.audience") != "true" {
		return nil, fmt.Errorf("the OAuth validator for the broker requires sasl.oauthbearer.expected.audience to be configured so that the token's audience (\"aud\") claim can be verified, but it was not set; set it to the audience(s) that identify this cluster, or set sasl.oauthbearer.allow.unverified.audience to true to accept tokens regardless of their audience")
	}
	if issuer == "" && get("sasl.oauthbearer.allow.unverified.issuer") != "true" {
		return nil, fmt.Errorf("the OAuth validator for the broker requires sasl.oauthbearer.expected.issuer to be configured so that the token's issuer (\"iss\") claim can be verified, but it was not set; set it to the issuer URL of the OAuth/OIDC provider that signs the tokens, or set sasl.oauthbearer.allow.unverified.issuer to true to accept tokens regardless of their issuer")
	}
	v.options = []jwt.ParserOption{jwt.WithLeeway(skew), jwt.WithExpirationRequired(), jwt.WithIssuedAt(),
		jwt.WithValidMethods(signingAlgorithms)}
	if len(audiences) > 0 {
		v.options = append(v.options, jwt.WithAudience(audiences...))
	} else {
		logger.Warn("OAUTHBEARER accepts a JWT regardless of its aud (audience) claim: sasl.oauthbearer.expected.audience is not set and sasl.oauthbearer.allow.unverified.audience is true")
	}
	if issuer != "" {
		v.options = append(v.options, jwt.WithIssuer(issuer))
	} else {
		logger.Warn("OAUTHBEARER accepts a JWT bearing any (or no) iss (issuer) claim: sasl.oauthbearer.expected.issuer is not set and sasl.oauthbearer.allow.unverified.issuer is true")
	}
	endpoint := get("sasl.oauthbearer.jwks.endpoint.url")
	if endpoint == "" {
		return nil, fmt.Errorf("the OAuth configuration option sasl.oauthbearer.jwks.endpoint.url is required with %s", OAuthBearerValidatorCallbackHandler)
	}
	u, err := url.Parse(endpoint)
	if err != nil {
		return nil, fmt.Errorf("the OAuth configuration option sasl.oauthbearer.jwks.endpoint.url contains a URL (%s) that is malformed: %w", endpoint, err)
	}
	switch u.Scheme {
	case "file":
		keys, err := newFileJWKS(u.Path)
		if err != nil {
			return nil, err
		}
		v.keys, v.close = keys.keyfunc, func() {}
	case "http", "https":
		refresh := time.Hour
		if s := get("sasl.oauthbearer.jwks.endpoint.refresh.ms"); s != "" {
			ms, err := strconv.ParseInt(s, 10, 64)
			if err != nil || ms < 0 {
				return nil, fmt.Errorf("sasl.oauthbearer.jwks.endpoint.refresh.ms: %q is not a number of milliseconds", s)
			}
			if ms > 0 {
				refresh = time.Duration(ms) * time.Millisecond
			}
		}
		ctx, cancel := context.WithCancel(context.Background())
		failFirst := false
		keys, err := keyfunc.NewDefaultOverrideCtx(ctx, []string{endpoint}, keyfunc.Override{
			RefreshInterval:           refresh,
			HTTPTimeout:               10 * time.Second,
			NoErrorReturnFirstHTTPReq: &failFirst,
			RefreshErrorHandlerFunc: func(u string) func(context.Context, error) {
				return func(_ context.Context, err error) {
					logger.Warn("refreshing the OAUTHBEARER JWKS failed; the keys fetched before stay in use", "url", u, "err", err)
				}
			},
		})
		if err != nil {
			cancel()
			return nil, fmt.Errorf("sasl.oauthbearer.jwks.endpoint.url %s: %w", endpoint, err)
		}
		v.keys, v.close = keys.Keyfunc, cancel
	default:
		return nil, fmt.Errorf("the OAuth configuration option sasl.oauthbearer.jwks.endpoint.url contains a URL (%s) that contains an invalid protocol (%s); only \"http\", \"https\", and \"file\" protocol are supported", endpoint, u.Scheme)
	}
	return v, nil
}

// signingAlgorithms are the JWS algorithms a token may be signed with: what
// jose4j verifies with a JWKS key under Kafka's DISALLOW_NONE, none
// excepted.
var signingAlgorithms = []string{"RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA", "HS256", "HS384", "HS512"}

func (v *jwtValidator) validate(token string, now time.Time) (validToken, *tokenRefusal) {
	refuse := func(format string, args ...any) (validToken, *tokenRefusal) {
		return validToken{}, &tokenRefusal{status: "invalid_token", reason: fmt.Sprintf(format, args...)}
	}
	claims := jwt.MapClaims{}
	parser := jwt.NewParser(append(v.options, jwt.WithTimeFunc(func() time.Time { return now }))...)
	if _, err := parser.ParseWithClaims(token, claims, v.keys); err != nil {
		return refuse("could not validate the access token: %v", err)
	}
	if _, ok := claims["iat"]; !ok {
		return refuse("could not validate the access token: no iat (issued at) claim")
	}
	sub, _ := claims[v.subClaim].(string)
	if strings.TrimSpace(sub) == "" {
		return refuse("the %s claim is missing, not a string or empty", v.subClaim)
	}
	exp, err := claims.GetExpirationTime()
	if err != nil || exp == nil {
		return refuse("the exp claim is not a number")
	}
	if err := checkScope(claims[v.scopeClaim]); err != nil {
		return refuse("the %s claim: %v", v.scopeClaim, err)
	}
	return validToken{principal: strings.TrimSpace(sub), expires: exp.Time}, nil
}

// checkScope reads a scope claim as Kafka's BrokerJwtValidator: a string
// is one scope, a list is its strings; no scope value may be blank.
func checkScope(claim any) error {
	var scopes []string
	switch s := claim.(type) {
	case nil:
	case string:
		scopes = []string{s}
	case []any:
		for _, e := range s {
			str, ok := e.(string)
			if !ok {
				return errors.New("a scope value is not a string")
			}
			scopes = append(scopes, str)
		}
	}
	for _, s := range scopes {
		if strings.TrimSpace(s) == "" {
			return errors.New("a scope value is empty or blank")
		}
	}
	return nil
}

// fileJWKS is a JWKS read from a file and read again when the file's
// modification time changes, as Kafka's JwksFileVerificationKeyResolver
// (a CachedFile with the last-modified refresh policy).
type fileJWKS struct {
	path    string
	mu      sync.Mutex
	modTime time.Time
	keys    keyfunc.Keyfunc
}

func newFileJWKS(path string) (*fileJWKS, error) {
	f := &fileJWKS{path: path}
	if _, err := f.current(); err != nil {
		return nil, fmt.Errorf("sasl.oauthbearer.jwks.endpoint.url file://%s: %w", path, err)
	}
	return f, nil
}

func (f *fileJWKS) current() (keyfunc.Keyfunc, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	info, err := os.Stat(f.path)
	if err != nil {
		if f.keys != nil {
			return f.keys, nil
		}
		return nil, err
	}
	if info.IsDir() {
		return nil, fmt.Errorf("%s is a directory, not a file", f.path)
	}
	if f.keys != nil && info.ModTime().Equal(f.modTime) {
		return f.keys, nil
	}
	raw, err := os.ReadFile(f.path)
	if err != nil {
		return nil, err
	}
	keys, err := keyfunc.NewJWKSetJSON(raw)
	if err != nil {
		if f.keys != nil {
			// A file caught half-written keeps the keys read before.
			return f.keys, nil
		}
		return nil, err
	}
	f.keys, f.modTime = keys, info.ModTime()
	return keys, nil
}

func (f *fileJWKS) keyfunc(t *jwt.Token) (any, error) {
	keys, err := f.current()
	if err != nil {
		return nil, err
	}
	return keys.Keyfunc(t)
}
