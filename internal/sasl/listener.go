package sasl

import (
	"fmt"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/karst-broker/karst/internal/metadata"
)

// Settings is what Listener reads its keys from: the broker's value of a
// key with the listener's listener.name.<listener>.<key> override applied,
// as Kafka's valuesWithPrefixOverride gives a listener's channel builder.
type Settings interface {
	// ListenerValue returns listener.name.<listener>.<key> if set, else
	// the broker-wide key if set.
	ListenerValue(listener, key string) (string, bool)
}

// Listener is the SASL set-up of one listener: the mechanisms it enables,
// PLAIN's users and each mechanism's session lifetime.
type Listener struct {
	Name string
	// Mechanisms are the enabled mechanisms in the configured order,
	// the list SaslHandshake answers with.
	Mechanisms []string
	// MaxReauth is connections.max.reauth.ms by mechanism; 0 leaves
	// sessions unbounded and re-authentication off.
	MaxReauth map[string]time.Duration
	// FailedAuthenticationDelay is connection.failed.authentication.delay.ms.
	FailedAuthenticationDelay time.Duration
	// MaxReceiveSize is sasl.server.max.receive.size: the largest frame
	// read before the client has authenticated.
	MaxReceiveSize int32
	// Scram is where SCRAM credentials are looked up.
	Scram ScramCredentials
	// Tokens is where delegation tokens are looked up, for SCRAM with
	// tokenauth=true; nil refuses token authentication.
	Tokens DelegationTokens

	plainUsers map[string]string
	oauth      tokenValidator
	// closers stop what the listener's mechanisms run in the background
	// (a JWKS refresh).
	closers []func()
	gssapi  *gssapiAcceptor
}

// served are the mechanisms this package implements.
var served = []string{Plain, ScramSHA256, ScramSHA512, OAuthBearer, GSSAPI}

// NewListener reads a listener's SASL keys: sasl.enabled.mechanisms, each
// mechanism's <mechanism>.sasl.jaas.config (PLAIN's users) and
// connections.max.reauth.ms. A mechanism Karst does not serve, or PLAIN
// without a PlainLoginModule, is an error that should stop the broker.
func NewListener(name string, s Settings, scram ScramCredentials) (*Listener, error) {
	l := &Listener{Name: name, MaxReauth: map[string]time.Duration{}, Scram: scram}
	mechanisms, _ := s.ListenerValue(name, "sasl.enabled.mechanisms")
	for _, m := range strings.Split(mechanisms, ",") {
		if m = strings.TrimSpace(m); m != "" && !slices.Contains(l.Mechanisms, m) {
			l.Mechanisms = append(l.Mechanisms, m)
		}
	}
	if len(l.Mechanisms) == 0 {
		return nil, fmt.Errorf("listener %s: sasl.enabled.mechanisms is empty", name)
	}
	for _, m := range l.Mechanisms {
		if !slices.Contains(served, m) {
			return nil, fmt.Errorf("listener %s: SASL mechanism %s is not served by Karst (served: %s)", name, m, strings.Join(served, ", "))
		}
		prefix := strings.ToLower(m) + "."
		jaas, hasJAAS := s.ListenerValue(name, prefix+"sasl.jaas.config")
		if m == Plain {
			if !hasJAAS {
				return nil, missingJAAS(name, m, s, "a "+PlainLoginModule+" and its user_<name> options")
			}
			module, err := ParseServerJAAS(jaas)
			if err != nil {
				return nil, fmt.Errorf("listener %s: %splain.sasl.jaas.config: %w", name, "listener.name."+strings.ToLower(name)+".", err)
			}
			if module.Class != PlainLoginModule {
				return nil, fmt.Errorf("listener %s: PLAIN's JAAS login module is %s, want %s", name, module.Class, PlainLoginModule)
			}
			l.plainUsers = PlainUsers(module)
		} else if hasJAAS {
			module, err := ParseServerJAAS(jaas)
			if err != nil {
				return nil, fmt.Errorf("listener %s: %ssasl.jaas.config: %w", name, prefix, err)
			}
			if m == OAuthBearer {
				if l.oauth, err = newUnsecuredValidator(module.Options); err != nil {
					return nil, fmt.Errorf("listener %s: %ssasl.jaas.config: %w", name, prefix, err)
				}
			}
		} else if m == OAuthBearer {
			l.oauth, _ = newUnsecuredValidator(nil)
		}
		if m == GSSAPI {
			var err error
			if l.gssapi, err = newGSSAPIAcceptor(name, s); err != nil {
				return nil, err
			}
		}
		if m == OAuthBearer {
			if err := l.configureOAuthBearerValidator(s, prefix); err != nil {
				return nil, err
			}
		}
		reauth, ok := s.ListenerValue(name, prefix+"connections.max.reauth.ms")
		if !ok {
			reauth, _ = s.ListenerValue(name, "connections.max.reauth.ms")
		}
		if ms, err := parseMillis(reauth); err != nil {
			return nil, fmt.Errorf("listener %s: connections.max.reauth.ms: %w", name, err)
		} else if ms > 0 {
			l.MaxReauth[m] = ms
		}
	}
	delay, _ := s.ListenerValue(name, "connection.failed.authentication.delay.ms")
	d, err := parseMillis(delay)
	if err != nil {
		return nil, fmt.Errorf("connection.failed.authentication.delay.ms: %w", err)
	}
	l.FailedAuthenticationDelay = d
	if v, ok := s.ListenerValue(name, "sasl.server.max.receive.size"); ok {
		size, err := strconv.ParseInt(strings.TrimSpace(v), 10, 32)
		if err != nil {
			return nil, fmt.Errorf("sasl.server.max.receive.size: %q is not a size", v)
		}
		l.MaxReceiveSize = int32(size)
	}
	return l, nil
}

