package handler

// ShareFetch (key 78), versions 1-2 (KIP-932; v2 adds ShareAcquireMode,
// KIP-1206, and IsRenewAck, KIP-1222). Version 0 was Kafka 4.0's early
// access and is not served, as Kafka 4.1+ does not.
//
// A share session (group, member) is opened by epoch 0, which may not
// carry acknowledgements (INVALID_REQUEST); each later request carries the
// epoch after the one before (else INVALID_SHARE_SESSION_EPOCH; no
// session is SHARE_SESSION_NOT_FOUND) and adds its partitions to the
// session and removes its forgotten ones; -1 closes it, after its
// acknowledgements, releasing what the member still holds, and may not
// fetch. The close of the connection that opened a session closes it
// too, as Kafka 4.1+ does. A full cache is SHARE_SESSION_LIMIT_REACHED. Piggybacked
// acknowledgements are applied, and durable, before the fetch; then every
// partition of the session is read and its available records acquired
// once MinBytes lie past the fetch offsets, waiting up to MaxWaitMillis
// for appends and releases, and acquiring what there is when it ends.
// Member ids are taken as the client gives them: there is no share group
// coordinator yet to hand them out.

import (
	"context"
	"reflect"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	klog "github.com/karst-broker/karst/internal/log"
	"github.com/karst-broker/karst/internal/metadata"
	"github.com/karst-broker/karst/internal/share"
)

func init() { register(78, 1, 2, (*Broker).handleShareFetch) }

// shareAcquireRecordLimit is ShareFetch v2's ShareAcquireMode record-limit.
const shareAcquireRecordLimit = 1

