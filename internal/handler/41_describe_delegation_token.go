package handler

// DescribeDelegationToken (key 41), versions 0–3 (v2+ flexible; v3 names
// the requester).
//
// Lists tokens with their HMACs as Kafka's KafkaApis and
// DelegationTokenManager.filterToken: null owners means every token, an
// empty list none, else the tokens that any listed owner owns or may
// renew. With an authorizer, only the tokens the caller owns, requested,
// may renew or may DESCRIBE are kept (gateDescribeDelegationToken,
// authorize_tokens.go); without one every matching token is listed, as
// Kafka lists them. Refused on the same
// connections as CreateDelegationToken, and DELEGATION_TOKEN_AUTH_DISABLED
// without a secret key.

import (
	"context"
	"slices"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/karst-broker/karst/internal/metadata"
	"github.com/karst-broker/karst/internal/security/principal"
)

func init() { register(41, 0, 3, (*Broker).handleDescribeDelegationToken) }

func (b *Broker) handleDescribeDelegationToken(_ context.Context, r *Request) Outcome {
	req := r.Body.(*kmsg.DescribeDelegationTokenRequest)
	resp := kmsg.NewPtrDescribeDelegationTokenResponse()
	settings := b.delegationTokenSettings()
	switch {
	case !tokenRequestsAllowed(r.Conn):
		resp.ErrorCode = kerr.DelegationTokenRequestNotAllowed.Code
		return Ready(resp)
	case !settings.Enabled():
		resp.ErrorCode = kerr.DelegationTokenAuthDisabled.Code
		return Ready(resp)
	case req.Owners != nil && len(req.Owners) == 0:
		return Ready(resp)
	}
	var owners []string
	for _, o := range req.Owners {
		owners = append(owners, principal.KafkaPrincipal{Type: o.PrincipalType, Name: o.PrincipalName}.String())
	}
	for _, tok := range b.opts.Metadata.Image().DelegationTokens() {
		if owners != nil && !slices.ContainsFunc(owners, tok.OwnerOrRenewer) {
			continue
		}
		resp.TokenDetails = append(resp.TokenDetails, describedToken(settings, tok))
	}
	return Ready(resp)
}

func describedToken(settings metadata.DelegationTokenSettings, tok metadata.DelegationToken) kmsg.DescribeDelegationTokenResponseTokenDetail {
	d := kmsg.NewDescribeDelegationTokenResponseTokenDetail()
	owner, requester := principalOf(tok.Owner), principalOf(tok.Requester)
	d.PrincipalType, d.PrincipalName = owner.Type, owner.Name
	d.TokenRequesterPrincipalType, d.TokenRequesterPrincipalName = requester.Type, requester.Name
	d.IssueTimestamp, d.ExpiryTimestamp, d.MaxTimestamp = tok.IssueTimestamp, tok.ExpirationTimestamp, tok.MaxTimestamp
	d.TokenID, d.HMAC = tok.TokenID, metadata.DelegationTokenHMAC(settings.SecretKey, tok.TokenID)
	for _, rn := range tok.Renewers {
		p := principalOf(rn)
		renewer := kmsg.NewDescribeDelegationTokenResponseTokenDetailRenewer()
		renewer.PrincipalType, renewer.PrincipalName = p.Type, p.Name
		d.Renewers = append(d.Renewers, renewer)
	}
	return d
}
