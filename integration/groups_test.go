package integration

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/IBM/sarama"
	segkafka "github.com/segmentio/kafka-go"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/karst-broker/karst/karsttest"
)

// startGroupBroker starts a broker whose first rebalances do not wait
// group.initial.rebalance.delay.ms.
func startGroupBroker(t *testing.T) *karsttest.Broker {
	return karsttest.Start(t, karsttest.WithConfig("group.initial.rebalance.delay.ms", "0"))
}

// eventually waits, polling, until cond holds or ctx ends.
func eventually(t *testing.T, ctx context.Context, what string, cond func() bool) {
	t.Helper()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for !cond() {
		select {
		case <-ctx.Done():
			t.Fatalf("timed out waiting until %s", what)
		case <-tick.C:
		}
	}
}

// produceValues writes n records with values "0".."n-1", spread over the
// topic's partitions.
func produceValues(t *testing.T, ctx context.Context, addr, topic string, n int) {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(addr), kgo.DefaultProduceTopic(topic), kgo.RecordPartitioner(kgo.RoundRobinPartitioner()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	recs := make([]*kgo.Record, n)
	for i := range recs {
		recs[i] = &kgo.Record{Value: []byte(strconv.Itoa(i))}
	}
	if err := cl.ProduceSync(ctx, recs...).FirstErr(); err != nil {
		t.Fatal(err)
	}
}

// groupMember is a franz-go group consumer that tracks what it owns.
type groupMember struct {
	cl   *kgo.Client
	mu   sync.Mutex
	owns map[int32]bool
	done chan struct{}
}

func (m *groupMember) owned() []int32 {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []int32
	for p := range m.owns {
		out = append(out, p)
	}
	slices.Sort(out)
	return out
}

func startMember(t *testing.T, addr, group, topic string, balancer kgo.GroupBalancer) *groupMember {
	t.Helper()
	return startGroupMember(t, addr, group, topic,
		kgo.Balancers(balancer), kgo.HeartbeatInterval(200*time.Millisecond), kgo.SessionTimeout(6*time.Second))
}

// startGroupMember starts a franz-go group consumer with opts that tracks
// what it owns through its assignment callbacks and polls until closed.
func startGroupMember(t *testing.T, addr, group, topic string, opts ...kgo.Opt) *groupMember {
	t.Helper()
	m := &groupMember{owns: map[int32]bool{}, done: make(chan struct{})}
	update := func(ps map[string][]int32, own bool) {
		m.mu.Lock()
		defer m.mu.Unlock()
		for _, p := range ps[topic] {
			if own {
				m.owns[p] = true
			} else {
				delete(m.owns, p)
			}
		}
	}
	opts = append([]kgo.Opt{kgo.SeedBrokers(addr), kgo.ConsumerGroup(group), kgo.ConsumeTopics(topic),
		kgo.OnPartitionsAssigned(func(_ context.Context, _ *kgo.Client, ps map[string][]int32) { update(ps, true) }),
		kgo.OnPartitionsRevoked(func(_ context.Context, _ *kgo.Client, ps map[string][]int32) { update(ps, false) }),
		kgo.OnPartitionsLost(func(_ context.Context, _ *kgo.Client, ps map[string][]int32) { update(ps, false) })}, opts...)
	cl, err := kgo.NewClient(opts...)
	if err != nil {
		t.Fatal(err)
	}
	m.cl = cl
	go func() {
		defer close(m.done)
		for {
			if fs := cl.PollFetches(context.Background()); fs.IsClientClosed() {
				return
			}
		}
	}()
	return m
}

func (m *groupMember) close() {
	m.cl.Close() // leaves the group
	<-m.done
}

// splitExactly reports whether the members own every partition in
// [0, n) exactly once between them, with no member empty-handed.
func splitExactly(members []*groupMember, n int32) bool {
	seen := map[int32]int{}
	for _, m := range members {
		o := m.owned()
		if len(o) == 0 {
			return false
		}
		for _, p := range o {
			seen[p]++
		}
	}
	if int32(len(seen)) != n {
		return false
	}
	for _, c := range seen {
		if c != 1 {
			return false
		}
	}
	return true
}

func TestFranzGoGroupsSplitPartitionsAndRebalanceOnLeave(t *testing.T) {
	b := startGroupBroker(t)
	for _, bal := range []struct {
		name     string
		balancer kgo.GroupBalancer
	}{{"range", kgo.RangeBalancer()}, {"cooperative-sticky", kgo.CooperativeStickyBalancer()}} {
		t.Run(bal.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			topic, group := "split-"+bal.name, "group-"+bal.name
			adm := newAdmin(t, b.Addr())
			if _, err := adm.CreateTopic(ctx, 6, 1, nil, topic); err != nil {
				t.Fatal(err)
			}
			members := []*groupMember{
				startMember(t, b.Addr(), group, topic, bal.balancer),
				startMember(t, b.Addr(), group, topic, bal.balancer),
				startMember(t, b.Addr(), group, topic, bal.balancer),
			}
			defer func() {
				for _, m := range members {
					m.close()
				}
			}()
			eventually(t, ctx, "3 members split 6 partitions", func() bool { return splitExactly(members, 6) })
			eventually(t, ctx, "the group is described stable with 3 members", func() bool {
				described, err := adm.DescribeGroups(ctx, group)
				if err != nil {
					return false
				}
				d := described[group]
				return d.State == "Stable" && len(d.Members) == 3 && d.Protocol == bal.name
			})

			leaving := members[0]
			leaving.close()
			members = members[1:]
			eventually(t, ctx, "2 members take over all 6 partitions", func() bool { return splitExactly(members, 6) })

			listed, err := adm.ListGroups(ctx)
			if err != nil || !slices.Contains(listed.Groups(), group) {
				t.Fatalf("list groups: %v %v", listed.Groups(), err)
			}
		})
	}
}

