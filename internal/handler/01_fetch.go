package handler

// Fetch (key 1), versions 4–18 (Kafka 4 dropped v0–v3).
//
//	v4: isolation level, last stable offset, aborted transactions.
//	v5: log start offset.
//	v7: fetch sessions (KIP-227).
//	v9: current leader epoch (fencing).
//	v11: rack, preferred read replica.
//	v12: flexible; diverging epoch, current leader (tagged).
//	v13: topics named by id.
//	v15: replica state replaces replica id.
//	v16: node endpoints on leader change (tagged).
//	v17: replica directory id.
//	v18: high watermark from followers (tagged).
//
// A fetch that has fewer than MinBytes to return waits, parked on the
// partitions' append signals, until enough arrives or MaxWaitMs passes. A
// fetch whose MinBytes exceeds MaxBytes can never be satisfied and is
// answered at once with what there is.
//
// Not done yet: fetch sessions are declined (session id 0 in every
// answer, which KIP-227 allows, so clients fetch in full each time);
// read_committed reads up to the high watermark because there are no
// transactions yet; records are copied, not sent with sendfile.

import (
	"context"
	"reflect"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/karst-broker/karst/internal/metadata"
	"github.com/karst-broker/karst/internal/storage"
)

func init() { register(1, 4, 18, (*Broker).handleFetch) }

// fetchTarget is one requested partition, resolved once.
type fetchTarget struct {
	topic, partition int // indexes into the response
	part             *storage.Partition
	req              kmsg.FetchRequestTopicPartition
}

func (b *Broker) handleFetch(_ context.Context, r *Request) Outcome {
	req := r.Body.(*kmsg.FetchRequest)
	resp := kmsg.NewPtrFetchResponse()
	if req.SessionID != 0 {
		// Karst hands out no session ids, so none can be found.
		resp.ErrorCode = kerr.FetchSessionIDNotFound.Code
		return Ready(resp)
	}
	targets := b.resolveFetch(r.Version(), req, resp)
	maxWait := time.Duration(req.MaxWaitMillis) * time.Millisecond
	// Kafka answers at once when any partition has an error.
	canWait := req.MinBytes > 0 && req.MinBytes <= req.MaxBytes && maxWait > 0 && len(targets) == fetchPartitionCount(req)
	return Outcome{Later: func(ctx context.Context) kmsg.Response {
		deadline := time.Now().Add(maxWait)
		for {
			signals := appendSignals(targets)
			got, failed := b.readFetch(req, resp, targets)
			if !canWait || failed || got >= int(req.MinBytes) || !time.Now().Before(deadline) {
				return resp
			}
			if !waitAny(ctx, signals, time.Until(deadline)) {
				b.readFetch(req, resp, targets)
				return resp
			}
		}
	}}
}

// resolveFetch lays out the response and resolves every partition; errors
// known before reading (unknown topic or partition, fenced epoch) are set
// here.
func (b *Broker) resolveFetch(version int16, req *kmsg.FetchRequest, resp *kmsg.FetchResponse) []fetchTarget {
	img := b.image()
	var targets []fetchTarget
	for _, rt := range req.Topics {
		out := kmsg.NewFetchResponseTopic()
		out.Topic, out.TopicID = rt.Topic, rt.TopicID
		var topic *metadata.Topic
		var ok bool
		if version >= 13 {
			topic, ok = img.TopicByID(metadata.UUID(rt.TopicID))
		} else {
			topic, ok = img.Topic(rt.Topic)
		}
		for _, rp := range rt.Partitions {
			po := kmsg.NewFetchResponseTopicPartition()
			po.Partition = rp.Partition
			po.HighWatermark, po.LastStableOffset, po.LogStartOffset = -1, -1, -1
			po.PreferredReadReplica = -1
			switch {
			case !ok && version >= 13:
				po.ErrorCode = kerr.UnknownTopicID.Code
			case !ok:
				po.ErrorCode = kerr.UnknownTopicOrPartition.Code
			default:
				part, _, code := b.leaderPartition(topic, rp.Partition, rp.CurrentLeaderEpoch)
				if po.ErrorCode = code; code == 0 {
					targets = append(targets, fetchTarget{topic: len(resp.Topics), partition: len(out.Partitions), part: part, req: rp})
				}
			}
			out.Partitions = append(out.Partitions, po)
		}
		resp.Topics = append(resp.Topics, out)
	}
	return targets
}

// readFetch reads every target into resp, within the request's byte
// limits, and returns the bytes read and whether a partition failed. The
// first partition with data returns at least one whole batch (KIP-74).
func (b *Broker) readFetch(req *kmsg.FetchRequest, resp *kmsg.FetchResponse, targets []fetchTarget) (int, bool) {
	remaining := int(req.MaxBytes)
	total, failed := 0, false
	for _, t := range targets {
		po := &resp.Topics[t.topic].Partitions[t.partition]
		limit := min(int(t.req.PartitionMaxBytes), remaining)
		data, res, err := t.part.Log.ReadBytes(po.RecordBatches[:0], t.req.FetchOffset, max(limit, 0), total == 0)
		po.HighWatermark, po.LogStartOffset = res.HighWatermark, res.LogStartOffset
		po.LastStableOffset = res.HighWatermark
		if err != nil {
			po.ErrorCode = errorCode(err)
			po.RecordBatches = nil
			failed = true
			continue
		}
		po.ErrorCode = 0
		po.RecordBatches = data
		total += len(data)
		remaining -= len(data)
	}
	return total, failed
}

func fetchPartitionCount(req *kmsg.FetchRequest) int {
	n := 0
	for _, t := range req.Topics {
		n += len(t.Partitions)
	}
	return n
}

func appendSignals(targets []fetchTarget) []<-chan struct{} {
	signals := make([]<-chan struct{}, len(targets))
	for i, t := range targets {
		signals[i] = t.part.Log.AppendSignal()
	}
	return signals
}

// waitAny blocks until one of the signals fires (true), or the wait or ctx
// ends (false).
func waitAny(ctx context.Context, signals []<-chan struct{}, wait time.Duration) bool {
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
