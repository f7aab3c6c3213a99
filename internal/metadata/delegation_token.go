package metadata

import (
	"cmp"
	"crypto/hmac"
	"crypto/sha512"
	"maps"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
)

// metadataVersionDelegationTokens is 3.6-IV2, the first metadata.version
// that stores delegation tokens (MetadataVersion.isDelegationTokenSupported).
const metadataVersionDelegationTokens int16 = 14

// DelegationTokenSettings are a cluster's delegation token keys:
// delegation.token.secret.key (empty disables tokens),
// delegation.token.max.lifetime.ms and delegation.token.expiry.time.ms.
type DelegationTokenSettings struct {
	SecretKey   string
	MaxLifetime time.Duration
	ExpiryTime  time.Duration
}

// Enabled reports whether a secret key is set.
func (s DelegationTokenSettings) Enabled() bool { return s.SecretKey != "" }

// DelegationToken is a token as the cluster keeps it. Principals are in
// Kafka's "Type:Name" form.
type DelegationToken struct {
	TokenID   string
	Owner     string
	Requester string
	Renewers  []string
	// Timestamps in Unix milliseconds.
	IssueTimestamp      int64
	MaxTimestamp        int64
	ExpirationTimestamp int64
}

// Expired reports whether the token may no longer be used or renewed at
// now, as Kafka compares (a token is still good in its last millisecond).
func (t DelegationToken) Expired(now time.Time) bool {
	ms := now.UnixMilli()
	return t.MaxTimestamp < ms || t.ExpirationTimestamp < ms
}

// OwnerOrRenewer reports whether principal owns the token or is one of
// its renewers: who may renew, expire and always describe it (Kafka's
// allowedToRenew and ownerOrRenewer).
func (t DelegationToken) OwnerOrRenewer(principal string) bool {
	return t.Owner == principal || slices.Contains(t.Renewers, principal)
}

func (t DelegationToken) record() *DelegationTokenRecord {
	return &DelegationTokenRecord{Owner: t.Owner, Requester: t.Requester, Renewers: t.Renewers,
		IssueTimestamp: t.IssueTimestamp, MaxTimestamp: t.MaxTimestamp, ExpirationTimestamp: t.ExpirationTimestamp, TokenID: t.TokenID}
}

// DelegationTokenHMAC is a token's HMAC, its password: HMAC-SHA512 of the
// token id under the secret key, as Kafka's DelegationTokenManager.createHmac.
func DelegationTokenHMAC(secretKey, tokenID string) []byte {
	mac := hmac.New(sha512.New, []byte(secretKey))
	mac.Write([]byte(tokenID))
	return mac.Sum(nil)
}

// DelegationToken returns the token with id.
func (img *Image) DelegationToken(id string) (DelegationToken, bool) {
	t, ok := img.delegationTokens[id]
	return t, ok
}

// DelegationTokens returns every token, oldest first.
func (img *Image) DelegationTokens() []DelegationToken {
	out := slices.Collect(maps.Values(img.delegationTokens))
	slices.SortFunc(out, func(a, b DelegationToken) int {
		return cmp.Or(cmp.Compare(a.IssueTimestamp, b.IssueTimestamp), strings.Compare(a.TokenID, b.TokenID))
	})
	return out
}

// delegationTokenByHMAC finds the token whose HMAC under secretKey is mac.
func (img *Image) delegationTokenByHMAC(secretKey string, mac []byte) (DelegationToken, bool) {
	for _, t := range img.delegationTokens {
		if hmac.Equal(DelegationTokenHMAC(secretKey, t.TokenID), mac) {
			return t, true
		}
	}
	return DelegationToken{}, false
}

// CreateDelegationTokenRequest is what a CreateDelegationToken asks for,
// principals in "Type:Name" form; a MaxLifetime of 0 or less takes the
// cluster's.
type CreateDelegationTokenRequest struct {
	Owner       string
	Requester   string
	Renewers    []string
	MaxLifetime time.Duration
}

// CreateDelegationToken returns the record of a new token, decided as
// Kafka's DelegationTokenControlManager.createDelegationToken: its max
// lifetime is the request's, capped by the cluster's; it expires after
// delegation.token.expiry.time.ms unless its max timestamp comes first;
// only User renewers are allowed.
func (img *Image) CreateDelegationToken(s DelegationTokenSettings, req CreateDelegationTokenRequest, now time.Time) ([]Record, DelegationToken, *Error) {
	if err := img.delegationTokensServed(s); err != nil {
		return nil, DelegationToken{}, err
	}
	for _, r := range req.Renewers {
		if !strings.HasPrefix(r, "User:") {
			return nil, DelegationToken{}, opError(kerr.InvalidPrincipalType, "")
		}
	}
	maxLifetime := s.MaxLifetime
	if req.MaxLifetime > 0 {
		maxLifetime = min(maxLifetime, req.MaxLifetime)
	}
	ms := now.UnixMilli()
	t := DelegationToken{TokenID: RandomUUID().String(), Owner: req.Owner, Requester: req.Requester,
		Renewers: slices.Clone(req.Renewers), IssueTimestamp: ms, MaxTimestamp: saturatingAdd(ms, maxLifetime.Milliseconds())}
	if t.Renewers == nil {
		t.Renewers = []string{}
	}
	t.ExpirationTimestamp = min(t.MaxTimestamp, saturatingAdd(ms, s.ExpiryTime.Milliseconds()))
	return []Record{t.record()}, t, nil
}

