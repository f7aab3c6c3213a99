package integration

import (
	"context"
	"encoding/binary"
	"errors"
	"io"
	"math/rand/v2"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
	"github.com/twmb/franz-go/pkg/kversion"
	"github.com/twmb/franz-go/pkg/sasl/plain"

	"github.com/karst-broker/karst/internal/record"
	"github.com/karst-broker/karst/karsttest"
)

// Client quotas, enforced: the tests set quotas with kadm.AlterClientQuotas
// and check what the broker reports (throttle_time_ms through franz-go's
// throttle hook) and what it accounts (its quota series on /metrics).
// They assert nothing on wall-clock speed except lower bounds on how long a
// muted connection waits, which load cannot break.

// quotaWindows makes the quota windows 2 × 1 s (Kafka's default is 11 × 1
// s), so that a quota bites after about a second's worth of bytes rather
// than ten.
var quotaWindows = []karsttest.Option{
	karsttest.WithConfig("quota.window.num", "2"),
	karsttest.WithConfig("karst.metrics.listener", "127.0.0.1:0"),
}

// throttleHook counts the throttles a franz-go client was told of.
type throttleHook struct {
	mu    sync.Mutex
	count int
	total time.Duration
}

func (h *throttleHook) OnBrokerThrottle(_ kgo.BrokerMetadata, d time.Duration, _ bool) {
	if d <= 0 {
		return
	}
	h.mu.Lock()
	h.count++
	h.total += d
	h.mu.Unlock()
}

func (h *throttleHook) get() (int, time.Duration) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.count, h.total
}

