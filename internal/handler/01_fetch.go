package handler

// Fetch (key 1), versions 0–18.
//
//	v0–v3: MessageSets, down-converted from the log's v2 batches as the
//	response is written (fetch_downconvert.go): magic 0 for v0–v1, magic
//	1 for v2–v3. Kafka 4 dropped these versions (KIP-896); Karst serves
//	them as Kafka 3.x did.
//	v1: throttle time.
//	v3: response max bytes; the first batch is returned whole even when
//	larger than the max bytes (KIP-74), where v0–v2 cut it.
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
// answered at once with what there is, as is a fetch with any partition in
// error.
//
// Sessions (v7+): epoch 0 opens a session with the request's partitions
// and a full answer; later requests carry only changes (new or moved
// partitions, forgotten ones) and get back only partitions with records,
// errors, or a moved high watermark, last stable or log start offset.
//
// Records are never copied: the body is encoded around file regions that
// the server sends with sendfile (or copies, where it cannot).
//
// Isolation (v4+): read_uncommitted reads to the high watermark and sends
// null aborted transactions; read_committed reads to the last stable
// offset (so MinBytes counts only committed-or-decided bytes, and a parked
// fetch wakes on the marker append that moves the LSO) and sends the
// aborted transactions overlapping the records, an empty list if none, as
// Kafka does. Both report the LSO.

import (
	"context"
	"math"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/karst-broker/karst/internal/fetchsession"
	klog "github.com/karst-broker/karst/internal/log"
	"github.com/karst-broker/karst/internal/metadata"
	"github.com/karst-broker/karst/internal/metrics"
	"github.com/karst-broker/karst/internal/storage"
)

func init() { register(1, 0, 18, (*Broker).handleFetch) }

// Session epochs with a meaning of their own (KIP-227).
const (
	fetchEpochInitial = 0  // open a new session
	fetchEpochFinal   = -1 // no session, or close the named one
)

// fetchAnswer is what a fetchTarget's response partition says besides its
// partition and records, kept apart from kmsg's much larger struct until
// the answer is assembled.
type fetchAnswer struct {
	ErrorCode           int16
	HighWatermark       int64
	LastStableOffset    int64
	LogStartOffset      int64
	AbortedTransactions []kmsg.FetchResponseTopicPartitionAbortedTransaction
}

// fetchTarget is one partition to read and, once read, its answer.
type fetchTarget struct {
	key     fetchsession.Key
	offset  int64
	max     int32
	epoch   int32
	session *fetchsession.Partition // nil without a session

	part   *storage.Partition  // nil when code is set before reading
	meta   *metadata.Partition // nil when the topic lacks the partition
	out    fetchAnswer
	region fileRegion // where the records to send lie
	// signal is part's append signal, taken before each read.
	signal <-chan struct{}
}

func (b *Broker) handleFetch(_ context.Context, r *Request) Outcome {
	req := r.Body.(*kmsg.FetchRequest)
	version := r.Version()
	maxWait := time.Duration(req.MaxWaitMillis) * time.Millisecond
	client, consumer := quotaClient(r), req.ReplicaID < 0 && req.ReplicaState.ID < 0
	if consumer {
		b.capFetchToQuota(req, client)
	}
	return Outcome{Later: func(ctx context.Context) kmsg.Response {
		resp := kmsg.NewPtrFetchResponse()
		sess, incremental, code := b.openFetchSession(version, req)
		if code != 0 {
			resp.ErrorCode = code
			return resp
		}
		if sess != nil {
			defer sess.Unlock()
			resp.SessionID = sess.ID
		}
		targets := b.fetchTargets(version, req, sess, incremental, r.topicRefused)
		// As Kafka's ReplicaManager: a fetch of no partitions is answered
		// at once, whatever max_wait says.
		canWait := len(targets) > 0 && req.MinBytes > 0 && req.MinBytes <= req.MaxBytes && maxWait > 0 && !anyResolveError(targets)
		deadline := time.Now().Add(maxWait)
		for {
			takeAppendSignals(targets)
			got := readFetch(version, req, targets)
			if !canWait || got >= int(req.MinBytes) || !time.Now().Before(deadline) || anyReadError(targets) {
				break
			}
			b.opts.Metrics.EnterPurgatory(metrics.FetchPurgatory)
			woke := waitAny(ctx, targets, time.Until(deadline))
			b.opts.Metrics.LeavePurgatory(metrics.FetchPurgatory)
			if !woke {
				readFetch(version, req, targets)
				break
			}
		}
		if version <= lastDownConvertedFetchVersion {
			b.downConvertFetch(b.image(), version, targets)
		}
		resp.SetVersion(version)
		if consumer {
			if throttled := b.throttleFetch(resp, client, targets, sess, incremental); throttled != nil {
				return throttled
			}
		}
		body := assembleFetch(resp, targets, incremental)
		for i := range targets {
			if t := &targets[i]; t.region.length > 0 {
				b.opts.Metrics.Fetched(t.part.Topic, t.region.length)
			}
		}
		if incremental {
			sess.NextEpoch()
		}
		return body
	}}
}

