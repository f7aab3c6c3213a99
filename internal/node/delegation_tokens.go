package node

import (
	"context"
	"crypto/pbkdf2"
	"crypto/rand"
	"encoding/base64"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/karst-broker/karst/internal/config"
	"github.com/karst-broker/karst/internal/metadata"
	"github.com/karst-broker/karst/internal/sasl"
)

// delegationTokenSettings reads the delegation.token.* keys; nil without
// settings (tests), which leaves delegation tokens disabled.
func delegationTokenSettings(b *config.Broker) *metadata.DelegationTokenSettings {
	if b == nil {
		return nil
	}
	return &metadata.DelegationTokenSettings{
		SecretKey:   b.String("delegation.token.secret.key"),
		MaxLifetime: time.Duration(b.Long("delegation.token.max.lifetime.ms")) * time.Millisecond,
		ExpiryTime:  time.Duration(b.Long("delegation.token.expiry.time.ms")) * time.Millisecond,
	}
}

// removeExpiredDelegationTokens removes the tokens that expired, every
// delegation.token.expiry.check.interval.ms, as Kafka's controller sweeps
// them (RemoveDelegationTokenRecords).
func removeExpiredDelegationTokens(ctx context.Context, store *metadata.Store, interval time.Duration, logger *slog.Logger) {
	every(ctx, interval, func() {
		n, err := store.RemoveExpiredDelegationTokens(time.Now())
		if err != nil {
			logger.Warn("removing expired delegation tokens failed", "err", err)
		} else if n > 0 {
			logger.Info("removed expired delegation tokens", "count", n)
		}
	})
}

// storeTokens looks delegation tokens up in the current metadata image,
// for SCRAM token authentication. A token's SCRAM credential is derived
// from its HMAC as Kafka's DelegationTokenManager derives it (a random
// salt, the mechanism's minimum 4096 iterations) once per token and
// mechanism, and kept while the token lives.
type storeTokens struct {
	store    *metadata.Store
	settings *metadata.DelegationTokenSettings
	mu       sync.Mutex
	derived  map[tokenCredentialKey]metadata.ScramCredential
}

type tokenCredentialKey struct {
	tokenID   string
	mechanism metadata.ScramMechanism
}

func newStoreTokens(store *metadata.Store, settings *metadata.DelegationTokenSettings) *storeTokens {
	return &storeTokens{store: store, settings: settings, derived: map[tokenCredentialKey]metadata.ScramCredential{}}
}

func (s *storeTokens) DelegationTokenCredential(m metadata.ScramMechanism, tokenID string) (sasl.TokenCredential, bool) {
	if s.settings == nil || !s.settings.Enabled() || m.Name() == "" {
		return sasl.TokenCredential{}, false
	}
	tok, ok := s.store.Image().DelegationToken(tokenID)
	if !ok {
		return sasl.TokenCredential{}, false
	}
	cred, err := s.credential(m, tokenID)
	if err != nil {
		return sasl.TokenCredential{}, false
	}
	owner := tok.Owner
	if _, name, found := strings.Cut(owner, ":"); found {
		owner = name
	}
	return sasl.TokenCredential{ScramCredential: cred, Owner: owner, Expires: time.UnixMilli(tok.ExpirationTimestamp)}, true
}

func (s *storeTokens) credential(m metadata.ScramMechanism, tokenID string) (metadata.ScramCredential, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	key := tokenCredentialKey{tokenID, m}
	if c, ok := s.derived[key]; ok {
		return c, nil
	}
	// Forget the credentials of tokens that are gone.
	img := s.store.Image()
	for k := range s.derived {
		if _, live := img.DelegationToken(k.tokenID); !live {
			delete(s.derived, k)
		}
	}
	password := base64.StdEncoding.EncodeToString(metadata.DelegationTokenHMAC(s.settings.SecretKey, tokenID))
	salt := make([]byte, 32)
	rand.Read(salt)
	salted, err := pbkdf2.Key(m.Hash(), password, salt, metadata.ScramMinIterations, m.Hash()().Size())
	if err != nil {
		return metadata.ScramCredential{}, err
	}
	c := metadata.ScramCredentialFromSaltedPassword(m, salt, salted, metadata.ScramMinIterations)
	s.derived[key] = c
	return c, nil
}
