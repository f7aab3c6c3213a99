package handler

// Produce (key 0), versions 0–13 advertised; 3–13 served.
//
//	v3: record batches v2 only (magic 2), transactional id.
//	v5: log start offset in the response.
//	v8: per-record errors and an error message.
//	v9: flexible.
//	v10: current leader and node endpoints on NOT_LEADER (tagged).
//	v11: no change (KIP-951 hints).
//	v12: transaction version 2 (the broker adds partitions implicitly).
//	v13: topics named by id.
//
//	v0–v2: MessageSets of magic 0 and 1 (legacy_produce.go), up-converted
//	to one v2 batch per partition before anything else looks at them.
//	v1 adds the throttle time, v2 the log append time.
//
// Apache Kafka 4 advertises v0–v2 (librdkafka needs Produce v0 in the
// table to start) but closes the connection when one arrives (KIP-896);
// Karst serves them, as Kafka 3.x did.
//
// Internal topics (__consumer_offsets, __transaction_state) refuse
// client writes with INVALID_TOPIC_EXCEPTION, as Kafka's ReplicaManager
// does, unless the client id is "__admin_client" (Kafka's
// internalTopicsAllowed): a stray record there is read by a coordinator
// on its next load.
//
// A compacted topic refuses records without a key: INVALID_RECORD with the
// index of each such record (v8+ record errors), as Kafka answers.
//
// A topic whose compression.type (its own, else the broker's) is not
// "producer" gets its batches recompressed to that codec before they are
// stored, as in Kafka; a batch over max.message.bytes as sent is
// MESSAGE_TOO_LARGE first. The topic's configuration comes from the same
// resolved LogConfig its log has (config.LogConfigs).
//
// Partitions are resolved as the rest of the data path resolves them
// (partition.go): NOT_LEADER_OR_FOLLOWER for one this node does not lead.
//
// A transactional batch that opens its producer's transaction in a
// partition is written only if the transaction coordinator verified that
// the partition is in the producer's open transaction and its epoch is
// the transactional id's current one (KIP-890 part 1, through
// txn.Verifier, as Kafka's AddPartitionsToTxnManager asks the
// coordinator): INVALID_TXN_STATE or INVALID_PRODUCER_EPOCH otherwise.
// The log refuses it if a marker of the producer landed since the
// verification began. From v12, once transaction.version 2 is finalized,
// the partition is added to the transaction by the broker as the producer
// writes to it.
//
// acks other than -1, 0 and 1 append nothing: INVALID_REQUIRED_ACKS for
// every partition of a known topic, as Kafka answers.
//
// acks=0 is not answered; if any partition failed, the connection is
// closed instead, as Kafka does, so the producer refreshes its metadata.
// acks=1 and acks=-1 are answered once the batches
// are on disk: appends from concurrent requests share one fsync (group
// commit), unless the topic's flush settings choose page-cache durability.

import (
	"context"
	"errors"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	klog "github.com/karst-broker/karst/internal/log"
	"github.com/karst-broker/karst/internal/metadata"
	"github.com/karst-broker/karst/internal/metrics"
	"github.com/karst-broker/karst/internal/record"
	"github.com/karst-broker/karst/internal/txn"
)

func init() { register(0, 0, 13, (*Broker).handleProduce) }

// defaultProduceTimeout bounds the wait for fsync when a request gives no
// timeout.
const defaultProduceTimeout = 30 * time.Second

// adminClientID is the client id Kafka lets write to internal topics
// (AdminUtils.ADMIN_CLIENT_ID).
const adminClientID = "__admin_client"

// pendingDurable is an appended batch whose response waits for fsync.
type pendingDurable struct {
	log    *klog.Log
	offset int64
	out    *kmsg.ProduceResponseTopicPartition
}