// openFetchSession applies the session fields of a request: it returns the
// session to use, locked (nil for a sessionless fetch), whether the answer
// is incremental, or an error code for the whole response.
func (b *Broker) openFetchSession(version int16, req *kmsg.FetchRequest) (*fetchsession.Session, bool, int16) {
	if version < 7 {
		return nil, false, 0
	}
	cache := b.opts.FetchSessions
	switch {
	case req.SessionID == 0 && req.SessionEpoch == fetchEpochFinal:
		return nil, false, 0
	case req.SessionID == 0 && req.SessionEpoch == fetchEpochInitial:
	case req.SessionEpoch == fetchEpochFinal:
		cache.Remove(req.SessionID)
		return nil, false, 0
	case req.SessionEpoch == fetchEpochInitial:
		cache.Remove(req.SessionID)
	case req.SessionID == 0:
		return nil, false, kerr.InvalidFetchSessionEpoch.Code
	default:
		s, ok := cache.Get(req.SessionID)
		if !ok {
			return nil, false, kerr.FetchSessionIDNotFound.Code
		}
		s.Lock()
		if s.Epoch != req.SessionEpoch {
			s.Unlock()
			return nil, false, kerr.InvalidFetchSessionEpoch.Code
		}
		return s, true, 0
	}
	s := cache.New()
	if s == nil {
		return nil, false, 0
	}
	s.Lock()
	return s, false, 0
}

// fetchTargets lists the partitions to read: the request's for a
// sessionless fetch, the session's (after applying the request's changes)
// otherwise. The targets are values in one slice, not an allocation each:
// a consumer's fetches come many times a second.
func (b *Broker) fetchTargets(version int16, req *kmsg.FetchRequest, sess *fetchsession.Session, incremental bool, refused func(string) bool) []fetchTarget {
	var targets []fetchTarget
	if sess == nil {
		n := 0
		for i := range req.Topics {
			n += len(req.Topics[i].Partitions)
		}
		targets = make([]fetchTarget, 0, n)
	}
	for ti := range req.Topics {
		rt := &req.Topics[ti]
		for pi := range rt.Partitions {
			rp := &rt.Partitions[pi]
			key := fetchsession.Key{Topic: rt.Topic, Partition: rp.Partition}
			if version >= 13 {
				key = fetchsession.Key{TopicID: rt.TopicID, Partition: rp.Partition}
			}
			if sess != nil {
				sess.Upsert(fetchsession.Partition{Key: key, FetchOffset: rp.FetchOffset, MaxBytes: rp.PartitionMaxBytes,
					CurrentLeaderEpoch: rp.CurrentLeaderEpoch, LastFetchedEpoch: rp.LastFetchedEpoch, LogStartOffset: rp.LogStartOffset})
				continue
			}
			targets = append(targets, fetchTarget{key: key, offset: rp.FetchOffset, max: rp.PartitionMaxBytes, epoch: rp.CurrentLeaderEpoch})
		}
	}
	if sess != nil {
		if incremental {
			for _, ft := range req.ForgottenTopics {
				for _, p := range ft.Partitions {
					key := fetchsession.Key{Topic: ft.Topic, Partition: p}
					if version >= 13 {
						key = fetchsession.Key{TopicID: ft.TopicID, Partition: p}
					}
					sess.Forget(key)
				}
			}
		}
		targets = make([]fetchTarget, 0, len(sess.Partitions()))
		for _, sp := range sess.Partitions() {
			targets = append(targets, fetchTarget{key: sp.Key, offset: sp.FetchOffset, max: sp.MaxBytes, epoch: sp.CurrentLeaderEpoch, session: sp})
		}
	}
	img := b.image()
	for i := range targets {
		b.resolveFetchTarget(img, &targets[i], refused)
	}
	return targets
}