func (b *Broker) handleShareFetch(_ context.Context, r *Request) Outcome {
	req := r.Body.(*kmsg.ShareFetchRequest)
	resp := kmsg.NewPtrShareFetchResponse()
	group, member, code := b.shareMember(req.GroupID, req.MemberID)
	if code != 0 {
		resp.ErrorCode = code
		return Ready(resp)
	}
	settings := b.shareSettings(group)
	resp.AcquisitionLockTimeoutMillis = int32(settings.RecordLockDuration / time.Millisecond)
	key := share.SessionKey{Group: group, Member: member}
	var fetch, forget []share.TopicPartition
	var acks []shareAck
	for _, t := range req.Topics {
		for _, p := range t.Partitions {
			tp := share.TopicPartition{TopicID: t.TopicID, Partition: p.Partition}
			fetch = append(fetch, tp)
			if len(p.AcknowledgementBatches) > 0 {
				a := shareAck{tp: tp}
				for _, ab := range p.AcknowledgementBatches {
					a.acks = append(a.acks, toAck(ab.FirstOffset, ab.LastOffset, ab.AcknowledgeTypes))
				}
				acks = append(acks, a)
			}
		}
	}
	for _, t := range req.ForgottenTopicsData {
		for _, p := range t.Partitions {
			forget = append(forget, share.TopicPartition{TopicID: t.TopicID, Partition: p})
		}
	}
	sessions := b.opts.Shares.Sessions
	var partitions []share.TopicPartition
	switch req.ShareSessionEpoch {
	case share.InitialEpoch:
		if len(acks) > 0 {
			resp.ErrorCode = kerr.InvalidRequest.Code
			resp.ErrorMessage = kmsg.StringPtr("a share session's first ShareFetch (epoch 0) may not acknowledge")
			return Ready(resp)
		}
		replaced, err := sessions.Open(key, r.Conn, fetch)
		if err != nil {
			resp.ErrorCode = shareErrorCode(err)
			return Ready(resp)
		}
		b.releaseShare(group, member, replaced)
		if r.Conn != nil {
			conn := r.Conn
			conn.whenClosed(key, func() {
				if closed, ok := sessions.CloseOwned(key, conn); ok {
					b.releaseShare(group, member, closed)
				}
			})
		}
		partitions = sessions.Partitions(key)
	case share.FinalEpoch:
		for _, t := range req.Topics {
			for _, p := range t.Partitions {
				if len(p.AcknowledgementBatches) == 0 {
					resp.ErrorCode = kerr.InvalidRequest.Code
					resp.ErrorMessage = kmsg.StringPtr("the ShareFetch closing a share session (epoch -1) may not fetch")
					return Ready(resp)
				}
			}
		}
	default:
		var err error
		partitions, err = sessions.Next(key, req.ShareSessionEpoch, fetch, forget)
		if err != nil {
			resp.ErrorCode = shareErrorCode(err)
			return Ready(resp)
		}
	}
	img := b.image()
	out := newShareFetchAnswer(resp, img)
	renew := req.Version >= 2 && req.IsRenewAck
	for _, a := range acks {
		p := out.partition(a.tp)
		code, msg := b.acknowledge(img, group, member, a, renew)
		p.AcknowledgeErrorCode, p.AcknowledgeErrorMessage = code, optionalString(msg)
	}
	if req.ShareSessionEpoch == share.FinalEpoch {
		resp.ErrorCode = b.closeShareSession(r.Conn, key)
		return Ready(resp)
	}
	if renew {
		// A renewal only extends locks: KIP-1222's ShareFetch with
		// IsRenewAck acquires nothing.
		return Ready(resp)
	}
	targets := make([]*shareTarget, 0, len(partitions))
	for _, tp := range partitions {
		t := b.resolveShare(img, group, tp)
		if t.code != 0 {
			p := out.partition(tp)
			p.ErrorCode, p.ErrorMessage = t.code, optionalString(t.err)
			continue
		}
		targets = append(targets, t)
		if req.ShareSessionEpoch == share.InitialEpoch {
			out.partition(tp) // a new session's answer names all its partitions
		}
	}
	maxRecords, batchSize := int(req.MaxRecords), int(req.BatchSize)
	strict := req.Version >= 2 && req.ShareAcquireMode == shareAcquireRecordLimit
	maxBytes := int(req.MaxBytes)
	if maxBytes <= 0 {
		maxBytes = 1 << 20
	}
	acquire := func() bool {
		got := false
		budget, records := maxBytes, maxRecords
		for _, t := range targets {
			if budget <= 0 || maxRecords > 0 && records <= 0 {
				break
			}
			data, acquired, err := shareAcquire(t, member, settings, budget, records, batchSize, strict)
			if err != nil {
				p := out.partition(t.tp)
				p.ErrorCode, p.ErrorMessage = shareErrorCode(err), optionalString(err.Error())
				continue
			}
			if len(acquired) == 0 {
				continue
			}
			got = true
			p := out.partition(t.tp)
			p.Records = data
			for _, a := range acquired {
				ar := kmsg.NewShareFetchResponseTopicPartitionAcquiredRecord()
				ar.FirstOffset, ar.LastOffset, ar.DeliveryCount = a.FirstOffset, a.LastOffset, a.DeliveryCount
				p.AcquiredRecords = append(p.AcquiredRecords, ar)
				records -= int(a.LastOffset - a.FirstOffset + 1)
			}
			budget -= len(data)
		}
		return got
	}
	// Like Kafka's DelayedShareFetch, the request waits until MinBytes of
	// the log lie past the partitions' fetch offsets, acquiring nothing
	// meanwhile so that other members may take those records; when
	// MaxWait ends it acquires what there is.
	minBytes := int(req.MinBytes)
	ready := func() bool { return minBytes <= 1 || shareReadable(targets, settings, minBytes) >= minBytes }
	signals := shareSignals(targets)
	switch {
	case len(targets) == 0:
		return Ready(out.done())
	case req.MaxWaitMillis <= 0:
		acquire()
		return Ready(out.done())
	case ready() && acquire():
		return Ready(out.done())
	}
	wait := time.Duration(req.MaxWaitMillis) * time.Millisecond
	return Outcome{Later: func(ctx context.Context) kmsg.Response {
		deadline := time.Now().Add(wait)
		for {
			left := time.Until(deadline)
			if left <= 0 || !waitSignals(ctx, signals, left) {
				if ctx.Err() == nil {
					acquire() // what is there, short of MinBytes
				}
				return out.done()
			}
			signals = shareSignals(targets)
			if ready() && acquire() {
				return out.done()
			}
		}
	}}
}

// shareReadable is how many bytes of the targets' logs, up to limit, lie
// from each share-partition's fetch offset to its end (the last stable
// offset for read_committed), the measure Kafka's DelayedShareFetch holds
// against MinBytes: records acquired by others or control batches in
// that span count too.
func shareReadable(targets []*shareTarget, s shareGroupSettings, limit int) int {
	iso := klog.ReadUncommitted
	if s.readCommitted {
		iso = klog.ReadCommitted
	}
	n := 0
	for _, t := range targets {
		from, ok := t.sp.FetchOffset()
		if !ok {
			continue
		}
		res, err := t.part.Log.ReadIsolated(from, limit-n, true, iso)
		if err != nil {
			continue // the acquire that follows answers the partition's error
		}
		if n += int(res.Length); n >= limit {
			break
		}
	}
	return n
}

// shareMember is the group and member a share request names, or the
// request's error: no share-partitions here, a group id missing, or a
// member id KafkaApis refuses (validShareMemberID). As in Kafka, the
// member need not be in the group: share sessions are keyed by (group,
// member) alone.
func (b *Broker) shareMember(groupID, memberID *string) (group, member string, code int16) {
	if b.opts.Shares == nil {
		return "", "", kerr.UnsupportedVersion.Code
	}
	group, member = deref(groupID), deref(memberID)
	if group == "" || !validShareMemberID(member) {
		return "", "", kerr.InvalidRequest.Code
	}
	return group, member, 0
}

