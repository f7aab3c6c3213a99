package handler

// RenewDelegationToken (key 39), versions 0–2 (v2 flexible).
//
// Moves a token's expiry to now plus the asked renew period, no longer
// than delegation.token.expiry.time.ms and never past the token's max
// timestamp, as Kafka's DelegationTokenControlManager: the token is found
// by its HMAC; only its owner and renewers may renew it
// (DELEGATION_TOKEN_OWNER_MISMATCH), not after it expired
// (DELEGATION_TOKEN_EXPIRED); the new expiry is a DelegationTokenRecord.

import (
	"context"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"
)

func init() { register(39, 0, 2, (*Broker).handleRenewDelegationToken) }

func (b *Broker) handleRenewDelegationToken(_ context.Context, r *Request) Outcome {
	req := r.Body.(*kmsg.RenewDelegationTokenRequest)
	resp := kmsg.NewPtrRenewDelegationTokenResponse()
	resp.ErrorCode, resp.ExpiryTimestamp = b.changeDelegationToken(r, "renewed", func() (int64, error) {
		return b.opts.Metadata.RenewDelegationToken(b.delegationTokenSettings(), req.HMAC, r.Conn.Principal().String(),
			time.Duration(req.RenewTimeMillis)*time.Millisecond, time.Now())
	})
	return Ready(resp)
}