// noAbortedTransactions is the empty (not null) aborted-transactions array Kafka answers for a
// partition it could not resolve (unknown topic or partition, not the leader).
var noAbortedTransactions = []kmsg.FetchResponseTopicPartitionAbortedTransaction{}

// resolveFetchTarget finds a target's partition; refused, the fetch
// gate's (nil without an authorizer), names the topics the principal may
// not read, answered TOPIC_AUTHORIZATION_FAILED: before the topic is
// looked up when named (so a refused topic's existence is not told), after
// when given by id.
func (b *Broker) resolveFetchTarget(img *metadata.Image, t *fetchTarget, refused func(string) bool) {
	t.out = fetchAnswer{HighWatermark: -1, LastStableOffset: -1, LogStartOffset: -1, AbortedTransactions: noAbortedTransactions}
	if refused != nil && t.key.Topic != "" && refused(t.key.Topic) {
		t.out.ErrorCode = kerr.TopicAuthorizationFailed.Code
		return
	}
	topic, code := requestTopic(img, t.key.Topic == "", t.key.Topic, t.key.TopicID)
	if code != 0 {
		t.out.ErrorCode = code
		return
	}
	if refused != nil && refused(topic.Name) {
		t.out.ErrorCode = kerr.TopicAuthorizationFailed.Code
		return
	}
	t.part, t.meta, t.out.ErrorCode = b.leaderPartition(topic, t.key.Partition, t.epoch)
}

func anyResolveError(targets []fetchTarget) bool {
	for i := range targets {
		if targets[i].part == nil {
			return true
		}
	}
	return false
}

func anyReadError(targets []fetchTarget) bool {
	for i := range targets {
		if targets[i].out.ErrorCode != 0 {
			return true
		}
	}
	return false
}

// readFetch locates the records of every resolvable target within the
// request's byte limits and returns the bytes found. The first partition
// with data returns at least one whole batch (KIP-74, v3+). Nothing is
// copied: the records are sent from the segment files.
func readFetch(version int16, req *kmsg.FetchRequest, targets []fetchTarget) int {
	remaining := int(req.MaxBytes)
	if version < 3 {
		remaining = math.MaxInt32 // no response max bytes before v3
	}
	total := 0
	iso := klog.ReadUncommitted
	if req.IsolationLevel == 1 {
		iso = klog.ReadCommitted
	}
	for i := range targets {
		t := &targets[i]
		if t.part == nil {
			continue
		}
		limit := max(min(int(t.max), remaining), 0)
		res, err := t.part.Log.ReadIsolated(t.offset, limit, total == 0 && version > hardMaxBytesFetchVersion, iso)
		t.out.HighWatermark, t.out.LogStartOffset = res.HighWatermark, res.LogStartOffset
		t.out.LastStableOffset = res.LastStableOffset
		t.out.AbortedTransactions = nil
		t.region = fileRegion{}
		if err != nil {
			// Kafka answers a partition it could not read with no offsets.
			t.out.ErrorCode = errorCode(err)
			t.out.HighWatermark, t.out.LastStableOffset, t.out.LogStartOffset = -1, -1, -1
			continue
		}
		// Not errorCode(nil): it allocates even then (its errors.As
		// target escapes).
		t.out.ErrorCode = 0
		if iso == klog.ReadCommitted {
			t.out.AbortedTransactions = abortedTransactions(res.AbortedTransactions)
		}
		if res.FirstBatchIncomplete && version > lastDownConvertedFetchVersion {
			// As Kafka (v4+): a partition whose first batch does not fit
			// the remaining bytes returns nothing this time rather than a
			// fragment, which the Java consumer treats as an error. Up to
			// v3, Kafka 3.x answered the fragment's length of padding,
			// which old consumers read as a message too large for their
			// fetch size.
			continue
		}
		t.region = fileRegion{file: res.File, offset: res.Position, length: res.Length}
		total += int(res.Length)
		remaining -= int(res.Length)
	}
	return total
}