func newAdmin(t *testing.T, addr string) *kadm.Client {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(addr))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	return kadm.NewClient(cl)
}

// consumeCommitted reads with a group consumer, committing what it read,
// until it has want records or ctx ends; it returns the values read.
func consumeCommitted(t *testing.T, ctx context.Context, addr, group, topic string, want int) []string {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(addr), kgo.ConsumerGroup(group), kgo.ConsumeTopics(topic),
		kgo.DisableAutoCommit(), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()), kgo.FetchMaxPartitionBytes(200))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	var got []string
	for len(got) < want {
		fs := cl.PollRecords(ctx, want-len(got))
		if ctx.Err() != nil {
			t.Fatalf("read %d of %d records", len(got), want)
		}
		var recs []*kgo.Record
		fs.EachRecord(func(r *kgo.Record) {
			got = append(got, string(r.Value))
			recs = append(recs, r)
		})
		if err := cl.CommitRecords(ctx, recs...); err != nil {
			t.Fatalf("commit: %v", err)
		}
	}
	return got
}

func TestCommittedOffsetsSurviveRestart(t *testing.T) {
	if testing.Short() {
		t.Skip("restarts a broker process")
	}
	k := &karstProcess{t: t, bin: buildKarst(t), dir: filepath.Join(t.TempDir(), "data"), addr: "127.0.0.1:" + strconv.Itoa(freePort(t))}
	k.start()
	defer func() { k.kill() }()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	const topic, group, total = "resume", "resumers", 100
	adm := newAdmin(t, k.addr)
	if _, err := adm.CreateTopic(ctx, 3, 1, nil, topic); err != nil {
		t.Fatal(err)
	}
	produceValues(t, ctx, k.addr, topic, total)
	first := consumeCommitted(t, ctx, k.addr, group, topic, 60)
	committed, err := adm.FetchOffsets(ctx, group)
	if err != nil {
		t.Fatal(err)
	}
	before := committed.Offsets()

	// SIGKILL: an acknowledged commit must already be on disk.
	k.kill()
	k.start()
	adm = newAdmin(t, k.addr)
	after, err := adm.FetchOffsets(ctx, group)
	if err != nil {
		t.Fatal(err)
	}
	for tp, o := range before[topic] {
		if got, ok := after.Lookup(topic, tp); !ok || got.At != o.At {
			t.Fatalf("partition %d: committed %d before restart, %v after", tp, o.At, got)
		}
	}
	second := consumeCommitted(t, ctx, k.addr, group, topic, total-len(first))
	seen := map[string]bool{}
	for _, v := range append(first, second...) {
		if seen[v] {
			t.Fatalf("record %s read twice", v)
		}
		seen[v] = true
	}
	if len(seen) != total {
		t.Fatalf("read %d distinct records of %d", len(seen), total)
	}
	described, err := adm.DescribeGroups(ctx, group)
	if err != nil || described[group].State != "Empty" {
		t.Fatalf("after the consumer left: %+v %v", described[group], err)
	}
	wantGroupOperations(t, described[group].AuthorizedOperations)
	deleted, err := adm.DeleteGroups(ctx, group)
	if err != nil || deleted[group].Err != nil {
		t.Fatalf("delete group: %+v %v", deleted, err)
	}
}

