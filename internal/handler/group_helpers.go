package handler

import (
	"context"
	"errors"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"

	"github.com/karst-broker/karst/internal/group"
)

// groupWaitLimit bounds how long a coordinator write may wait for fsync
// before the answer says REQUEST_TIMED_OUT (offsets.commit.timeout.ms).
const groupWaitLimit = 5 * time.Second

// groups returns the group coordinator; nil when this broker runs
// without one (then group APIs answer COORDINATOR_NOT_AVAILABLE).
func (b *Broker) groups() *group.Coordinator { return b.opts.Groups }

// code turns a coordinator error into a wire error code.
func code(err *kerr.Error) int16 {
	if err == nil {
		return 0
	}
	return err.Code
}

// clientHost is the client's address as Kafka reports it: "/ip".
func clientHost(c *Conn) string {
	if host := remoteHost(c); host != "" {
		return "/" + host
	}
	return ""
}

// clientID is the request header's client id.
func clientID(r *Request) string {
	if r.Header.ClientID == nil {
		return ""
	}
	return *r.Header.ClientID
}

// waitDurable waits for a coordinator write; the error code to answer
// with when it is not durable in time.
func waitDurable(ctx context.Context, wait group.Durable) int16 {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), groupWaitLimit)
	defer cancel()
	if err := wait(ctx); err != nil {
		if ctx.Err() != nil {
			return kerr.RequestTimedOut.Code
		}
		// A producer's batch the log fenced after it waited behind
		// another: answered as when it is refused at once.
		for _, fenced := range []*kerr.Error{kerr.InvalidProducerEpoch, kerr.InvalidTxnState} {
			if errors.Is(err, fenced) {
				return fenced.Code
			}
		}
		return kerr.CoordinatorNotAvailable.Code
	}
	return 0
}