// abortedTransactions converts the log's list to the response's: never nil,
// because read_committed answers carry a list even when it is empty.
func abortedTransactions(in []klog.AbortedTxn) []kmsg.FetchResponseTopicPartitionAbortedTransaction {
	out := make([]kmsg.FetchResponseTopicPartitionAbortedTransaction, len(in))
	for i, a := range in {
		out[i] = kmsg.NewFetchResponseTopicPartitionAbortedTransaction()
		out[i].ProducerID, out[i].FirstOffset = a.ProducerID, a.FirstOffset
	}
	return out
}

// assembleFetch groups the answers by topic, in target order, leaving out
// of an incremental answer every partition with nothing new, and encodes
// the body with the records as file regions. All partitions share one
// backing slice, and regions is indexed like it.
func assembleFetch(resp *kmsg.FetchResponse, targets []fetchTarget, incremental bool) *PartsResponse {
	// Every change of topic along the targets may start a topic of the
	// answer: an upper bound, as leaving partitions out only merges.
	topics := 0
	for i := range targets {
		if i == 0 || !sameTopic(targets[i].key, targets[i-1].key) {
			topics++
		}
	}
	if topics > 0 {
		resp.Topics = make([]kmsg.FetchResponseTopic, 0, topics)
	}
	all := make([]kmsg.FetchResponseTopicPartition, 0, len(targets))
	regions := make([]fileRegion, 0, len(targets))
	first := 0 // index in all of the last topic's first partition
	for i := range targets {
		t := &targets[i]
		if t.session != nil {
			changed := t.session.Changed(fetchsession.Answer{ErrorCode: t.out.ErrorCode, HighWatermark: t.out.HighWatermark,
				LastStable: t.out.LastStableOffset, LogStartOffset: t.out.LogStartOffset, HasRecords: t.region.length > 0})
			if incremental && !changed {
				continue
			}
		}
		n := len(resp.Topics)
		if n == 0 || resp.Topics[n-1].Topic != t.key.Topic || resp.Topics[n-1].TopicID != t.key.TopicID {
			rt := kmsg.NewFetchResponseTopic()
			rt.Topic, rt.TopicID = t.key.Topic, t.key.TopicID
			resp.Topics = append(resp.Topics, rt)
			n++
			first = len(all)
		}
		out := kmsg.NewFetchResponseTopicPartition()
		out.Partition, out.ErrorCode = t.key.Partition, t.out.ErrorCode
		out.HighWatermark, out.LastStableOffset, out.LogStartOffset = t.out.HighWatermark, t.out.LastStableOffset, t.out.LogStartOffset
		out.AbortedTransactions = t.out.AbortedTransactions
		if resp.Version >= 16 && t.meta != nil && (out.ErrorCode == kerr.NotLeaderForPartition.Code || out.ErrorCode == kerr.FencedLeaderEpoch.Code) {
			// KIP-951, as Kafka's getCurrentLeader: the metadata's leader.
			out.CurrentLeader.LeaderID, out.CurrentLeader.LeaderEpoch = t.meta.Leader, t.meta.LeaderEpoch
		}
		out.PreferredReadReplica = -1
		out.RecordBatches = []byte{} // Kafka sends empty records, never null
		all = append(all, out)
		regions = append(regions, t.region)
		// all never grows past its capacity, so the topics' windows
		// into it stay valid.
		resp.Topics[n-1].Partitions = all[first:len(all):len(all)]
	}
	return &PartsResponse{Response: resp, Parts: encodeFetchBody(resp, regions)}
}

func sameTopic(a, b fetchsession.Key) bool { return a.Topic == b.Topic && a.TopicID == b.TopicID }

// takeAppendSignals takes every readable partition's append signal, before
// the read, so that no append between the read and the wait is missed.
func takeAppendSignals(targets []fetchTarget) {
	for i := range targets {
		if t := &targets[i]; t.part != nil {
			t.signal = t.part.Log.AppendSignal()
		}
	}
}
