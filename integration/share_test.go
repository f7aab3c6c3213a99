package integration

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
	"github.com/twmb/franz-go/pkg/kversion"

	"github.com/karst-broker/karst/karsttest"
)

// shareHarness drives ShareFetch and ShareAcknowledge with raw requests
// against one broker, as a share consumer does once its group
// coordinator has assigned it the partition.
type shareHarness struct {
	t     testing.TB
	ctx   context.Context
	cl    *kgo.Client
	group string
	topic string
	id    [16]byte
	// onFetch, when set, sees every ShareFetch response.
	onFetch func(*kmsg.ShareFetchResponse)
}

func newShareHarness(t testing.TB, ctx context.Context, addr, topic string, partitions int32, records int) *shareHarness {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(addr), kgo.DefaultProduceTopic(topic))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	adm := kadm.NewClient(cl)
	created, err := adm.CreateTopic(ctx, partitions, 1, nil, topic)
	if err != nil {
		t.Fatal(err)
	}
	h := &shareHarness{t: t, ctx: ctx, cl: cl, group: "share-" + topic, topic: topic, id: created.ID}
	// The share group reads from the start: share.auto.offset.reset is
	// latest unless the group says otherwise.
	h.setGroupConfig("share.auto.offset.reset", "earliest")
	h.produce(0, records)
	return h
}

// setGroupConfig sets one of the share group's GROUP configs.
func (h *shareHarness) setGroupConfig(name, value string) {
	h.t.Helper()
	alter := kmsg.NewPtrIncrementalAlterConfigsRequest()
	res := kmsg.NewIncrementalAlterConfigsRequestResource()
	res.ResourceType, res.ResourceName = kmsg.ConfigResourceType(32), h.group
	cfg := kmsg.NewIncrementalAlterConfigsRequestResourceConfig()
	cfg.Name, cfg.Value = name, kmsg.StringPtr(value)
	res.Configs = append(res.Configs, cfg)
	alter.Resources = append(alter.Resources, res)
	resp, err := alter.RequestWith(h.ctx, h.cl)
	if err != nil {
		h.t.Fatal(err)
	}
	if code := resp.Resources[0].ErrorCode; code != 0 {
		h.t.Fatalf("setting %s: %v", name, kerr.ErrorForCode(code))
	}
}

func (h *shareHarness) produce(from, n int) {
	h.t.Helper()
	var rs []*kgo.Record
	for i := from; i < from+n; i++ {
		rs = append(rs, &kgo.Record{Partition: 0, Value: []byte(fmt.Sprintf("r%03d", i))})
	}
	if err := h.cl.ProduceSync(h.ctx, rs...).FirstErr(); err != nil {
		h.t.Fatal(err)
	}
}

func (h *shareHarness) broker() *kgo.Broker { return h.cl.SeedBrokers()[0] }

// fetch sends a ShareFetch for partition 0 with acks, waiting up to wait.
func (h *shareHarness) fetch(member string, epoch int32, wait time.Duration, acks ...kmsg.ShareFetchRequestTopicPartitionAcknowledgementBatch) *kmsg.ShareFetchResponse {
	h.t.Helper()
	resp, err := h.fetchAsync(member, epoch, wait, acks...)()
	if err != nil {
		h.t.Fatal(err)
	}
	if h.onFetch != nil {
		h.onFetch(resp)
	}
	return resp
}

// fetchAsync sends the ShareFetch from a goroutine of its own; the
// function returned waits for its answer.
func (h *shareHarness) fetchAsync(member string, epoch int32, wait time.Duration, acks ...kmsg.ShareFetchRequestTopicPartitionAcknowledgementBatch) func() (*kmsg.ShareFetchResponse, error) {
	return h.sendAsync(h.fetchRequest(member, epoch, wait, acks...))
}

// sendAsync sends req from a goroutine of its own; the function returned
// waits for its answer.
func (h *shareHarness) sendAsync(req *kmsg.ShareFetchRequest) func() (*kmsg.ShareFetchResponse, error) {
	type answer struct {
		resp *kmsg.ShareFetchResponse
		err  error
	}
	ch := make(chan answer, 1)
	go func() {
		resp, err := req.RequestWith(h.ctx, h.broker())
		ch <- answer{resp, err}
	}()
	return func() (*kmsg.ShareFetchResponse, error) { a := <-ch; return a.resp, a.err }
}