func (b *Broker) handleProduce(ctx context.Context, r *Request) Outcome {
	req := r.Body.(*kmsg.ProduceRequest)
	resp := kmsg.NewPtrProduceResponse()
	resp.Topics = make([]kmsg.ProduceResponseTopic, len(req.Topics))
	var waits []pendingDurable
	img := b.image()
	verified := b.verifyTransaction(ctx, r.Version(), req, img)
	for i, rt := range req.Topics {
		out := &resp.Topics[i]
		*out = kmsg.NewProduceResponseTopic()
		out.Topic, out.TopicID = rt.Topic, rt.TopicID
		topic, topicErr := requestTopic(img, r.Version() >= 13, rt.Topic, rt.TopicID)
		if topicErr == 0 && metadata.IsInternalTopic(topic.Name) && clientID(r) != adminClientID {
			topicErr = kerr.InvalidTopicException.Code
		}
		out.Partitions = make([]kmsg.ProduceResponseTopicPartition, len(rt.Partitions))
		for j, rp := range rt.Partitions {
			po := &out.Partitions[j]
			*po = kmsg.NewProduceResponseTopicPartition()
			po.Partition = rp.Partition
			po.BaseOffset, po.LogAppendTime, po.LogStartOffset = -1, -1, -1
			if topicErr != 0 {
				po.ErrorCode = topicErr
				continue
			}
			if req.Acks != -1 && req.Acks != 0 && req.Acks != 1 {
				// As Kafka's ReplicaManager: nothing is appended.
				po.ErrorCode = kerr.InvalidRequiredAcks.Code
				continue
			}
			part, meta, code := b.leaderPartition(topic, rp.Partition, -1)
			if code != 0 {
				po.ErrorCode = code
				if code == kerr.NotLeaderForPartition.Code && r.Version() >= 10 {
					// KIP-951, from the metadata as Kafka's getCurrentLeader
					// (-1 once offline). No node endpoint goes with it: the
					// only node a single Karst knows is itself.
					po.CurrentLeader.LeaderID, po.CurrentLeader.LeaderEpoch = meta.Leader, meta.LeaderEpoch
				}
				continue
			}
			logConfig := b.logConfig(img, topic.Name)
			batches := rp.Records
			if r.Version() <= lastMessageSetProduceVersion {
				var err error
				if batches, err = upConvertMessageSet(rp.Records, logConfig); err != nil {
					po.ErrorCode, po.ErrorMessage = errorCode(err), errorMessage(err)
					continue
				}
			}
			if logConfig.Compact {
				if errs, msg, code := keylessRecordErrors(batches, topic.Name, rp.Partition); code != 0 {
					po.ErrorCode, po.ErrorMessage, po.ErrorRecords = code, msg, errs
					continue
				}
			}
			records, err := recompressForTopic(batches, logConfig.CompressionType, logConfig.MaxMessageBytes)
			if err != nil {
				po.ErrorCode, po.ErrorMessage = errorCode(err), errorMessage(err)
				continue
			}
			opts, err := transactionalOptions(verified, txn.TopicPartition{Topic: topic.Name, Partition: rp.Partition},
				klog.AppendOptions{Origin: klog.FromClient, LeaderEpoch: meta.LeaderEpoch})
			var res klog.AppendResult
			if err == nil {
				res, err = part.Log.Append(records, opts)
			}
			if err != nil {
				po.ErrorCode, po.ErrorMessage = errorCode(err), errorMessage(err)
				po.LogStartOffset = failedAppendLogStart(po.ErrorCode, part.Log)
				b.opts.Metrics.AppendFailed(topic.Name)
				continue
			}
			if !res.Duplicate {
				b.opts.Metrics.Appended(topic.Name, len(records), res.RecordCount)
			}
			po.BaseOffset, po.LogAppendTime, po.LogStartOffset = res.FirstOffset, res.LogAppendTime, res.LogStartOffset
			if res.LastOffset >= 0 {
				waits = append(waits, pendingDurable{log: part.Log, offset: res.LastOffset, out: po})
			}
		}
	}
	if req.Acks == 0 {
		return Outcome{NoResponse: true, CloseConnection: anyPartitionFailed(resp)}
	}
	if len(waits) == 0 {
		return Ready(resp)
	}
	timeout := time.Duration(req.TimeoutMillis) * time.Millisecond
	if timeout <= 0 {
		timeout = defaultProduceTimeout
	}
	return Outcome{Later: func(ctx context.Context) kmsg.Response {
		// Shutdown does not cut an fsync short: the logs stay open until
		// every in-flight request is answered.
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), timeout)
		defer cancel()
		b.opts.Metrics.EnterPurgatory(metrics.ProducePurgatory)
		defer b.opts.Metrics.LeavePurgatory(metrics.ProducePurgatory)
		for _, w := range waits {
			w.log.RequestDurable(w.offset)
		}
		for _, w := range waits {
			if err := w.log.WaitDurable(ctx, w.offset); err != nil {
				w.out.ErrorCode = kerr.RequestTimedOut.Code
				if ctx.Err() == nil {
					w.out.ErrorCode = errorCode(err)
				}
				w.out.ErrorMessage = errorMessage(err)
				w.out.BaseOffset = -1
			}
		}
		return resp
	}}
}

// transactionalBatch: the first batch of records has the transactional
// bit (a producer's request carries batches of one kind).
func transactionalBatch(records []byte) bool {
	if len(records) < record.HeaderSize || records[record.MagicOffset] != record.Magic {
		return false
	}
	return record.Batch(records[:record.HeaderSize]).IsTransactional()
}

// txnVerification is the verification of one partition a transactional
// Produce writes to: the log's guard, and why the write must not happen.
type txnVerification struct {
	guard klog.VerificationGuard
	err   error
}