// setClientQuota sets key=value on client-id entity id.
func setClientQuota(t testing.TB, ctx context.Context, adm *kadm.Client, id, key string, value float64) {
	t.Helper()
	resp, err := adm.AlterClientQuotas(ctx, []kadm.AlterClientQuotaEntry{{
		Entity: []kadm.ClientQuotaEntityComponent{{Type: "client-id", Name: &id}},
		Ops:    []kadm.AlterClientQuotaOp{{Key: key, Value: value}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range resp {
		if r.Err != nil {
			t.Fatalf("AlterClientQuotas: %v %s", r.Err, r.ErrMessage)
		}
	}
}

// incompressible returns n random bytes, so that what franz-go compresses
// is as large as what the test counts.
func incompressible(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(rand.Uint32())
	}
	return b
}

func quotaClient(t *testing.T, b *karsttest.Broker, clientID string, hook *throttleHook, opts ...kgo.Opt) *kgo.Client {
	t.Helper()
	opts = append([]kgo.Opt{kgo.SeedBrokers(b.Addr()), kgo.ClientID(clientID), kgo.WithHooks(hook)}, opts...)
	cl, err := kgo.NewClient(opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	return cl
}

// TestProducerByteRateIsEnforced: a producer with producer_byte_rate is
// told to back off (throttle_time_ms > 0), the broker's byte-rate
// accounting for it stays near the quota, and the throttle times it was
// given add up to what its bytes over the quota need; a producer with
// another client id and no quota is never throttled.
func TestProducerByteRateIsEnforced(t *testing.T) {
	const (
		rate    = 50_000 // bytes per second
		records = 30
		size    = 10_000
	)
	b, _, adm := adminClient(t, quotaWindows...)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	createAdminTopic(t, ctx, adm, "quota-produce", 1)
	setClientQuota(t, ctx, adm, "slow-producer", "producer_byte_rate", rate)

	produce := func(cl *kgo.Client) {
		value := incompressible(size)
		for i := range records {
			r := &kgo.Record{Topic: "quota-produce", Value: value}
			if err := cl.ProduceSync(ctx, r).FirstErr(); err != nil {
				t.Fatalf("record %d: %v", i, err)
			}
		}
	}
	var slowHook, freeHook throttleHook
	slow := quotaClient(t, b, "slow-producer", &slowHook, kgo.ProducerLinger(0))
	produce(slow)
	body := scrapeMetrics(t, ctx, b.MetricsURL())
	measured := metricValue(body, "kafka_server_produce_byte_rate", `client_id="slow-producer"`)

	n, total := slowHook.get()
	if n == 0 {
		t.Fatal("a producer over its producer_byte_rate was never throttled")
	}
	// 300 kB at 50 kB/s with about one window (50 kB) free: about 5 s of
	// throttling. Less than half of that would let it run at more than
	// twice its quota once the client honours it.
	if need := time.Duration(float64(records*size-rate)/rate*float64(time.Second)) / 2; total < need {
		t.Fatalf("throttled %d times for %v in all, want at least %v", n, total, need)
	}
	// The broker measures each request against the quota as Kafka does:
	// after a throttle the rate is back at the quota, and one request of
	// ~10 kB over 1 s windows adds at most ~10 kB/s.
	if measured <= 0 || measured > rate*1.5 {
		t.Fatalf("kafka_server_produce_byte_rate for slow-producer = %v, want (0, %v]", measured, rate*1.5)
	}
	if v := metricValue(body, "kafka_server_produce_throttle_time", `client_id="slow-producer"`); v <= 0 {
		t.Fatalf("kafka_server_produce_throttle_time = %v, want > 0", v)
	}
	if v := metricValue(body, "kafka_server_produce_throttled_responses_total"); v < float64(n) {
		t.Fatalf("throttled responses counted %v, client saw %d", v, n)
	}
	t.Logf("slow-producer: %d throttles, %v in all; broker byte-rate %.0f B/s against %d", n, total, measured, rate)

	free := quotaClient(t, b, "free-producer", &freeHook, kgo.ProducerLinger(0))
	produce(free)
	if n, total := freeHook.get(); n != 0 {
		t.Fatalf("a client id with no quota was throttled %d times (%v)", n, total)
	}
}

// TestConsumerByteRateIsEnforced: a consumer with consumer_byte_rate gets
// every record, in order, while being throttled; a throttled fetch is
// answered empty and its bytes are not counted (Kafka's
// unrecordQuotaSensor), so the broker's byte-rate for it never passes the
// quota.
func TestConsumerByteRateIsEnforced(t *testing.T) {
	const (
		rate    = 50_000
		records = 30
		size    = 10_000
	)
	b, cl, adm := adminClient(t, quotaWindows...)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	createAdminTopic(t, ctx, adm, "quota-fetch", 1)
	value := incompressible(size)
	for i := range records {
		if err := cl.ProduceSync(ctx, &kgo.Record{Topic: "quota-fetch", Value: value}).FirstErr(); err != nil {
			t.Fatalf("record %d: %v", i, err)
		}
	}
	setClientQuota(t, ctx, adm, "slow-consumer", "consumer_byte_rate", rate)

	var hook throttleHook
	consumer := quotaClient(t, b, "slow-consumer", &hook, kgo.ConsumeTopics("quota-fetch"),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	next := int64(0)
	maxMeasured := 0.0
	for next < records {
		fetches := consumer.PollFetches(ctx)
		if err := ctx.Err(); err != nil {
			t.Fatalf("consumed %d of %d records: %v", next, records, err)
		}
		fetches.EachRecord(func(r *kgo.Record) {
			if r.Offset != next {
				t.Fatalf("record at offset %d, want %d", r.Offset, next)
			}
			next++
		})
		body := scrapeMetrics(t, ctx, b.MetricsURL())
		maxMeasured = max(maxMeasured, metricValue(body, "kafka_server_fetch_byte_rate", `client_id="slow-consumer"`))
	}
	n, total := hook.get()
	if n == 0 {
		t.Fatal("a consumer over its consumer_byte_rate was never throttled")
	}
	// A fetch is throttled after it is counted, so on a slow machine the
	// windowed rate can pass the quota for a moment (CI saw 69,243 against
	// 50,000 under -race); twice the quota still shows it is held.
	if maxMeasured <= 0 || maxMeasured > 2*rate {
		t.Fatalf("kafka_server_fetch_byte_rate for slow-consumer peaked at %v, want (0, %d]", maxMeasured, 2*rate)
	}
	t.Logf("slow-consumer: %d throttles, %v in all; broker byte-rate peaked at %.0f B/s against %d", n, total, maxMeasured, rate)
}

// TestThrottledConnectionIsMuted sends, on a raw connection that ignores
// throttle_time_ms, a Produce far over its client id's producer_byte_rate
// and at once an ApiVersions: the Produce is answered at once with a
// throttle time, the ApiVersions only once that time has passed (the
// broker stopped reading the connection), while a second connection with
// another client id is answered in the meantime.
func TestThrottledConnectionIsMuted(t *testing.T) {
	const rate = 10_000
	b, _, adm := adminClient(t, quotaWindows...)
	ctx := testContext(t)
	createAdminTopic(t, ctx, adm, "quota-mute", 1)
	setClientQuota(t, ctx, adm, "raw-slow", "producer_byte_rate", rate)

	batch, err := record.Build(nil, record.BatchHeader{ProducerID: -1, ProducerEpoch: -1, BaseSequence: -1,
		BaseTimestamp: time.Now().UnixMilli()}, []record.Record{{Value: incompressible(60_000)}})
	if err != nil {
		t.Fatal(err)
	}
	produce := kmsg.NewPtrProduceRequest()
	produce.SetVersion(9)
	produce.Acks, produce.TimeoutMillis = 1, 10_000
	topic := kmsg.NewProduceRequestTopic()
	topic.Topic = "quota-mute"
	partition := kmsg.NewProduceRequestTopicPartition()
	partition.Records = batch
	topic.Partitions = append(topic.Partitions, partition)
	produce.Topics = append(produce.Topics, topic)

	slow, free := dialQuota(t, b.Addr()), dialQuota(t, b.Addr())
	waitsBefore := b.ThrottledWaits()
	writeRequest(t, slow, "raw-slow", 1, produce)
	body := readRequestResponse(t, slow, 1, true)
	answered := time.Now()
	resp := kmsg.NewPtrProduceResponse()
	resp.SetVersion(9)
	if err := resp.ReadFrom(body); err != nil {
		t.Fatal(err)
	}
	if code := resp.Topics[0].Partitions[0].ErrorCode; code != 0 {
		t.Fatalf("produce: %v", kerr.ErrorForCode(code))
	}
	// 60 kB over the 1 s minimum window against 10 kB/s: (60-10)/10 × 1 s.
	throttle := time.Duration(resp.ThrottleMillis) * time.Millisecond
	if throttle < 4*time.Second || throttle > 6*time.Second {
		t.Fatalf("throttle_time_ms = %d, want about 5000", resp.ThrottleMillis)
	}
	versions := kmsg.NewPtrApiVersionsRequest()
	versions.SetVersion(3)
	versions.ClientSoftwareName, versions.ClientSoftwareVersion = "karst-quota-test", "1"
	writeRequest(t, slow, "raw-slow", 2, versions)

	writeRequest(t, free, "raw-free", 1, versions)
	readRequestResponse(t, free, 1, false)
	freeAnswered := time.Now()

	readRequestResponse(t, slow, 2, false)
	muted := time.Since(answered)
	// The mute began when the Produce was handled, a little before its
	// answer was read.
	if muted < throttle-500*time.Millisecond {
		t.Fatalf("the throttled connection was answered again after %v, want at least %v", muted, throttle-500*time.Millisecond)
	}
	if !freeAnswered.Before(answered.Add(muted)) {
		t.Fatal("the other client was not answered while the throttled connection was muted")
	}
	if b.ThrottledWaits() == waitsBefore {
		t.Fatal("the broker did not count the muted connection's wait")
	}
	t.Logf("throttle %v; muted connection answered again after %v; other client answered after %v", throttle, muted, freeAnswered.Sub(answered))
}

func dialQuota(t *testing.T, addr string) net.Conn {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	c.SetDeadline(time.Now().Add(30 * time.Second))
	t.Cleanup(func() { c.Close() })
	return c
}

// writeRequest frames req with a request header naming clientID.
func writeRequest(t *testing.T, c net.Conn, clientID string, correlationID int32, req kmsg.Request) {
	t.Helper()
	if _, err := c.Write(frameRequest(clientID, correlationID, req)); err != nil {
		t.Fatal(err)
	}
}

// frameRequest is req framed with a request header naming clientID.
func frameRequest(clientID string, correlationID int32, req kmsg.Request) []byte {
	b := binary.BigEndian.AppendUint32(nil, 0)
	b = binary.BigEndian.AppendUint16(b, uint16(req.Key()))
	b = binary.BigEndian.AppendUint16(b, uint16(req.GetVersion()))
	b = binary.BigEndian.AppendUint32(b, uint32(correlationID))
	b = binary.BigEndian.AppendUint16(b, uint16(len(clientID)))
	b = append(b, clientID...)
	if req.IsFlexible() {
		b = append(b, 0)
	}
	b = req.AppendTo(b)
	binary.BigEndian.PutUint32(b, uint32(len(b)-4))
	return b
}

// readRequestResponse reads one response and returns its body; flexible
// says the header is v1 (flexible versions of every API but ApiVersions),
// with a tag buffer after the correlation id.
func readRequestResponse(t *testing.T, c net.Conn, correlationID int32, flexible bool) []byte {
	t.Helper()
	var size [4]byte
	if _, err := io.ReadFull(c, size[:]); err != nil {
		t.Fatal(err)
	}
	frame := make([]byte, binary.BigEndian.Uint32(size[:]))
	if _, err := io.ReadFull(c, frame); err != nil {
		t.Fatal(err)
	}
	if got := int32(binary.BigEndian.Uint32(frame)); got != correlationID {
		t.Fatalf("answer to correlation id %d, want %d", got, correlationID)
	}
	if flexible {
		return frame[5:] // no tagged fields in these answers
	}
	return frame[4:]
}

// TestControllerMutationRateIsEnforced: with controller_mutation_rate 1
// (a bucket of 11 partitions over Kafka's 11 × 1 s windows), CreateTopics
// v7 of 12 partitions is accepted and the next one is answered
// THROTTLING_QUOTA_EXCEEDED with a throttle time; CreateTopics v5, before
// KIP-599's strict versions, is accepted and throttled instead.
func TestControllerMutationRateIsEnforced(t *testing.T) {
	_, cl, adm := adminClient(t)
	ctx := testContext(t)
	for _, id := range []string{"mutator", "old-mutator"} {
		setClientQuota(t, ctx, adm, id, "controller_mutation_rate", 1)
	}
	seeds := cl.OptValue(kgo.SeedBrokers).([]string)
	create := func(cl *kgo.Client, name string, partitions int32) *kmsg.CreateTopicsResponse {
		t.Helper()
		req := kmsg.NewPtrCreateTopicsRequest()
		topic := kmsg.NewCreateTopicsRequestTopic()
		topic.Topic, topic.NumPartitions, topic.ReplicationFactor = name, partitions, 1
		req.Topics = append(req.Topics, topic)
		req.TimeoutMillis = 10_000
		resp, err := req.RequestWith(ctx, cl)
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
	strict, err := kgo.NewClient(kgo.SeedBrokers(seeds...), kgo.ClientID("mutator"))
	if err != nil {
		t.Fatal(err)
	}
	defer strict.Close()
	first := create(strict, "mutated-1", 12)
	if code := first.Topics[0].ErrorCode; code != 0 {
		t.Fatalf("first CreateTopics: %v", kerr.ErrorForCode(code))
	}
	second := create(strict, "mutated-2", 1)
	if err := kerr.ErrorForCode(second.Topics[0].ErrorCode); !errors.Is(err, kerr.ThrottlingQuotaExceeded) {
		t.Fatalf("second CreateTopics v%d: %v, want THROTTLING_QUOTA_EXCEEDED", second.GetVersion(), err)
	}
	if msg := second.Topics[0].ErrorMessage; msg == nil || *msg != "The throttling quota has been exceeded." {
		t.Fatalf("message %v", msg)
	}
	// 11 - 12 = -1 token at 1 per second.
	if second.ThrottleMillis < 500 || second.ThrottleMillis > 1000 {
		t.Fatalf("throttle_time_ms = %d, want about 1000", second.ThrottleMillis)
	}

	v5 := kversion.Stable()
	v5.SetMaxKeyVersion(19, 5)
	old, err := kgo.NewClient(kgo.SeedBrokers(seeds...), kgo.ClientID("old-mutator"), kgo.MaxVersions(v5))
	if err != nil {
		t.Fatal(err)
	}
	defer old.Close()
	permissive := create(old, "mutated-3", 12)
	if code := permissive.Topics[0].ErrorCode; code != 0 {
		t.Fatalf("CreateTopics v5: %v", kerr.ErrorForCode(code))
	}
	if permissive.GetVersion() != 5 || permissive.ThrottleMillis < 500 || permissive.ThrottleMillis > 1000 {
		t.Fatalf("CreateTopics v%d throttle_time_ms = %d, want v5 and about 1000", permissive.GetVersion(), permissive.ThrottleMillis)
	}
}

// TestRequestPercentageIsEnforced: with a request_percentage far below
// what even a Metadata request costs, the client is throttled, never for
// more than one quota window (ClientRequestQuotaManager's cap), and
// another client id is not.
func TestRequestPercentageIsEnforced(t *testing.T) {
	b, _, adm := adminClient(t, quotaWindows...)
	ctx := testContext(t)
	setClientQuota(t, ctx, adm, "busy", "request_percentage", 0.0001)
	run := func(id string, hook *throttleHook) {
		cl := quotaClient(t, b, id, hook)
		for range 3 {
			if _, err := kmsg.NewPtrMetadataRequest().RequestWith(ctx, cl); err != nil {
				t.Fatal(err)
			}
		}
	}
	var busy, idle throttleHook
	run("busy", &busy)
	n, total := busy.get()
	if n == 0 {
		t.Fatal("a client over its request_percentage was never throttled")
	}
	if total > time.Duration(n)*time.Second {
		t.Fatalf("%d throttles for %v: more than the 1 s window each", n, total)
	}
	run("idle", &idle)
	if n, _ := idle.get(); n != 0 {
		t.Fatalf("a client id with no request quota was throttled %d times", n)
	}
}

// TestUserQuotaPrecedence: SASL user alice has producer_byte_rate 50 kB/s
// and, for client id exempt-app only, 1 GB/s. The more specific
// user+client-id quota decides for exempt-app (never throttled); any other
// client id of alice falls back to her user quota (throttled), as Kafka's
// DefaultQuotaCallback resolves them.
func TestUserQuotaPrecedence(t *testing.T) {
	const (
		rate    = 50_000
		records = 20
		size    = 10_000
	)
	b := startSASLBroker(t, quotaWindows...)
	addr := b.ListenerAddr("SASL_PLAINTEXT")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	admin := kadm.NewClient(saslClient(t, addr, plain.Auth{User: "admin", Pass: "admin-secret"}.AsMechanism()))
	createAdminTopic(t, ctx, admin, "user-quota", 1)
	alice, exempt := "alice", "exempt-app"
	resp, err := admin.AlterClientQuotas(ctx, []kadm.AlterClientQuotaEntry{
		{Entity: []kadm.ClientQuotaEntityComponent{{Type: "user", Name: &alice}},
			Ops: []kadm.AlterClientQuotaOp{{Key: "producer_byte_rate", Value: rate}}},
		{Entity: []kadm.ClientQuotaEntityComponent{{Type: "user", Name: &alice}, {Type: "client-id", Name: &exempt}},
			Ops: []kadm.AlterClientQuotaOp{{Key: "producer_byte_rate", Value: 1e9}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range resp {
		if r.Err != nil {
			t.Fatalf("AlterClientQuotas: %v", r.Err)
		}
	}
	produce := func(clientID string) (int, time.Duration) {
		var hook throttleHook
		cl := saslClient(t, addr, plain.Auth{User: "alice", Pass: "alice-secret"}.AsMechanism(),
			kgo.ClientID(clientID), kgo.WithHooks(&hook), kgo.ProducerLinger(0))
		value := incompressible(size)
		for i := range records {
			if err := cl.ProduceSync(ctx, &kgo.Record{Topic: "user-quota", Value: value}).FirstErr(); err != nil {
				t.Fatalf("%s record %d: %v", clientID, i, err)
			}
		}
		return hook.get()
	}
	if n, total := produce("exempt-app"); n != 0 {
		t.Fatalf("alice/exempt-app throttled %d times (%v) under a 1 GB/s user+client-id quota", n, total)
	}
	n, total := produce("app")
	if n == 0 {
		t.Fatal("alice/app was not held to alice's user quota")
	}
	body := scrapeMetrics(t, ctx, b.MetricsURL())
	// With user and user+client-id quotas both set, alice/app is measured
	// by alice's user sensor (client-id tag empty), as Kafka tags it.
	if v := metricValue(body, "kafka_server_produce_throttle_time", `client_id=""`, `user="alice"`); v <= 0 {
		t.Fatalf("throttle-time of alice/app = %v, want > 0", v)
	}
	t.Logf("alice/app: %d throttles, %v in all", n, total)
}