// fetchRequest is a ShareFetch for partition 0 with acks.
func (h *shareHarness) fetchRequest(member string, epoch int32, wait time.Duration, acks ...kmsg.ShareFetchRequestTopicPartitionAcknowledgementBatch) *kmsg.ShareFetchRequest {
	req := kmsg.NewPtrShareFetchRequest()
	req.GroupID, req.MemberID, req.ShareSessionEpoch = &h.group, &member, epoch
	req.MaxWaitMillis, req.MinBytes, req.MaxBytes, req.MaxRecords, req.BatchSize = int32(wait/time.Millisecond), 1, 1<<20, 500, 500
	if epoch != -1 || len(acks) > 0 {
		t := kmsg.NewShareFetchRequestTopic()
		t.TopicID = h.id
		p := kmsg.NewShareFetchRequestTopicPartition()
		p.AcknowledgementBatches = acks
		t.Partitions = append(t.Partitions, p)
		req.Topics = append(req.Topics, t)
	}
	return req
}

// await is a fetchAsync's answer.
func (h *shareHarness) await(answer func() (*kmsg.ShareFetchResponse, error)) *kmsg.ShareFetchResponse {
	h.t.Helper()
	resp, err := answer()
	if err != nil {
		h.t.Fatal(err)
	}
	return resp
}

func (h *shareHarness) ack(member string, epoch int32, acks ...kmsg.ShareAcknowledgeRequestTopicPartitionAcknowledgementBatch) *kmsg.ShareAcknowledgeResponse {
	h.t.Helper()
	req := kmsg.NewPtrShareAcknowledgeRequest()
	req.GroupID, req.MemberID, req.ShareSessionEpoch = &h.group, &member, epoch
	t := kmsg.NewShareAcknowledgeRequestTopic()
	t.TopicID = h.id
	p := kmsg.NewShareAcknowledgeRequestTopicPartition()
	p.AcknowledgementBatches = acks
	t.Partitions = append(t.Partitions, p)
	req.Topics = append(req.Topics, t)
	resp, err := req.RequestWith(h.ctx, h.broker())
	if err != nil {
		h.t.Fatal(err)
	}
	return resp
}

func ackBatch(first, last int64, typ int8) kmsg.ShareAcknowledgeRequestTopicPartitionAcknowledgementBatch {
	b := kmsg.NewShareAcknowledgeRequestTopicPartitionAcknowledgementBatch()
	b.FirstOffset, b.LastOffset, b.AcknowledgeTypes = first, last, []int8{typ}
	return b
}

func fetchAck(first, last int64, typ int8) kmsg.ShareFetchRequestTopicPartitionAcknowledgementBatch {
	b := kmsg.NewShareFetchRequestTopicPartitionAcknowledgementBatch()
	b.FirstOffset, b.LastOffset, b.AcknowledgeTypes = first, last, []int8{typ}
	return b
}

const (
	ackAccept  int8 = 1
	ackRelease int8 = 2
	ackReject  int8 = 3
)

// acquired lists a response's acquired ranges as "first-last:count", and
// checks that the records sent hold every acquired offset.
func acquired(t *testing.T, resp *kmsg.ShareFetchResponse) []string {
	t.Helper()
	if resp.ErrorCode != 0 {
		t.Fatalf("ShareFetch: %v", kerr.ErrorForCode(resp.ErrorCode))
	}
	var out []string
	for _, rt := range resp.Topics {
		for _, p := range rt.Partitions {
			if p.ErrorCode != 0 {
				t.Fatalf("ShareFetch partition %d: %v", p.Partition, kerr.ErrorForCode(p.ErrorCode))
			}
			have := map[int64]bool{}
			fp, _ := kgo.ProcessFetchPartition(kgo.ProcessFetchPartitionOpts{Topic: "t", Partition: p.Partition},
				&kmsg.FetchResponseTopicPartition{RecordBatches: p.Records, HighWatermark: 1 << 62}, kgo.DefaultDecompressor(), nil)
			for _, r := range fp.Records {
				have[r.Offset] = true
			}
			for _, a := range p.AcquiredRecords {
				for o := a.FirstOffset; o <= a.LastOffset; o++ {
					if !have[o] {
						t.Fatalf("offset %d is acquired but not in the records sent", o)
					}
				}
				out = append(out, fmt.Sprintf("%d-%d:%d", a.FirstOffset, a.LastOffset, a.DeliveryCount))
			}
		}
	}
	return out
}

func ackCodes(resp *kmsg.ShareAcknowledgeResponse) []int16 {
	var out []int16
	for _, rt := range resp.Topics {
		for _, p := range rt.Partitions {
			out = append(out, p.ErrorCode)
		}
	}
	return out
}

func sameStrings(a, b []string) bool { return fmt.Sprint(a) == fmt.Sprint(b) }