// verifyTransaction verifies, before the appends, each partition where
// the request's transactional batches would open the producer's
// transaction (KIP-890 part 1, Kafka's ReplicaManager with its
// AddPartitionsToTxnManager): the partition's log starts a verification
// (a guard), and the transaction coordinator is asked, in one call for
// the request, whether the partitions are in the producer's open
// transaction. From v12, once transaction.version 2 is finalized, the
// coordinator adds them instead (KIP-890 part 2). A partition where the
// producer's transaction is already open needs neither. The errors are
// mapped to what Produce answers.
func (b *Broker) verifyTransaction(ctx context.Context, version int16, req *kmsg.ProduceRequest, img *metadata.Image) map[txn.TopicPartition]txnVerification {
	verifier := b.txnVerifier()
	if req.TransactionID == nil || verifier == nil {
		return nil
	}
	out := map[txn.TopicPartition]txnVerification{}
	vreq := txn.VerifyRequest{TransactionalID: *req.TransactionID, Add: version >= 12 && b.transactionVersion2()}
	for _, rt := range req.Topics {
		topic, code := requestTopic(img, version >= 13, rt.Topic, rt.TopicID)
		if code != 0 {
			continue
		}
		for _, rp := range rt.Partitions {
			if !transactionalBatch(rp.Records) {
				continue
			}
			part, _, code := b.leaderPartition(topic, rp.Partition, -1)
			if code != 0 {
				continue // the append answers for it
			}
			h := record.Batch(rp.Records[:record.HeaderSize])
			vreq.ProducerID, vreq.ProducerEpoch = h.ProducerID(), h.ProducerEpoch()
			tp := txn.TopicPartition{Topic: topic.Name, Partition: rp.Partition}
			g, err := part.Log.StartTransactionVerification(h.ProducerID(), h.ProducerEpoch(), vreq.Add)
			out[tp] = txnVerification{guard: g, err: err}
			if err == nil && g != 0 {
				vreq.Partitions = append(vreq.Partitions, tp)
			}
		}
	}
	if len(vreq.Partitions) == 0 {
		return out
	}
	per, top := verifier.VerifyTransaction(ctx, vreq)
	for i, tp := range vreq.Partitions {
		err := top
		if err == nil && i < len(per) {
			err = per[i]
		}
		if err != nil {
			out[tp] = txnVerification{err: produceVerificationError(err, version)}
		}
	}
	return out
}

// produceVerificationError is what Produce answers for a partition the
// coordinator did not verify, as Kafka's ReplicaManager with its
// AddPartitionsToTxnManager: a fenced producer is INVALID_PRODUCER_EPOCH;
// a partition not in the transaction TRANSACTION_ABORTABLE from v11
// (KIP-890: the producer aborts and carries on), INVALID_TXN_STATE for
// the clients before, which do not know it; and a coordinator that is
// busy or cannot answer NOT_ENOUGH_REPLICAS, which every client retries
// without refreshing its metadata.
func produceVerificationError(err error, version int16) error {
	switch {
	case errors.Is(err, kerr.ProducerFenced):
		return kerr.InvalidProducerEpoch
	case errors.Is(err, kerr.TransactionAbortable):
		if version >= 11 {
			return kerr.TransactionAbortable
		}
		return kerr.InvalidTxnState
	case errors.Is(err, kerr.ConcurrentTransactions), errors.Is(err, kerr.CoordinatorNotAvailable),
		errors.Is(err, kerr.CoordinatorLoadInProgress), errors.Is(err, kerr.NotCoordinator):
		return kerr.NotEnoughReplicas
	}
	return err
}

// transactionalOptions are the append options of a transactional batch:
// the log checks the guard of its verification, if the batch opens the
// producer's transaction in the partition.
func transactionalOptions(verified map[txn.TopicPartition]txnVerification, tp txn.TopicPartition, opts klog.AppendOptions) (klog.AppendOptions, error) {
	v, ok := verified[tp]
	if !ok {
		return opts, nil
	}
	opts.VerifyTransaction, opts.VerificationGuard = true, v.guard
	return opts, v.err
}

// failedAppendLogStart is the log start offset a failed append answers,
// as Kafka's ReplicaManager: -1 for the errors it catches before the log
// (unknown partition, not leader, too large, corrupt, storage), the
// partition's log start offset for the rest (out of order sequence,
// fenced epoch, invalid records, ...).
func failedAppendLogStart(code int16, l *klog.Log) int64 {
	switch code {
	case kerr.UnknownTopicOrPartition.Code, kerr.NotLeaderForPartition.Code, kerr.MessageTooLarge.Code,
		kerr.RecordListTooLarge.Code, kerr.CorruptMessage.Code, kerr.KafkaStorageError.Code:
		return -1
	}
	return l.LogStartOffset()
}

func anyPartitionFailed(resp *kmsg.ProduceResponse) bool {
	for _, t := range resp.Topics {
		for _, p := range t.Partitions {
			if p.ErrorCode != 0 {
				return true
			}
		}
	}
	return false
}
