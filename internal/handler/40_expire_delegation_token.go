package handler

// ExpireDelegationToken (key 40), versions 0–2 (v2 flexible).
//
// Brings a token's expiry forward to now plus the asked period (never
// past its max timestamp), or removes it at once for a negative period (a
// RemoveDelegationTokenRecord), as Kafka's DelegationTokenControlManager,
// with RenewDelegationToken's rules on who may and when.

import (
	"context"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/karst-broker/karst/internal/metadata"
)

func init() { register(40, 0, 2, (*Broker).handleExpireDelegationToken) }

func (b *Broker) handleExpireDelegationToken(_ context.Context, r *Request) Outcome {
	req := r.Body.(*kmsg.ExpireDelegationTokenRequest)
	resp := kmsg.NewPtrExpireDelegationTokenResponse()
	resp.ErrorCode, resp.ExpiryTimestamp = b.changeDelegationToken(r, "expired", func() (int64, error) {
		return b.opts.Metadata.ExpireDelegationToken(b.delegationTokenSettings(), req.HMAC, r.Conn.Principal().String(),
			time.Duration(req.ExpiryPeriodMillis)*time.Millisecond, time.Now())
	})
	return Ready(resp)
}

// changeDelegationToken runs a renewal or expiry after Kafka's broker-side
// check, and returns the response's error code and expiry timestamp (-1
// when the broker refused the request, as Kafka's ErrorTimestamp).
func (b *Broker) changeDelegationToken(r *Request, verb string, change func() (int64, error)) (int16, int64) {
	if !tokenRequestsAllowed(r.Conn) {
		return kerr.DelegationTokenRequestNotAllowed.Code, -1
	}
	expiry, err := change()
	if err != nil {
		return metadata.ErrorCode(err), 0
	}
	b.logger.Info(verb+" a delegation token", "principal", r.Conn.Principal().String(), "expiry_timestamp", expiry)
	return 0, expiry
}