// TestShareFetchAcknowledge: records are acquired once, accepted once,
// released ones come back with delivery count 2, rejected ones never
// again, a record released at the delivery limit is archived, and a
// closed session's records go to another member.
func TestShareFetchAcknowledge(t *testing.T) {
	b := karsttest.Start(t, karsttest.WithConfig("group.share.delivery.count.limit", "2"))
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	h := newShareHarness(t, ctx, b.Addr(), "share-ack", 1, 10)

	resp := h.fetch("m1", 0, 5*time.Second)
	if got := acquired(t, resp); !sameStrings(got, []string{"0-9:1"}) {
		t.Fatalf("first fetch acquired %v", got)
	}
	if resp.AcquisitionLockTimeoutMillis != 30000 {
		t.Fatalf("AcquisitionLockTimeoutMillis %d", resp.AcquisitionLockTimeoutMillis)
	}
	// A second member finds nothing while m1 holds every record.
	if got := acquired(t, h.fetch("m2", 0, 0)); len(got) != 0 {
		t.Fatalf("m2 acquired %v while m1 holds every record", got)
	}
	codes := ackCodes(h.ack("m1", 1, ackBatch(0, 3, ackAccept), ackBatch(4, 5, ackRelease), ackBatch(6, 6, ackReject)))
	if fmt.Sprint(codes) != "[0]" {
		t.Fatalf("acknowledge: %v", codes)
	}
	// Accepted once: a second accept is INVALID_RECORD_STATE.
	if codes := ackCodes(h.ack("m1", 2, ackBatch(0, 0, ackAccept))); fmt.Sprint(codes) != fmt.Sprint([]int16{kerr.InvalidRecordState.Code}) {
		t.Fatalf("second accept: %v", codes)
	}
	// The released records come back to m2 with delivery count 2; the
	// rejected one and those m1 still holds do not.
	if got := acquired(t, h.fetch("m2", 1, 5*time.Second)); !sameStrings(got, []string{"4-5:2"}) {
		t.Fatalf("m2 acquired %v, want the released 4-5", got)
	}
	// At the delivery limit (2), releasing archives: 4-5 never come back.
	resp = h.fetch("m2", 2, 0, fetchAck(4, 5, ackRelease))
	for _, rt := range resp.Topics {
		for _, p := range rt.Partitions {
			if p.AcknowledgeErrorCode != 0 {
				t.Fatalf("piggybacked acknowledgement: %v", kerr.ErrorForCode(p.AcknowledgeErrorCode))
			}
		}
	}
	if got := acquired(t, resp); len(got) != 0 {
		t.Fatalf("records at the delivery limit came back: %v", got)
	}
	// Closing m1's session (-1) releases 7-9, which m1 still holds; m2's
	// long poll is woken by the release.
	waiting := h.fetchAsync("m2", 3, 20*time.Second)
	if resp := h.fetch("m1", -1, 0); resp.ErrorCode != 0 {
		t.Fatalf("closing the session: %v", kerr.ErrorForCode(resp.ErrorCode))
	}
	if got := acquired(t, h.await(waiting)); !sameStrings(got, []string{"7-9:2"}) {
		t.Fatalf("after m1 closed its session m2 acquired %v", got)
	}
	// An append wakes a long poll too; only the new records are there.
	waiting = h.fetchAsync("m3", 0, 20*time.Second)
	h.produce(10, 2)
	if got := acquired(t, h.await(waiting)); !sameStrings(got, []string{"10-11:1"}) {
		t.Fatalf("m3 acquired %v, want only the new 10-11", got)
	}
}

// TestShareLockExpiry: records whose acquisition lock expires go to
// another member with their delivery count raised, and the member that
// held them can no longer acknowledge them.
func TestShareLockExpiry(t *testing.T) {
	b := karsttest.Start(t, karsttest.WithConfig("group.share.record.lock.duration.ms", "1000"))
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	h := newShareHarness(t, ctx, b.Addr(), "share-expiry", 1, 3)
	if got := acquired(t, h.fetch("m1", 0, 5*time.Second)); !sameStrings(got, []string{"0-2:1"}) {
		t.Fatalf("m1 acquired %v", got)
	}
	// m2's long poll is woken when m1's lock expires.
	deadline := time.Now().Add(30 * time.Second)
	epoch := int32(0)
	var got []string
	for len(got) == 0 && time.Now().Before(deadline) {
		got = acquired(t, h.fetch("m2", epoch, 5*time.Second))
		epoch++
	}
	if !sameStrings(got, []string{"0-2:2"}) {
		t.Fatalf("after m1's lock expired m2 acquired %v", got)
	}
	if codes := ackCodes(h.ack("m1", 1, ackBatch(0, 2, ackAccept))); fmt.Sprint(codes) != fmt.Sprint([]int16{kerr.InvalidRecordState.Code}) {
		t.Fatalf("m1 acknowledging after its lock expired: %v", codes)
	}
}