// RenewDelegationToken returns the record that moves a token's expiry to
// now plus the renew period (the cluster's expiry time when the request
// gives none or a longer one), never past its max timestamp; only its
// owner and renewers may renew it, and not once it has expired.
func (img *Image) RenewDelegationToken(s DelegationTokenSettings, mac []byte, renewer string, period time.Duration, now time.Time) ([]Record, int64, *Error) {
	t, err := img.renewableToken(s, mac, renewer)
	if err != nil {
		return nil, 0, err
	}
	if t.Expired(now) {
		return nil, 0, opError(kerr.DelegationTokenExpired, "")
	}
	renew := s.ExpiryTime
	if period > 0 {
		renew = min(renew, period)
	}
	t.ExpirationTimestamp = min(t.MaxTimestamp, saturatingAdd(now.UnixMilli(), renew.Milliseconds()))
	return []Record{t.record()}, t.ExpirationTimestamp, nil
}

// ExpireDelegationToken returns the records that bring a token's expiry
// forward to now plus period (never past its max timestamp), or that
// remove it at once for a negative period, as Kafka's expireDelegationToken.
func (img *Image) ExpireDelegationToken(s DelegationTokenSettings, mac []byte, renewer string, period time.Duration, now time.Time) ([]Record, int64, *Error) {
	t, err := img.renewableToken(s, mac, renewer)
	if err != nil {
		return nil, 0, err
	}
	switch {
	case period < 0:
		return []Record{&RemoveDelegationTokenRecord{TokenID: t.TokenID}}, now.UnixMilli(), nil
	case t.Expired(now):
		return nil, 0, opError(kerr.DelegationTokenExpired, "")
	}
	t.ExpirationTimestamp = min(t.MaxTimestamp, saturatingAdd(now.UnixMilli(), period.Milliseconds()))
	return []Record{t.record()}, t.ExpirationTimestamp, nil
}

// ExpiredDelegationTokens returns the records that remove every token
// expired at now, as the controller's periodic sweep.
func (img *Image) ExpiredDelegationTokens(now time.Time) []Record {
	var out []Record
	for _, t := range img.DelegationTokens() {
		if t.Expired(now) {
			out = append(out, &RemoveDelegationTokenRecord{TokenID: t.TokenID})
		}
	}
	return out
}

func (img *Image) delegationTokensServed(s DelegationTokenSettings) *Error {
	if !s.Enabled() {
		return opError(kerr.DelegationTokenAuthDisabled, "")
	}
	if img.MetadataVersion() < metadataVersionDelegationTokens {
		return opError(kerr.UnsupportedVersion, "")
	}
	return nil
}

func (img *Image) renewableToken(s DelegationTokenSettings, mac []byte, renewer string) (DelegationToken, *Error) {
	if err := img.delegationTokensServed(s); err != nil {
		return DelegationToken{}, err
	}
	t, ok := img.delegationTokenByHMAC(s.SecretKey, mac)
	if !ok {
		return DelegationToken{}, opError(kerr.DelegationTokenNotFound, "")
	}
	if !t.OwnerOrRenewer(renewer) {
		return DelegationToken{}, opError(kerr.DelegationTokenOwnerMismatch, "")
	}
	return t, nil
}

func saturatingAdd(now, d int64) int64 {
	if now > math.MaxInt64-d {
		return math.MaxInt64
	}
	return now + d
}

func (b *builder) applyDelegationToken(r *DelegationTokenRecord) {
	b.img.delegationTokens[r.TokenID] = DelegationToken{TokenID: r.TokenID, Owner: r.Owner, Requester: r.Requester,
		Renewers: r.Renewers, IssueTimestamp: r.IssueTimestamp, MaxTimestamp: r.MaxTimestamp, ExpirationTimestamp: r.ExpirationTimestamp}
}

func (b *builder) applyRemoveDelegationToken(r *RemoveDelegationTokenRecord) {
	// As Kafka's DelegationTokenDelta, removing a token that is gone
	// already changes nothing.
	delete(b.img.delegationTokens, r.TokenID)
}

// delegationTokenRecords are the image's tokens as records, for a snapshot.
func (img *Image) delegationTokenRecords() []Record {
	var out []Record
	for _, t := range img.DelegationTokens() {
		out = append(out, t.record())
	}
	return out
}