// saramaHandler collects values until want distinct ones arrived.
type saramaHandler struct {
	mu   sync.Mutex
	seen map[string]bool
	want int
	full chan struct{}
}

func (h *saramaHandler) Setup(sarama.ConsumerGroupSession) error   { return nil }
func (h *saramaHandler) Cleanup(sarama.ConsumerGroupSession) error { return nil }
func (h *saramaHandler) ConsumeClaim(s sarama.ConsumerGroupSession, c sarama.ConsumerGroupClaim) error {
	for m := range c.Messages() {
		h.mu.Lock()
		h.seen[string(m.Value)] = true
		if len(h.seen) == h.want {
			close(h.full)
		}
		h.mu.Unlock()
		s.MarkMessage(m, "")
	}
	return nil
}

func TestSaramaConsumerGroupConsumesTopic(t *testing.T) {
	b := startGroupBroker(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	const topic, total = "sarama-group", 60
	if _, err := newAdmin(t, b.Addr()).CreateTopic(ctx, 3, 1, nil, topic); err != nil {
		t.Fatal(err)
	}
	produceValues(t, ctx, b.Addr(), topic, total)
	cfg := sarama.NewConfig()
	cfg.Version = sarama.V3_9_0_0
	cfg.Consumer.Offsets.Initial = sarama.OffsetOldest
	cg, err := sarama.NewConsumerGroup([]string{b.Addr()}, "sarama-group", cfg)
	if err != nil {
		t.Fatal(err)
	}
	h := &saramaHandler{seen: map[string]bool{}, want: total, full: make(chan struct{})}
	consumeCtx, stop := context.WithCancel(ctx)
	errc := make(chan error, 1)
	go func() {
		for consumeCtx.Err() == nil {
			if err := cg.Consume(consumeCtx, []string{topic}, h); err != nil {
				errc <- err
				return
			}
		}
		errc <- nil
	}()
	select {
	case <-h.full:
	case <-ctx.Done():
		t.Fatalf("sarama read %d of %d records", len(h.seen), total)
	}
	stop()
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
	if err := cg.Close(); err != nil {
		t.Fatal(err)
	}
	offsets, err := newAdmin(t, b.Addr()).FetchOffsets(ctx, "sarama-group")
	if err != nil {
		t.Fatal(err)
	}
	var sum int64
	offsets.Each(func(o kadm.OffsetResponse) { sum += o.At })
	if sum != total {
		t.Fatalf("sarama committed %d records in all, want %d", sum, total)
	}
}

func TestKafkaGoReaderWithGroupConsumesTopic(t *testing.T) {
	b := startGroupBroker(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	const topic, total = "kafkago-group", 60
	if _, err := newAdmin(t, b.Addr()).CreateTopic(ctx, 3, 1, nil, topic); err != nil {
		t.Fatal(err)
	}
	produceValues(t, ctx, b.Addr(), topic, total)
	rd := segkafka.NewReader(segkafka.ReaderConfig{Brokers: []string{b.Addr()}, GroupID: "kafkago-group", Topic: topic,
		MaxWait: 100 * time.Millisecond, StartOffset: segkafka.FirstOffset, HeartbeatInterval: 500 * time.Millisecond,
		CommitInterval: 0})
	defer rd.Close()
	seen := map[string]bool{}
	for len(seen) < total {
		m, err := rd.ReadMessage(ctx) // commits as it reads
		if err != nil {
			t.Fatalf("after %d records: %v", len(seen), err)
		}
		seen[string(m.Value)] = true
	}
	for i := range total {
		if !seen[fmt.Sprint(i)] {
			t.Fatalf("record %d not read", i)
		}
	}
}

// wantGroupOperations: with no authorizer, Kafka 4.4 allows every
// operation a group has, group configs' included (3400).
func wantGroupOperations(t *testing.T, ops []kadm.ACLOperation) {
	t.Helper()
	want := []kadm.ACLOperation{kmsg.ACLOperationRead, kmsg.ACLOperationDelete, kmsg.ACLOperationDescribe,
		kmsg.ACLOperationDescribeConfigs, kmsg.ACLOperationAlterConfigs}
	if !slices.Equal(ops, want) {
		t.Fatalf("group authorized operations %v, want %v", ops, want)
	}
}
