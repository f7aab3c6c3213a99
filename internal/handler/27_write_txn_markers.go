package handler

// WriteTxnMarkers (key 27), versions 0–2.
//
//	v0: as v1, not flexible (Kafka 4 dropped it, KIP-896; Karst serves
//	    it).
//	v1: flexible.
//	v2: each marker's transaction version (KIP-1228): from 2 the marker
//	    must carry a newer producer epoch than the partition has seen,
//	    as the log checks it for the coordinator's own markers. v1
//	    markers are legacy (0).
//
// A transaction coordinator sends it to partition leaders to end a
// transaction in their logs; Karst's own coordinator writes its markers
// in-process, so the senders here are tools: kafka-transactions abort
// ends a hanging transaction this way. Each marker is appended as the
// coordinator would append it (producer and coordinator epochs checked by
// the log), and a marker in __consumer_offsets also commits or drops the
// producer's pending transactional offsets. Answered once durable.

import (
	"context"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	klog "github.com/karst-broker/karst/internal/log"
	"github.com/karst-broker/karst/internal/metadata"
	"github.com/karst-broker/karst/internal/record"
)

func init() { register(27, 0, 2, (*Broker).handleWriteTxnMarkers) }

// markerWait is one appended marker waiting to be durable.
type markerWait struct {
	log    *klog.Log
	offset int64
	out    *kmsg.WriteTxnMarkersResponseMarkerTopicPartition
	// offsets: a __consumer_offsets marker, whose pending offsets are
	// settled once it is durable.
	offsets       bool
	producerID    int64
	producerEpoch int16
	committed     bool
}

func (b *Broker) handleWriteTxnMarkers(_ context.Context, r *Request) Outcome {
	req := r.Body.(*kmsg.WriteTxnMarkersRequest)
	resp := kmsg.NewPtrWriteTxnMarkersResponse()
	img := b.image()
	now := time.Now().UnixMilli()
	var waits []*markerWait
	resp.Markers = make([]kmsg.WriteTxnMarkersResponseMarker, len(req.Markers))
	for i, m := range req.Markers {
		rm := &resp.Markers[i]
		*rm = kmsg.NewWriteTxnMarkersResponseMarker()
		rm.ProducerID = m.ProducerID
		txnVersion := int8(0)
		if r.Version() >= 2 {
			txnVersion = m.TransactionVersion
		}
		typ := record.ControlAbort
		if m.Committed {
			typ = record.ControlCommit
		}
		rm.Topics = make([]kmsg.WriteTxnMarkersResponseMarkerTopic, len(m.Topics))
		for j, mt := range m.Topics {
			rt := &rm.Topics[j]
			*rt = kmsg.NewWriteTxnMarkersResponseMarkerTopic()
			rt.Topic = mt.Topic
			rt.Partitions = make([]kmsg.WriteTxnMarkersResponseMarkerTopicPartition, len(mt.Partitions))
			topic, topicCode := requestTopic(img, false, mt.Topic, [16]byte{})
			for k, p := range mt.Partitions {
				out := &rt.Partitions[k]
				*out = kmsg.NewWriteTxnMarkersResponseMarkerTopicPartition()
				out.Partition = p
				if topicCode != 0 {
					out.ErrorCode = topicCode
					continue
				}
				part, meta, code := b.leaderPartition(topic, p, -1)
				if code != 0 {
					out.ErrorCode = code
					continue
				}
				batch := record.BuildMarker(nil, record.Marker{ProducerID: m.ProducerID, ProducerEpoch: m.ProducerEpoch,
					CoordinatorEpoch: m.CoordinatorEpoch, Type: typ, Timestamp: now})
				res, err := part.Log.Append(batch, klog.AppendOptions{Origin: klog.FromCoordinator,
					LeaderEpoch: meta.LeaderEpoch, TransactionVersion: txnVersion})
				if err != nil {
					out.ErrorCode = errorCode(err)
					continue
				}
				waits = append(waits, &markerWait{log: part.Log, offset: res.LastOffset, out: out,
					offsets: mt.Topic == metadata.ConsumerOffsetsTopic, producerID: m.ProducerID,
					producerEpoch: m.ProducerEpoch, committed: m.Committed})
			}
		}
	}
	if len(waits) == 0 {
		return Ready(resp)
	}
	return Outcome{Later: func(ctx context.Context) kmsg.Response {
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), defaultProduceTimeout)
		defer cancel()
		settled := map[int64]bool{}
		for _, w := range waits {
			w.log.RequestDurable(w.offset)
		}
		for _, w := range waits {
			if err := w.log.WaitDurable(ctx, w.offset); err != nil {
				w.out.ErrorCode = kerr.RequestTimedOut.Code
				if ctx.Err() == nil {
					w.out.ErrorCode = errorCode(err)
				}
				continue
			}
			if w.offsets && !settled[w.producerID] && b.groups() != nil {
				settled[w.producerID] = true
				b.groups().CompleteTransaction(w.producerID, w.producerEpoch, w.committed)
			}
		}
		return resp
	}}
}