// closeShareSession ends key's session once the request's
// acknowledgements are applied, releasing what the member still holds in
// its partitions; the code is SHARE_SESSION_NOT_FOUND without a session.
// conn, the request's connection, has nothing left to do for it on close.
func (b *Broker) closeShareSession(conn *Conn, key share.SessionKey) int16 {
	if conn != nil {
		conn.notWhenClosed(key)
	}
	closed, err := b.opts.Shares.Sessions.Close(key)
	if err != nil {
		return shareErrorCode(err)
	}
	b.releaseShare(key.Group, key.Member, closed)
	return 0
}

// releaseShare gives back what member holds in partitions, whose session
// was closed or replaced.
func (b *Broker) releaseShare(group, member string, partitions []share.TopicPartition) {
	if len(partitions) == 0 {
		return
	}
	img := b.image()
	for _, tp := range partitions {
		t := b.resolveShare(img, group, tp)
		if t.sp == nil {
			continue
		}
		if err := t.sp.ReleaseMember(member); err != nil {
			b.logger.Warn("releasing a closed share session's records", "group", group, "topic", t.topic.Name, "partition", tp.Partition, "err", err)
		}
	}
}

// shareSignals are the channels that say a target may have something to
// acquire: an append to its log, or a release. They are taken before the
// targets are read, so that no wake between the read and the wait is
// missed.
func shareSignals(targets []*shareTarget) []<-chan struct{} {
	out := make([]<-chan struct{}, 0, 2*len(targets))
	for _, t := range targets {
		out = append(out, t.part.Log.AppendSignal(), t.sp.Available())
	}
	return out
}

// waitSignals waits for one of signals, up to wait or ctx's end.
func waitSignals(ctx context.Context, signals []<-chan struct{}, wait time.Duration) bool {
	timer := time.NewTimer(wait)
	defer timer.Stop()
	cases := make([]reflect.SelectCase, 0, len(signals)+2)
	cases = append(cases,
		reflect.SelectCase{Dir: reflect.SelectRecv, Chan: reflect.ValueOf(ctx.Done())},
		reflect.SelectCase{Dir: reflect.SelectRecv, Chan: reflect.ValueOf(timer.C)})
	for _, s := range signals {
		cases = append(cases, reflect.SelectCase{Dir: reflect.SelectRecv, Chan: reflect.ValueOf(s)})
	}
	chosen, _, _ := reflect.Select(cases)
	return chosen >= 2
}

// shareFetchAnswer builds a ShareFetch response, one entry per partition.
type shareFetchAnswer struct {
	resp  *kmsg.ShareFetchResponse
	index map[share.TopicPartition][2]int
	// img names the current leaders (shareCurrentLeader).
	img *metadata.Image
}

func newShareFetchAnswer(resp *kmsg.ShareFetchResponse, img *metadata.Image) *shareFetchAnswer {
	return &shareFetchAnswer{resp: resp, index: map[share.TopicPartition][2]int{}, img: img}
}

func (a *shareFetchAnswer) partition(tp share.TopicPartition) *kmsg.ShareFetchResponseTopicPartition {
	if at, ok := a.index[tp]; ok {
		return &a.resp.Topics[at[0]].Partitions[at[1]]
	}
	ti := -1
	for i := range a.resp.Topics {
		if a.resp.Topics[i].TopicID == tp.TopicID {
			ti = i
			break
		}
	}
	if ti < 0 {
		t := kmsg.NewShareFetchResponseTopic()
		t.TopicID = tp.TopicID
		a.resp.Topics = append(a.resp.Topics, t)
		ti = len(a.resp.Topics) - 1
	}
	p := kmsg.NewShareFetchResponseTopicPartition()
	p.Partition = tp.Partition
	// Records is not nullable in Kafka's schema: the Java client fails the
	// whole response ("non-nullable field records was serialized as null")
	// on a partition answered with null, as one without data would be.
	p.Records = []byte{}
	a.resp.Topics[ti].Partitions = append(a.resp.Topics[ti].Partitions, p)
	a.index[tp] = [2]int{ti, len(a.resp.Topics[ti].Partitions) - 1}
	return &a.resp.Topics[ti].Partitions[len(a.resp.Topics[ti].Partitions)-1]
}

func (a *shareFetchAnswer) done() kmsg.Response {
	for i := range a.resp.Topics {
		t := &a.resp.Topics[i]
		for j := range t.Partitions {
			p := &t.Partitions[j]
			p.CurrentLeader.LeaderID, p.CurrentLeader.LeaderEpoch = shareCurrentLeader(a.img, t.TopicID, p.Partition, p.ErrorCode)
		}
	}
	return a.resp
}

// toAck converts a request's acknowledgement batch.
func toAck(first, last int64, types []int8) share.Ack {
	a := share.Ack{FirstOffset: first, LastOffset: last, Types: make([]share.AcknowledgeType, len(types))}
	for i, t := range types {
		a.Types[i] = share.AcknowledgeType(t)
	}
	return a
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func optionalString(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
