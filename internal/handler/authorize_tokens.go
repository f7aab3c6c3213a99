package handler

// The gates of the delegation token APIs, by Kafka's KafkaApis: creating a
// token for another owner needs CREATE_TOKENS on that owner (a USER
// resource named by the owner's principal); describing lists the tokens the
// caller owns, requested or may renew, and those it may DESCRIBE (a
// DELEGATION_TOKEN resource named by the token id). Renewing and expiring
// are left to their handlers: Kafka checks the token's owner and renewers
// there, not ACLs.

import (
	"slices"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/karst-broker/karst/internal/metadata"
	"github.com/karst-broker/karst/internal/security/principal"
)

// gateCreateDelegationToken refuses a token for another owner without
// CREATE_TOKENS on that owner, after the checks Kafka makes first (the
// connection may ask for tokens, every renewer is a User), which the
// handler answers.
func gateCreateDelegationToken(g *gatekeeper) verdict {
	req := g.r.Body.(*kmsg.CreateDelegationTokenRequest)
	if req.OwnerPrincipalName == nil || *req.OwnerPrincipalName == "" || !tokenRequestsAllowed(g.r.Conn) {
		return verdict{}
	}
	if slices.ContainsFunc(req.Renewers, func(r kmsg.CreateDelegationTokenRequestRenewer) bool { return r.PrincipalType != "User" }) {
		return verdict{}
	}
	owner := principal.KafkaPrincipal{Name: *req.OwnerPrincipalName}
	if req.OwnerPrincipalType != nil {
		owner.Type = *req.OwnerPrincipalType
	}
	requester := g.r.Conn.Principal()
	if owner.String() == requester.String() || g.may(metadata.OpCreateTokens, metadata.ResourceUser, owner.String()) {
		return verdict{}
	}
	resp := kmsg.NewPtrCreateDelegationTokenResponse()
	resp.ErrorCode = kerr.DelegationTokenAuthorizationFailed.Code
	resp.PrincipalType, resp.PrincipalName = owner.Type, owner.Name
	resp.TokenRequesterPrincipalType, resp.TokenRequesterPrincipalName = requester.Type, requester.Name
	resp.IssueTimestamp, resp.ExpiryTimestamp, resp.MaxTimestamp = -1, -1, -1
	return refuse(resp)
}

// gateDescribeDelegationToken keeps the tokens the caller owns, requested
// or may renew, or may DESCRIBE.
func gateDescribeDelegationToken(g *gatekeeper) verdict {
	caller := g.r.Conn.Principal().String()
	return verdict{complete: func(r kmsg.Response) {
		resp := r.(*kmsg.DescribeDelegationTokenResponse)
		resp.TokenDetails, _ = split(resp.TokenDetails, func(d kmsg.DescribeDelegationTokenResponseTokenDetail) bool {
			owner := principal.KafkaPrincipal{Type: d.PrincipalType, Name: d.PrincipalName}.String()
			requester := principal.KafkaPrincipal{Type: d.TokenRequesterPrincipalType, Name: d.TokenRequesterPrincipalName}.String()
			if caller == owner || caller == requester {
				return true
			}
			for _, rn := range d.Renewers {
				if caller == (principal.KafkaPrincipal{Type: rn.PrincipalType, Name: rn.PrincipalName}).String() {
					return true
				}
			}
			return g.may(metadata.OpDescribe, metadata.ResourceDelegationToken, d.TokenID)
		})
	}}
}
