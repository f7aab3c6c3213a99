package handler

// The share coordinator's APIs over __share_group_state (KIP-932), which
// Kafka's brokers send one another (the "broker" listener; CLUSTER_ACTION
// on the cluster): InitializeShareGroupState (83) v0, ReadShareGroupState
// (84) v0, WriteShareGroupState (85) v0-1, DeleteShareGroupState (86) v0
// and ReadShareGroupStateSummary (87) v0-1. Each answers per partition: a
// missing group id, a zero topic id or a negative partition is
// INVALID_REQUEST; reading a share-partition with no state is
// UNKNOWN_TOPIC_OR_PARTITION; a stale state epoch FENCED_STATE_EPOCH, a
// stale leader epoch FENCED_LEADER_EPOCH. A write is answered once durable.

import (
	"context"
	"reflect"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/karst-broker/karst/internal/metadata"
	"github.com/karst-broker/karst/internal/share"
)

func init() {
	register(83, 0, 0, (*Broker).handleShareState)
	register(84, 0, 0, (*Broker).handleShareState)
	register(85, 0, 1, (*Broker).handleShareState)
	register(86, 0, 0, (*Broker).handleShareState)
	register(87, 0, 1, (*Broker).handleShareState)
	for key := int16(83); key <= 87; key++ {
		gates[key] = clusterGate(metadata.OpClusterAction, func(req kmsg.Request, code int16) kmsg.Response {
			return shareStateAnswer(req, func(reflect.Value, reflect.Value, reflect.Value) int16 { return code })
		})
	}
}

// shareStateAnswer mirrors a share-state request's topics and partitions
// into its response, all five having the same shape, and sets each
// partition's error code to what answer returns for the request's
// topic, partition and the response's partition entry (which answer may
// fill further).
func shareStateAnswer(req kmsg.Request, answer func(topic, partition, out reflect.Value) int16) kmsg.Response {
	resp := req.ResponseKind()
	rv := reflect.ValueOf(req).Elem()
	outTopics := reflect.ValueOf(resp).Elem().FieldByName("Topics")
	topics := rv.FieldByName("Topics")
	for i := range topics.Len() {
		t := topics.Index(i)
		ot := reflect.New(outTopics.Type().Elem()).Elem()
		ot.FieldByName("TopicID").Set(t.FieldByName("TopicID"))
		parts := t.FieldByName("Partitions")
		outParts := ot.FieldByName("Partitions")
		for j := range parts.Len() {
			p := parts.Index(j)
			op := reflect.New(outParts.Type().Elem()).Elem()
			// The schema's defaults (ReadShareGroupStateSummary's DeliveryCompleteCount -1)
			// hold in every answer Kafka gives, a refused one included.
			if d, ok := op.Addr().Interface().(interface{ Default() }); ok {
				d.Default()
			}
			op.FieldByName("Partition").Set(p.FieldByName("Partition"))
			code := answer(t, p, op)
			op.FieldByName("ErrorCode").SetInt(int64(code))
			outParts = reflect.Append(outParts, op)
		}
		ot.FieldByName("Partitions").Set(outParts)
		outTopics = reflect.Append(outTopics, ot)
	}
	reflect.ValueOf(resp).Elem().FieldByName("Topics").Set(outTopics)
	return resp
}

func (b *Broker) handleShareState(_ context.Context, r *Request) Outcome {
	req := r.Body
	group := reflect.ValueOf(req).Elem().FieldByName("GroupID").String()
	c := b.opts.ShareState
	return Ready(shareStateAnswer(req, func(t, p, out reflect.Value) int16 {
		if c == nil {
			return kerr.CoordinatorNotAvailable.Code
		}
		k := share.Key{Group: group, Partition: int32(p.FieldByName("Partition").Int())}
		reflect.Copy(reflect.ValueOf(k.TopicID[:]), t.FieldByName("TopicID"))
		if group == "" || k.TopicID == ([16]byte{}) || k.Partition < 0 {
			return kerr.InvalidRequest.Code
		}
		var err error
		switch req := req.(type) {
		case *kmsg.InitializeShareGroupStateRequest:
			pr := p.Interface().(kmsg.InitializeShareGroupStateRequestTopicPartition)
			err = c.Initialize(k, pr.StateEpoch, pr.StartOffset)
		case *kmsg.ReadShareGroupStateRequest, *kmsg.ReadShareGroupStateSummaryRequest:
			st, ok, lerr := c.Lookup(k)
			leaderEpoch := int32(p.FieldByName("LeaderEpoch").Int())
			switch {
			case lerr != nil:
				err = lerr
			case !ok:
				return kerr.UnknownTopicOrPartition.Code
			case leaderEpoch >= 0 && leaderEpoch < st.LeaderEpoch:
				return kerr.FencedLeaderEpoch.Code
			}
			if err == nil {
				fillShareRead(req, out, st)
			}
		case *kmsg.WriteShareGroupStateRequest:
			pr := p.Interface().(kmsg.WriteShareGroupStateRequestTopicPartition)
			u := share.Update{LeaderEpoch: pr.LeaderEpoch, StartOffset: pr.StartOffset}
			for _, sb := range pr.StateBatches {
				u.Batches = append(u.Batches, share.StateBatch{FirstOffset: sb.FirstOffset, LastOffset: sb.LastOffset,
					DeliveryState: share.RecordState(sb.DeliveryState), DeliveryCount: sb.DeliveryCount})
			}
			err = c.WriteStateEpoch(k, pr.StateEpoch, u)
		case *kmsg.DeleteShareGroupStateRequest:
			err = c.Delete(k)
		}
		if err != nil {
			if msg := err.Error(); out.FieldByName("ErrorMessage").IsValid() {
				out.FieldByName("ErrorMessage").Set(reflect.ValueOf(&msg))
			}
			return shareErrorCode(err)
		}
		return 0
	}))
}

// fillShareRead answers a read with st: the batches for
// ReadShareGroupState, the summary for ReadShareGroupStateSummary.
func fillShareRead(req kmsg.Request, out reflect.Value, st share.State) {
	out.FieldByName("StateEpoch").SetInt(int64(st.StateEpoch))
	out.FieldByName("StartOffset").SetInt(st.StartOffset)
	if _, summary := req.(*kmsg.ReadShareGroupStateSummaryRequest); summary {
		out.FieldByName("LeaderEpoch").SetInt(int64(st.LeaderEpoch))
		out.FieldByName("DeliveryCompleteCount").SetInt(int64(st.DeliveryCompleteCount))
		return
	}
	var batches []kmsg.ReadShareGroupStateResponseTopicPartitionStateBatch
	for _, sb := range st.Batches {
		batches = append(batches, kmsg.ReadShareGroupStateResponseTopicPartitionStateBatch{FirstOffset: sb.FirstOffset,
			LastOffset: sb.LastOffset, DeliveryState: int8(sb.DeliveryState), DeliveryCount: sb.DeliveryCount})
	}
	out.FieldByName("StateBatches").Set(reflect.ValueOf(batches))
}
