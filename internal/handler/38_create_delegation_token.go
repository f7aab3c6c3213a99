package handler

// CreateDelegationToken (key 38), versions 0–3 (v2+ flexible; v3 names an
// owner other than the requester, KIP-373).
//
// Hands out a delegation token as Kafka's DelegationTokenControlManager:
// a new token id, its HMAC-SHA512 under delegation.token.secret.key as
// the password, a max lifetime capped by delegation.token.max.lifetime.ms
// and an expiry delegation.token.expiry.time.ms away, all kept in a
// DelegationTokenRecord in __cluster_metadata. Refused as Kafka refuses
// it: DELEGATION_TOKEN_REQUEST_NOT_ALLOWED on PLAINTEXT, one-way TLS or a
// token-authenticated connection; DELEGATION_TOKEN_AUTH_DISABLED without a
// secret key; INVALID_PRINCIPAL_TYPE for a renewer that is not a User.
// With an authorizer, a token for another owner needs CREATE_TOKENS on
// that owner (gateCreateDelegationToken, authorize_tokens.go); without
// one it is allowed, as Kafka allows it.

import (
	"context"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/karst-broker/karst/internal/metadata"
	"github.com/karst-broker/karst/internal/security/principal"
)

func init() { register(38, 0, 3, (*Broker).handleCreateDelegationToken) }

func (b *Broker) handleCreateDelegationToken(_ context.Context, r *Request) Outcome {
	req := r.Body.(*kmsg.CreateDelegationTokenRequest)
	requester := r.Conn.Principal()
	owner := requester
	if req.OwnerPrincipalName != nil && *req.OwnerPrincipalName != "" {
		owner = principal.KafkaPrincipal{Name: *req.OwnerPrincipalName}
		if req.OwnerPrincipalType != nil {
			owner.Type = *req.OwnerPrincipalType
		}
	}
	resp := kmsg.NewPtrCreateDelegationTokenResponse()
	resp.PrincipalType, resp.PrincipalName = owner.Type, owner.Name
	resp.TokenRequesterPrincipalType, resp.TokenRequesterPrincipalName = requester.Type, requester.Name
	if !tokenRequestsAllowed(r.Conn) {
		resp.ErrorCode = kerr.DelegationTokenRequestNotAllowed.Code
		resp.IssueTimestamp, resp.ExpiryTimestamp, resp.MaxTimestamp = -1, -1, -1
		return Ready(resp)
	}
	renewers := make([]string, 0, len(req.Renewers))
	for _, rn := range req.Renewers {
		renewers = append(renewers, principal.KafkaPrincipal{Type: rn.PrincipalType, Name: rn.PrincipalName}.String())
	}
	settings := b.delegationTokenSettings()
	tok, err := b.opts.Metadata.CreateDelegationToken(settings, metadata.CreateDelegationTokenRequest{
		Owner: owner.String(), Requester: requester.String(), Renewers: renewers,
		MaxLifetime: time.Duration(req.MaxLifetimeMillis) * time.Millisecond}, time.Now())
	if err != nil {
		resp.ErrorCode = metadata.ErrorCode(err)
		return Ready(resp)
	}
	resp.IssueTimestamp, resp.ExpiryTimestamp, resp.MaxTimestamp = tok.IssueTimestamp, tok.ExpirationTimestamp, tok.MaxTimestamp
	resp.TokenID, resp.HMAC = tok.TokenID, metadata.DelegationTokenHMAC(settings.SecretKey, tok.TokenID)
	b.logger.Info("created a delegation token", "token_id", tok.TokenID, "owner", tok.Owner, "requester", tok.Requester,
		"renewers", tok.Renewers, "expiry_timestamp", tok.ExpirationTimestamp, "max_timestamp", tok.MaxTimestamp)
	return Ready(resp)
}