// TestShareConnectionCloseReleases: closing the connection that opened a
// share session closes the session and releases its acquired records at
// once, as Kafka 4.1+ does, long before their lock would expire. (That a
// session reopened on another connection outlives the first one's close
// is share.TestSessionOwner's.)
func TestShareConnectionCloseReleases(t *testing.T) {
	b := karsttest.Start(t, karsttest.WithConfig("group.share.record.lock.duration.ms", "600000"))
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	h := newShareHarness(t, ctx, b.Addr(), "share-conn-close", 1, 3)

	conn := dialKafka(t, b.Addr())
	req := h.fetchRequest("m1", 0, 5*time.Second)
	req.Version = 1
	first := conn.roundTrip(t, req).(*kmsg.ShareFetchResponse)
	if got := acquired(t, first); !sameStrings(got, []string{"0-2:1"}) {
		t.Fatalf("m1 acquired %v", got)
	}
	// m2's long poll waits while m1 holds every record; the close of
	// m1's connection is what wakes it.
	waiting := h.fetchAsync("m2", 0, 30*time.Second)
	conn.nc.Close()
	if got := acquired(t, h.await(waiting)); !sameStrings(got, []string{"0-2:2"}) {
		t.Fatalf("after m1's connection closed m2 acquired %v", got)
	}
	if code := h.ack("m1", 1, ackBatch(0, 2, ackAccept)).ErrorCode; code != kerr.ShareSessionNotFound.Code {
		t.Fatalf("m1's session after its connection closed: %v", kerr.ErrorForCode(code))
	}

}

// TestShareSessionErrors: the share session errors Kafka answers.
func TestShareSessionErrors(t *testing.T) {
	b := karsttest.Start(t, karsttest.WithConfig("group.share.max.share.sessions", "2"))
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	h := newShareHarness(t, ctx, b.Addr(), "share-sessions", 1, 3)

	if resp := h.fetch("a", 0, 0, fetchAck(0, 0, ackAccept)); resp.ErrorCode != kerr.InvalidRequest.Code {
		t.Fatalf("epoch 0 with acknowledgements: %v", kerr.ErrorForCode(resp.ErrorCode))
	}
	if resp := h.fetch("a", 3, 0); resp.ErrorCode != kerr.ShareSessionNotFound.Code {
		t.Fatalf("no session: %v", kerr.ErrorForCode(resp.ErrorCode))
	}
	if got := acquired(t, h.fetch("a", 0, time.Second)); !sameStrings(got, []string{"0-2:1"}) {
		t.Fatalf("a acquired %v", got)
	}
	if resp := h.fetch("a", 5, 0); resp.ErrorCode != kerr.InvalidShareSessionEpoch.Code {
		t.Fatalf("wrong epoch: %v", kerr.ErrorForCode(resp.ErrorCode))
	}
	if resp := h.ack("a", 0, ackBatch(0, 0, ackAccept)); resp.ErrorCode != kerr.InvalidShareSessionEpoch.Code {
		t.Fatalf("ShareAcknowledge at epoch 0: %v", kerr.ErrorForCode(resp.ErrorCode))
	}
	// The refused requests did not move the epoch: 1 is still next.
	if codes := ackCodes(h.ack("a", 1, ackBatch(0, 2, ackAccept))); fmt.Sprint(codes) != "[0]" {
		t.Fatalf("acknowledge at epoch 1: %v", codes)
	}
	if resp := h.fetch("b", 0, 0); resp.ErrorCode != 0 {
		t.Fatalf("second session: %v", kerr.ErrorForCode(resp.ErrorCode))
	}
	if resp := h.fetch("c", 0, 0); resp.ErrorCode != kerr.ShareSessionLimitReached.Code {
		t.Fatalf("third session with a limit of 2: %v", kerr.ErrorForCode(resp.ErrorCode))
	}
	if resp := h.ack("b", -1, ackBatch(0, 0, ackAccept)); resp.ErrorCode != 0 {
		t.Fatalf("closing b: %v", kerr.ErrorForCode(resp.ErrorCode))
	}
	if resp := h.ack("b", -1, ackBatch(0, 0, ackAccept)); resp.ErrorCode != kerr.ShareSessionNotFound.Code {
		t.Fatalf("closing b twice: %v", kerr.ErrorForCode(resp.ErrorCode))
	}
	if resp := h.fetch("c", 0, 0); resp.ErrorCode != 0 {
		t.Fatalf("a session once one closed: %v", kerr.ErrorForCode(resp.ErrorCode))
	}
}