func parseMillis(v string) (time.Duration, error) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, nil
	}
	var ms int64
	if _, err := fmt.Sscan(v, &ms); err != nil {
		return 0, fmt.Errorf("%q is not a number of milliseconds", v)
	}
	return time.Duration(ms) * time.Millisecond, nil
}

// configureOAuthBearerValidator replaces the unsecured validator with
// Kafka's JWT validation when the listener's OAUTHBEARER server callback
// handler is OAuthBearerValidatorCallbackHandler. Its keys are read as
// Kafka's ConfigurationUtils reads them: oauthbearer.<key> (so
// listener.name.<listener>.oauthbearer.<key>) before <key>.
func (l *Listener) configureOAuthBearerValidator(s Settings, prefix string) error {
	handler, _ := s.ListenerValue(l.Name, prefix+"sasl.server.callback.handler.class")
	switch handler = strings.TrimSpace(handler); handler {
	case "":
		return nil
	case OAuthBearerValidatorCallbackHandler:
	default:
		return fmt.Errorf("listener %s: OAUTHBEARER server callback handler %s is not served by Karst (served: %s, or none for unsecured tokens)",
			l.Name, handler, OAuthBearerValidatorCallbackHandler)
	}
	v, err := newJWTValidator(func(key string) (string, bool) {
		if v, ok := s.ListenerValue(l.Name, prefix+key); ok {
			return v, true
		}
		return s.ListenerValue(l.Name, key)
	}, slog.Default().With("listener", l.Name, "mechanism", OAuthBearer))
	if err != nil {
		return fmt.Errorf("listener %s: OAUTHBEARER: %w", l.Name, err)
	}
	l.oauth = v
	l.closers = append(l.closers, v.close)
	return nil
}

// Close stops the listener's background work.
func (l *Listener) Close() {
	for _, c := range l.closers {
		c()
	}
	l.closers = nil
}

// Enabled reports whether the listener enables mechanism.
func (l *Listener) Enabled(mechanism string) bool { return slices.Contains(l.Mechanisms, mechanism) }

// Start begins an exchange with an enabled mechanism.
func (l *Listener) Start(mechanism string) (Exchange, error) {
	switch {
	case !l.Enabled(mechanism):
		return nil, fmt.Errorf("unsupported SASL mechanism %s", mechanism)
	case mechanism == Plain:
		return &plainExchange{users: l.plainUsers}, nil
	case mechanism == OAuthBearer:
		return &oauthBearerExchange{validator: l.oauth, now: time.Now}, nil
	case mechanism == GSSAPI:
		return l.gssapi.start(), nil
	default:
		return newScramExchange(metadata.ScramMechanismNamed(mechanism), l.Scram, l.Tokens)
	}
}
