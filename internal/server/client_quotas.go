package server

import (
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/karst-broker/karst/internal/handler"
	"github.com/karst-broker/karst/internal/quota"
)

// Client quotas at the connection, as Kafka's KafkaApis and SocketServer
// apply them (KIP-219): after a request is handled its handler time is
// recorded against request_percentage, and a Produce request's size
// against producer_byte_rate; the handlers add their own (Fetch's
// consumer_byte_rate, the topic mutations' controller_mutation_rate) as
// the throttle_time_ms of their answers. The answer is sent at once with
// the largest of these as its throttle_time_ms, and the connection is then
// muted for that long: nothing more is read from it, so a client that
// ignores throttle_time_ms (or predates KIP-219) is held to its quota
// too, while other connections are not affected.

const (
	fetchKey            = 1
	createTopicsKey     = 19
	deleteTopicsKey     = 20
	createPartitionsKey = 37
)

// recordQuotas records a handled request against the producer byte rate
// (Produce: the whole request, as Kafka's request.sizeInBytes) and the
// request time quotas, keeping on p the larger throttle time.
func (c *conn) recordQuotas(p *pending, r *handler.Request, size int, handled time.Duration) {
	q := c.s.cfg.ClientQuotas
	if q == nil {
		return
	}
	p.client = quota.ClientOf(c.info.Principal().Name, r.Header.ClientID)
	p.throttle, p.quota = q.RecordRequestTime(p.client, handled), quota.Request
	if p.apiKey == produceKey {
		if t := q.RecordProduce(p.client, size); t > p.throttle {
			p.throttle, p.quota = t, quota.Produce
		}
	}
	// The mute starts now rather than once the answer is written, so that
	// a request pipelined behind this one waits too (Kafka reads one
	// request at a time per connection).
	c.muteFor(p.throttle)
}

// throttle sets the answer's throttle_time_ms to the largest throttle
// its quotas ask and mutes the connection for it. Called by the writer
// once the answer is final (resp may be nil: acks=0).
func (c *conn) throttle(p *pending, resp kmsg.Response) {
	q := c.s.cfg.ClientQuotas
	if q == nil {
		return
	}
	t, kind := p.throttle, p.quota
	if own := time.Duration(responseThrottle(resp)) * time.Millisecond; own > t {
		t = own
		switch p.apiKey {
		case fetchKey:
			kind = quota.Fetch
		case createTopicsKey, deleteTopicsKey, createPartitionsKey:
			kind = quota.ControllerMutation
		}
	}
	if t <= 0 {
		return
	}
	setResponseThrottle(resp, int32(t.Milliseconds()))
	q.Throttled(kind, p.client, t)
	c.muteFor(t)
}

type throttled interface {
	Throttle() (int32, bool)
	SetThrottle(int32)
}

// responseThrottle is the throttle_time_ms a handler put in resp.
func responseThrottle(resp kmsg.Response) int32 {
	if parts, ok := resp.(*handler.PartsResponse); ok {
		resp = parts.Response
	}
	if r, ok := resp.(throttled); ok {
		ms, _ := r.Throttle()
		return ms
	}
	return 0
}

func setResponseThrottle(resp kmsg.Response, ms int32) {
	if parts, ok := resp.(*handler.PartsResponse); ok {
		parts.SetThrottle(ms)
		return
	}
	if r, ok := resp.(throttled); ok {
		r.SetThrottle(ms)
	}
}

// muteFor keeps the connection from being read for d from now (or longer,
// if an earlier mute ends later).
func (c *conn) muteFor(d time.Duration) {
	if d <= 0 {
		return
	}
	until := time.Now().Add(d).UnixNano()
	for {
		cur := c.mutedUntil.Load()
		if cur >= until || c.mutedUntil.CompareAndSwap(cur, until) {
			return
		}
	}
}

// waitWhileMuted blocks the reader until the connection's mute ends or
// the server shuts down.
func (c *conn) waitWhileMuted() {
	for {
		d := time.Until(time.Unix(0, c.mutedUntil.Load()))
		if d <= 0 {
			return
		}
		c.s.stats.ThrottledWaits.Add(1)
		t := time.NewTimer(d)
		select {
		case <-t.C:
		case <-c.s.ctx.Done():
			t.Stop()
			return
		}
	}
}