// TestShareStateSurvivesRestart: acknowledgements answered before a clean
// restart are kept; what was only acquired is delivered again.
func TestShareStateSurvivesRestart(t *testing.T) {
	dir := t.TempDir()
	b := karsttest.Start(t, karsttest.WithConfig("log.dirs", dir))
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	h := newShareHarness(t, ctx, b.Addr(), "share-restart", 1, 10)
	if got := acquired(t, h.fetch("m1", 0, 5*time.Second)); !sameStrings(got, []string{"0-9:1"}) {
		t.Fatalf("acquired %v", got)
	}
	if codes := ackCodes(h.ack("m1", 1, ackBatch(0, 4, ackAccept), ackBatch(6, 6, ackReject))); fmt.Sprint(codes) != "[0]" {
		t.Fatalf("acknowledge: %v", codes)
	}
	h.cl.Close()
	if err := b.Stop(); err != nil {
		t.Fatal(err)
	}
	b = karsttest.Start(t, karsttest.WithConfig("log.dirs", dir))
	cl, err := kgo.NewClient(kgo.SeedBrokers(b.Addr()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	h.cl = cl
	// 5 and 7-9 were acquired, never acknowledged: the close of m1's
	// connection (at the latest when the broker stopped, which waits for
	// its connections before the share coordinator) released them
	// durably, so they come again with delivery count 2.
	if got := acquired(t, h.fetch("m2", 0, 5*time.Second)); !sameStrings(got, []string{"5-5:2", "7-9:2"}) {
		t.Fatalf("after the restart acquired %v", got)
	}
}

// acquiredOffsets lists every offset a response acquired.
func acquiredOffsets(resp *kmsg.ShareFetchResponse) []int64 {
	var out []int64
	for _, rt := range resp.Topics {
		for _, p := range rt.Partitions {
			for _, a := range p.AcquiredRecords {
				for o := a.FirstOffset; o <= a.LastOffset; o++ {
					out = append(out, o)
				}
			}
		}
	}
	return out
}

// TestShareSIGKILLKeepsAnsweredAcknowledgements kills the broker with
// SIGKILL after acknowledgements were answered, again and again: an
// offset whose accept was answered is never delivered again, the others
// are, and in the end every record is accepted exactly once.
func TestShareSIGKILLKeepsAnsweredAcknowledgements(t *testing.T) {
	if testing.Short() {
		t.Skip("kills and restarts a broker process")
	}
	k := startKarstProcess(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	const records, kills = 60, 4
	h := newShareHarness(t, ctx, k.addr, "share-kill", 1, records)
	accepted := map[int64]int{}
	for round := 0; ; round++ {
		offsets := acquiredOffsets(h.fetch(fmt.Sprintf("m%d", round), 0, 5*time.Second))
		for _, o := range offsets {
			if accepted[o] > 0 {
				t.Fatalf("round %d: offset %d was delivered again after its accept was answered", round, o)
			}
		}
		if round == kills {
			// Once the broker is left alone, accept all that is left.
			var batches []kmsg.ShareAcknowledgeRequestTopicPartitionAcknowledgementBatch
			for _, o := range offsets {
				batches = append(batches, ackBatch(o, o, ackAccept))
			}
			if codes := ackCodes(h.ack(fmt.Sprintf("m%d", round), 1, batches...)); fmt.Sprint(codes) != "[0]" {
				t.Fatalf("final accept: %v", codes)
			}
			for _, o := range offsets {
				accepted[o]++
			}
			break
		}
		// Accept a third of what was acquired, one acknowledgement per
		// offset, then kill the broker before anything else.
		for i, o := range offsets {
			if i%3 != 0 {
				continue
			}
			if codes := ackCodes(h.ack(fmt.Sprintf("m%d", round), int32(1+i/3), ackBatch(o, o, ackAccept))); fmt.Sprint(codes) == "[0]" {
				accepted[o]++
			} else {
				t.Fatalf("round %d: accepting %d: %v", round, o, codes)
			}
		}
		k.kill()
		k.start()
		cl, err := kgo.NewClient(kgo.SeedBrokers(k.addr))
		if err != nil {
			t.Fatal(err)
		}
		h.cl.Close()
		h.cl = cl
	}
	for o := range int64(records) {
		if accepted[o] != 1 {
			t.Errorf("offset %d accepted %d times", o, accepted[o])
		}
	}
}

// TestShareGroupStateAPIs: the share coordinator's APIs over
// __share_group_state, and the state ShareAcknowledge left there.
func TestShareGroupStateAPIs(t *testing.T) {
	b := karsttest.Start(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	h := newShareHarness(t, ctx, b.Addr(), "share-state", 1, 5)
	if got := acquired(t, h.fetch("m1", 0, 5*time.Second)); !sameStrings(got, []string{"0-4:1"}) {
		t.Fatalf("acquired %v", got)
	}
	if codes := ackCodes(h.ack("m1", 1, ackBatch(0, 1, ackAccept), ackBatch(3, 3, ackReject))); fmt.Sprint(codes) != "[0]" {
		t.Fatalf("acknowledge: %v", codes)
	}
	read := func(group string, topicID [16]byte) kmsg.ReadShareGroupStateResponseTopicPartition {
		t.Helper()
		req := kmsg.NewPtrReadShareGroupStateRequest()
		req.GroupID = group
		rt := kmsg.NewReadShareGroupStateRequestTopic()
		rt.TopicID = topicID
		rp := kmsg.NewReadShareGroupStateRequestTopicPartition()
		rp.LeaderEpoch = -1
		rt.Partitions = append(rt.Partitions, rp)
		req.Topics = append(req.Topics, rt)
		resp, err := req.RequestWith(ctx, h.broker())
		if err != nil {
			t.Fatal(err)
		}
		return resp.Topics[0].Partitions[0]
	}
	p := read(h.group, h.id)
	if p.ErrorCode != 0 || p.StartOffset != 2 || len(p.StateBatches) != 1 || p.StateBatches[0].FirstOffset != 3 ||
		p.StateBatches[0].LastOffset != 3 || p.StateBatches[0].DeliveryState != 4 || p.StateBatches[0].DeliveryCount != 1 {
		t.Fatalf("ReadShareGroupState after the acknowledgements: %+v", p)
	}
	other := [16]byte{7}
	if p := read("other", other); p.ErrorCode != kerr.UnknownTopicOrPartition.Code {
		t.Fatalf("reading a share-partition with no state: %v", kerr.ErrorForCode(p.ErrorCode))
	}
	init := kmsg.NewPtrInitializeShareGroupStateRequest()
	init.GroupID = "other"
	it := kmsg.NewInitializeShareGroupStateRequestTopic()
	it.TopicID = other
	ip := kmsg.NewInitializeShareGroupStateRequestTopicPartition()
	ip.StateEpoch, ip.StartOffset = 3, 100
	it.Partitions = append(it.Partitions, ip)
	init.Topics = append(init.Topics, it)
	if resp, err := init.RequestWith(ctx, h.broker()); err != nil || resp.Topics[0].Partitions[0].ErrorCode != 0 {
		t.Fatalf("InitializeShareGroupState: %+v %v", resp, err)
	}
	write := kmsg.NewPtrWriteShareGroupStateRequest()
	write.GroupID = "other"
	wt := kmsg.NewWriteShareGroupStateRequestTopic()
	wt.TopicID = other
	wp := kmsg.NewWriteShareGroupStateRequestTopicPartition()
	wp.StateEpoch, wp.LeaderEpoch, wp.StartOffset = 2, 0, 105
	wt.Partitions = append(wt.Partitions, wp)
	write.Topics = append(write.Topics, wt)
	if resp, err := write.RequestWith(ctx, h.broker()); err != nil || resp.Topics[0].Partitions[0].ErrorCode != kerr.FencedStateEpoch.Code {
		t.Fatalf("WriteShareGroupState with a stale state epoch: %+v %v", resp, err)
	}
	write.Topics[0].Partitions[0].StateEpoch = 3
	if resp, err := write.RequestWith(ctx, h.broker()); err != nil || resp.Topics[0].Partitions[0].ErrorCode != 0 {
		t.Fatalf("WriteShareGroupState: %+v %v", resp, err)
	}
	summary := kmsg.NewPtrReadShareGroupStateSummaryRequest()
	summary.GroupID = "other"
	st := kmsg.NewReadShareGroupStateSummaryRequestTopic()
	st.TopicID = other
	sp := kmsg.NewReadShareGroupStateSummaryRequestTopicPartition()
	sp.LeaderEpoch = -1
	st.Partitions = append(st.Partitions, sp)
	summary.Topics = append(summary.Topics, st)
	if resp, err := summary.RequestWith(ctx, h.broker()); err != nil || resp.Topics[0].Partitions[0].StartOffset != 105 || resp.Topics[0].Partitions[0].StateEpoch != 3 {
		t.Fatalf("ReadShareGroupStateSummary: %+v %v", resp, err)
	}
	del := kmsg.NewPtrDeleteShareGroupStateRequest()
	del.GroupID = "other"
	dt := kmsg.NewDeleteShareGroupStateRequestTopic()
	dt.TopicID = other
	dt.Partitions = append(dt.Partitions, kmsg.NewDeleteShareGroupStateRequestTopicPartition())
	del.Topics = append(del.Topics, dt)
	if resp, err := del.RequestWith(ctx, h.broker()); err != nil || resp.Topics[0].Partitions[0].ErrorCode != 0 {
		t.Fatalf("DeleteShareGroupState: %+v %v", resp, err)
	}
	if p := read("other", other); p.ErrorCode != kerr.UnknownTopicOrPartition.Code {
		t.Fatalf("reading a deleted share-partition: %v", kerr.ErrorForCode(p.ErrorCode))
	}
}

// TestShareReadCommitted: a share group with share.isolation.level
// read_committed is given committed records only, never past the last
// stable offset; aborted ones (and the markers) are archived unseen.
func TestShareReadCommitted(t *testing.T) {
	b := karsttest.Start(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	h := newShareHarness(t, ctx, b.Addr(), "share-txn", 1, 2) // offsets 0-1
	h.setGroupConfig("share.isolation.level", "read_committed")
	txn, err := kgo.NewClient(kgo.SeedBrokers(b.Addr()), kgo.DefaultProduceTopic(h.topic), kgo.TransactionalID("share-txn"))
	if err != nil {
		t.Fatal(err)
	}
	defer txn.Close()
	transaction := func(values []string, commit kgo.TransactionEndTry) {
		t.Helper()
		if err := txn.BeginTransaction(); err != nil {
			t.Fatal(err)
		}
		for _, v := range values {
			if err := txn.ProduceSync(ctx, &kgo.Record{Partition: 0, Value: []byte(v)}).FirstErr(); err != nil {
				t.Fatal(err)
			}
		}
		if err := txn.EndTransaction(ctx, commit); err != nil {
			t.Fatal(err)
		}
	}
	transaction([]string{"aborted-2", "aborted-3"}, kgo.TryAbort)      // 2-3, marker 4
	transaction([]string{"committed-5", "committed-6"}, kgo.TryCommit) // 5-6, marker 7
	// An open transaction holds the last stable offset at 8.
	if err := txn.BeginTransaction(); err != nil {
		t.Fatal(err)
	}
	if err := txn.ProduceSync(ctx, &kgo.Record{Partition: 0, Value: []byte("open-8")}).FirstErr(); err != nil {
		t.Fatal(err)
	}
	if got := acquired(t, h.fetch("m1", 0, time.Second)); !sameStrings(got, []string{"0-1:1", "5-6:1"}) {
		t.Fatalf("read_committed acquired %v", got)
	}
	if err := txn.EndTransaction(ctx, kgo.TryCommit); err != nil {
		t.Fatal(err)
	}
	if got := acquired(t, h.fetch("m1", 1, 5*time.Second)); !sameStrings(got, []string{"8-8:1"}) {
		t.Fatalf("after the commit acquired %v", got)
	}
}

// TestShareFetchV2Modes: v2's record-limit acquire mode takes exactly
// MaxRecords, BatchSize splits the acquired ranges, and a ShareFetch with
// Renew acknowledgements (KIP-1222) renews without acquiring (the lock's
// restart is tested with a manual clock in internal/share).
func TestShareFetchV2Modes(t *testing.T) {
	b := karsttest.Start(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	h := newShareHarness(t, ctx, b.Addr(), "share-v2", 1, 10)
	fetch := func(member string, epoch, maxRecords, batchSize int32, mode int8, renew bool, acks ...kmsg.ShareFetchRequestTopicPartitionAcknowledgementBatch) *kmsg.ShareFetchResponse {
		t.Helper()
		req := h.fetchRequest(member, epoch, 2*time.Second, acks...)
		req.Version = 2
		req.MaxRecords, req.BatchSize = maxRecords, batchSize
		req.ShareAcquireMode, req.IsRenewAck = mode, renew
		resp, err := req.RequestWith(ctx, h.broker())
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
	// The ten records were produced as one batch: record-limit takes
	// exactly 3, batch-optimized the rest of the batch whole.
	if got := acquired(t, fetch("strict", 0, 3, 500, 1, false)); !sameStrings(got, []string{"0-2:1"}) {
		t.Fatalf("record-limit acquired %v", got)
	}
	if got := acquired(t, fetch("batch", 0, 3, 2, 0, false)); !sameStrings(got, []string{"3-4:1", "5-6:1", "7-8:1", "9-9:1"}) {
		t.Fatalf("batch-optimized with BatchSize 2 acquired %v", got)
	}
	renew := kmsg.NewShareFetchRequestTopicPartitionAcknowledgementBatch()
	renew.FirstOffset, renew.LastOffset, renew.AcknowledgeTypes = 0, 2, []int8{4}
	// Renew without IsRenewAck is a malformed acknowledgement.
	if code := fetch("strict", 1, 3, 500, 1, false, renew).Topics[0].Partitions[0].AcknowledgeErrorCode; code != kerr.InvalidRequest.Code {
		t.Fatalf("renew without IsRenewAck: %v", kerr.ErrorForCode(code))
	}
	resp := fetch("strict", 2, 3, 500, 1, true, renew)
	if code := resp.Topics[0].Partitions[0].AcknowledgeErrorCode; code != 0 {
		t.Fatalf("renew: %v", kerr.ErrorForCode(code))
	}
	if got := acquired(t, resp); len(got) != 0 {
		t.Fatalf("a renewing ShareFetch acquired %v", got)
	}
	if codes := ackCodes(h.ack("strict", 3, ackBatch(0, 2, ackAccept))); fmt.Sprint(codes) != "[0]" {
		t.Fatalf("accepting the renewed records: %v", codes)
	}
}

// TestShareFetchV1: a client that speaks ShareFetch and ShareAcknowledge
// v1 (Kafka 4.1's share consumer) is served the same.
func TestShareFetchV1(t *testing.T) {
	b := karsttest.Start(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	h := newShareHarness(t, ctx, b.Addr(), "share-v1", 1, 4)
	versions := kversion.Stable()
	versions.SetMaxKeyVersion(78, 1)
	versions.SetMaxKeyVersion(79, 1)
	cl, err := kgo.NewClient(kgo.SeedBrokers(b.Addr()), kgo.MaxVersions(versions))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	h.cl = cl
	var v1 int16 = -1
	h.onFetch = func(resp *kmsg.ShareFetchResponse) { v1 = resp.Version }
	if got := acquired(t, h.fetch("m1", 0, 5*time.Second)); !sameStrings(got, []string{"0-3:1"}) {
		t.Fatalf("v1 acquired %v", got)
	}
	if v1 != 1 {
		t.Fatalf("answered at version %d", v1)
	}
	resp := h.ack("m1", 1, ackBatch(0, 1, ackAccept), ackBatch(2, 3, ackRelease))
	if resp.Version != 1 || fmt.Sprint(ackCodes(resp)) != "[0]" {
		t.Fatalf("v1 acknowledge: version %d, %v", resp.Version, ackCodes(resp))
	}
	if got := acquired(t, h.fetch("m1", 2, 5*time.Second)); !sameStrings(got, []string{"2-3:2"}) {
		t.Fatalf("v1 after the release acquired %v", got)
	}
}

// TestShareFetchMinBytes: a ShareFetch waits until MinBytes of records
// lie past the fetch offset, as Kafka's DelayedShareFetch does, rather
// than answering with the first record; when MaxWait ends short of
// MinBytes it acquires what there is.
func TestShareFetchMinBytes(t *testing.T) {
	b := karsttest.Start(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	h := newShareHarness(t, ctx, b.Addr(), "share-min-bytes", 1, 1)
	const minBytes = 4000
	// "warm" holds r000, so that the share-partition is loaded and m1
	// finds nothing to acquire when it arrives.
	if got := acquired(t, h.fetch("warm", 0, 0)); !sameStrings(got, []string{"0-0:1"}) {
		t.Fatalf("warm acquired %v", got)
	}
	// MaxWait far past the test's deadline: only MinBytes can end it.
	req := h.fetchRequest("m1", 0, time.Hour)
	req.MinBytes = minBytes
	answer := h.sendAsync(req)
	// m1's session exists once its request is in the broker: from then
	// on an acknowledgement by m1 (epoch 1, nothing acknowledged) is
	// answered, on a connection of its own.
	probe := dialKafka(t, b.Addr())
	for {
		ack := kmsg.NewPtrShareAcknowledgeRequest()
		ack.Version = 1
		member := "m1"
		ack.GroupID, ack.MemberID, ack.ShareSessionEpoch = &h.group, &member, 1
		code := probe.roundTrip(t, ack).(*kmsg.ShareAcknowledgeResponse).ErrorCode
		if code == 0 {
			break
		}
		if code != kerr.ShareSessionNotFound.Code || ctx.Err() != nil {
			t.Fatalf("waiting for m1's session: %v %v", kerr.ErrorForCode(code), ctx.Err())
		}
	}
	// Random values, so that the log holds at least their bytes whatever
	// the client's compression.
	rng := rand.New(rand.NewPCG(1, 2))
	value := make([]byte, 1000)
	for produced := 0; produced*len(value) < minBytes; produced++ {
		for i := range value {
			value[i] = byte(rng.Uint32())
		}
		if err := h.cl.ProduceSync(ctx, &kgo.Record{Partition: 0, Value: value}).FirstErr(); err != nil {
			t.Fatal(err)
		}
	}
	resp := h.await(answer)
	got := acquired(t, resp)
	bytes := 0
	for _, rt := range resp.Topics {
		for _, p := range rt.Partitions {
			bytes += len(p.Records)
		}
	}
	if bytes < minBytes || len(got) == 0 || got[0][:2] != "1-" {
		t.Fatalf("ShareFetch with MinBytes %d answered %d bytes, acquired %v", minBytes, bytes, got)
	}

	// m2 asks for more than will come: MaxWait ends the wait, and the
	// one record there is acquired then.
	h.produce(1000, 1)
	short := h.fetchRequest("m2", 0, 200*time.Millisecond)
	short.MinBytes = 1 << 20
	r2, err := short.RequestWith(ctx, h.broker())
	if err != nil {
		t.Fatal(err)
	}
	if got := acquired(t, r2); len(got) != 1 || got[0][len(got[0])-2:] != ":1" {
		t.Fatalf("at MaxWait m2 acquired %v", got)
	}
}
