package integration

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/karst-broker/karst/karsttest"
)

// groupVariant is one client library with one group protocol (and, for
// the classic protocol, one assignor).
type groupVariant struct {
	client, protocol, strategy string
	// staleDeliveries: the client may hand the application records it
	// fetched before its generation ended, and commits them in the next
	// one; kafka-go's Reader does (see Reader.unsubscribe), so the same
	// record can be read again from the offset committed before.
	staleDeliveries bool
	// rejoinsAfterOutage: the client rejoins its group once its
	// coordinator has been unreachable, even when the restarted broker
	// kept the member and its generation. kafka-go's Reader does: after a
	// SIGKILL and a restart of about 0.1 s its members sent JoinGroup with
	// their member ids to the Stable group ~1.1 s later, the leader's
	// rejoin started a rebalance (as in Kafka), and records they had read
	// meanwhile were read again from the committed offsets in the next
	// generation. With a restart slower than the client's retries, the
	// rejoin came before any record was read and hid this.
	rejoinsAfterOutage bool
	// commitAcksUnseen: the member cannot tell which of its commits the
	// coordinator acknowledged. sarama's ConsumerGroupSession.Commit
	// returns nothing and reports a failed commit later, on the group's
	// Errors channel.
	commitAcksUnseen bool
}

func (v groupVariant) name() string {
	if v.protocol == "consumer" {
		return v.client + "/consumer"
	}
	return v.client + "/classic-" + v.strategy
}

// spec is the child member of this variant in group over topic.
func (v groupVariant) spec(bootstrap, group, topic string) memberSpec {
	return memberSpec{Client: v.client, Bootstrap: bootstrap, Group: group, Topic: topic, Protocol: v.protocol, Strategy: v.strategy}
}

// groupVariants are every client and protocol the group tests run:
// librdkafka and franz-go with an eager and a cooperative classic
// assignor and with KIP-848's consumer protocol (the broker assigns);
// sarama's ConsumerGroup and kafka-go's Reader with a GroupID, which
// speak only the classic protocol and assign eagerly.
var groupVariants = []groupVariant{
	{client: "confluent-kafka-go", protocol: "classic", strategy: "range"},
	{client: "confluent-kafka-go", protocol: "classic", strategy: "cooperative-sticky"},
	{client: "confluent-kafka-go", protocol: "consumer"},
	{client: "franz-go", protocol: "classic", strategy: "range"},
	{client: "franz-go", protocol: "classic", strategy: "cooperative-sticky"},
	{client: "franz-go", protocol: "consumer"},
	{client: "sarama", protocol: "classic", strategy: "range", commitAcksUnseen: true},
	{client: "kafka-go", protocol: "classic", strategy: "range", staleDeliveries: true, rejoinsAfterOutage: true},
}

// startChurnBroker starts a broker whose sessions expire within seconds
// (classic: the client asks for 3 s, which needs a lower
// group.min.session.timeout.ms; consumer protocol: the broker sets the
// session and heartbeat interval itself), so a crashed member is noticed
// quickly.
func startChurnBroker(t *testing.T) *karsttest.Broker {
	var opts []karsttest.Option
	for _, kv := range churnBrokerConfig {
		opts = append(opts, karsttest.WithConfig(kv[0], kv[1]))
	}
	return karsttest.Start(t, opts...)
}

// churnBrokerConfig is the broker configuration of startChurnBroker.
var churnBrokerConfig = [][2]string{
	{"group.initial.rebalance.delay.ms", "0"},
	{"group.min.session.timeout.ms", "1000"},
	{"group.consumer.min.session.timeout.ms", "1000"},
	{"group.consumer.session.timeout.ms", "3000"},
	{"group.consumer.min.heartbeat.interval.ms", "100"},
	{"group.consumer.heartbeat.interval.ms", "300"},
}

// waitGroupStorage creates __consumer_offsets (a FindCoordinator does) and
// waits until each of its partitions answers ListOffsets. On a fresh
// broker Karst names itself coordinator before the topic's logs are open,
// and for that moment answers heartbeats while it cannot write the group's
// records, and OffsetCommit with COORDINATOR_NOT_AVAILABLE (Kafka instead
// answers FindCoordinator with COORDINATOR_NOT_AVAILABLE until the
// partition is loaded). librdkafka's KIP-848 consumer then stopped
// heartbeating long enough to lose its membership, so the tests start
// their members once the topic is ready.
func waitGroupStorage(t *testing.T, ctx context.Context, addr string) {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(addr))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	eventually(t, ctx, "__consumer_offsets ready", func() bool {
		req := kmsg.NewPtrFindCoordinatorRequest()
		req.CoordinatorKey = "karst-test-warm-up"
		resp, err := req.RequestWith(ctx, cl)
		if err != nil || resp.ErrorCode != 0 {
			return false
		}
		ends, err := kadm.NewClient(cl).ListEndOffsets(ctx, "__consumer_offsets")
		if err != nil || len(ends["__consumer_offsets"]) == 0 {
			return false
		}
		ok := true
		ends.Each(func(o kadm.ListedOffset) { ok = ok && o.Err == nil })
		return ok
	})
}

// produceTagged writes n records with values "<tag>-0".."<tag>-<n-1>",
// round robin over the topic's partitions, and returns the values.
func produceTagged(t *testing.T, ctx context.Context, addr, topic, tag string, n int) []string {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(addr), kgo.DefaultProduceTopic(topic), kgo.RecordPartitioner(kgo.RoundRobinPartitioner()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	values := make([]string, n)
	recs := make([]*kgo.Record, n)
	for i := range recs {
		values[i] = tag + "-" + strconv.Itoa(i)
		recs[i] = &kgo.Record{Value: []byte(values[i])}
	}
	if err := cl.ProduceSync(ctx, recs...).FirstErr(); err != nil {
		t.Fatal(err)
	}
	return values
}

// coordinatorSaysStable reports whether the coordinator describes group as
// Stable with exactly n members: DescribeGroups for a classic group (whose
// chosen assignor must be strategy), ConsumerGroupDescribe for a consumer
// group (where Stable also means every member reached its target).
func coordinatorSaysStable(ctx context.Context, cl *kgo.Client, protocol, strategy, group string, n int) bool {
	if protocol == "consumer" {
		req := kmsg.NewPtrConsumerGroupDescribeRequest()
		req.Groups = []string{group}
		resp, err := req.RequestWith(ctx, cl)
		return err == nil && len(resp.Groups) == 1 && resp.Groups[0].ErrorCode == 0 &&
			resp.Groups[0].State == "Stable" && len(resp.Groups[0].Members) == n
	}
	described, err := kadm.NewClient(cl).DescribeGroups(ctx, group)
	if err != nil {
		return false
	}
	d := described[group]
	return d.Err == nil && d.State == "Stable" && len(d.Members) == n && d.Protocol == strategy
}

// committedTotal sums the group's committed offsets on topic.
func committedTotal(ctx context.Context, adm *kadm.Client, group, topic string) (int64, error) {
	offs, err := adm.FetchOffsets(ctx, group)
	if err != nil {
		return 0, err
	}
	var sum int64
	for _, o := range offs[topic] {
		if o.Err != nil {
			return 0, o.Err
		}
		sum += o.At
	}
	return sum, nil
}

// checkConsumedOnce fails unless every value of want was consumed, nothing
// else was, and no value was consumed twice, with these exceptions: a
// record the crashed member had read but not committed when it died goes
// to the partition's next owner again; a client that hands out records it
// had buffered before its generation ended (v.staleDeliveries) may see
// them again from the committed offset in its next generation; and a value
// for which redeliverable says so may be consumed once more.
func checkConsumedOnce(t *testing.T, v groupVariant, ledger *consumeLedger, want []string, crashed string, redeliverable func(string) bool) {
	t.Helper()
	for _, val := range ledger.values() {
		if !slices.Contains(want, val) {
			t.Errorf("consumed %q, which this check does not expect: committed before, or never produced", val)
		}
	}
	afterCrash, stale, tolerated := 0, 0, 0
	for _, val := range want {
		ds := ledger.deliveries(val)
		byCrashed, byOthers, staleHere := 0, 0, 0
		for _, d := range ds {
			switch {
			case d.stale && v.staleDeliveries:
				staleHere++
			case d.member == crashed:
				byCrashed++
			default:
				byOthers++
			}
		}
		extra := 0
		if redeliverable != nil && redeliverable(val) {
			extra = 1
		}
		switch {
		case len(ds) == 0:
			t.Errorf("record %s skipped", val)
		case byCrashed > 1+extra || byOthers > 1+extra:
			t.Errorf("record %s consumed by %v: a committed record was consumed again", val, ds)
		case byCrashed == 1 && byOthers == 1:
			afterCrash++
		case byCrashed+byOthers > 1:
			tolerated++
		}
		if staleHere > 0 && len(ds) > 1 {
			stale++
		}
	}
	if afterCrash+stale+tolerated > 0 {
		t.Logf("%s: %d records; consumed again: %d after the crash, %d after the client delivered them outside its generation, %d tolerated otherwise",
			v.name(), len(want), afterCrash, stale, tolerated)
	}
}

// TestGroupsChurn runs, for every client and protocol, three members over
// six partitions; one member leaves (closes), one crashes (SIGKILL, its
// session expires), both come back, while a producer writes a record every
// few milliseconds and a batch arrives at each step. Once the group is
// stable each time, every partition has exactly one owner (sampled
// repeatedly, and the coordinator agrees); every record is consumed, none
// twice except those the crashed member had read but not yet committed
// (and kafka-go's stale deliveries, see groupVariant); and every record
// ends up committed.
func TestGroupsChurn(t *testing.T) {
	b := startChurnBroker(t)
	waitGroupStorage(t, deadlineCtx(t, time.Minute), b.Addr())
	for _, v := range groupVariants {
		t.Run(v.name(), func(t *testing.T) { runChurn(t, b, v) })
	}
}

func runChurn(t *testing.T, b *karsttest.Broker, v groupVariant) {
	ctx := deadlineCtx(t, 2*time.Minute)
	name := "churn-" + v.client + "-" + v.protocol + "-" + v.strategy
	topic, group := name, name
	cl, err := kgo.NewClient(kgo.SeedBrokers(b.Addr()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	adm := kadm.NewClient(cl)
	createAdminTopic(t, ctx, adm, topic, 6)
	spec := v.spec(b.Addr(), group, topic)
	spec.SessionTimeoutMs = 3000
	ledger := newConsumeLedger()
	var all []string
	produce := func(tag string) { all = append(all, produceTagged(t, ctx, b.Addr(), topic, tag, 60)...) }
	settle := func(what string, members []*childMember) {
		t.Helper()
		eventually(t, ctx, what, stableFor(10, func() bool {
			return splitExactly(views(members), 6) && coordinatorSaysStable(ctx, cl, v.protocol, v.strategy, group, len(members))
		}))
	}
	start := time.Now()
	step := func(what string) { t.Logf("%6.1fs %s", time.Since(start).Seconds(), what) }

	produce("before")
	live := startLiveProducer(t, ctx, b.Addr(), topic)
	a := startChildMember(t, "a", spec, ledger)
	bm := startChildMember(t, "b", spec, ledger)
	c := startChildMember(t, "c", spec, ledger)
	produce("joining")
	settle("3 members own 2 partitions each", []*childMember{a, bm, c})
	step("3 members stable")
	for _, m := range []*childMember{a, bm, c} {
		if got := m.view.owned(); len(got) != 2 {
			t.Fatalf("member %s owns %v, want 2 partitions", m.name, got)
		}
	}
	waitConsumedAll(t, ctx, ledger, all)

	a.leave(t, ctx)
	produce("after-leave")
	settle("the 2 remaining members own all 6 partitions", []*childMember{bm, c})
	step("a left, 2 members stable")
	waitConsumedAll(t, ctx, ledger, all)

	bm.crash()
	produce("after-crash")
	settle("the last member owns all 6 partitions once the crashed one's session expired", []*childMember{c})
	step("b crashed, 1 member stable")
	waitConsumedAll(t, ctx, ledger, all)

	a2 := startChildMember(t, "a2", spec, ledger)
	b2 := startChildMember(t, "b2", spec, ledger)
	produce("rejoining")
	settle("3 members own 2 partitions each again", []*childMember{c, a2, b2})
	step("a2 and b2 joined, 3 members stable")
	all = append(all, live.stop(t)...)
	produce("after")
	waitConsumedAll(t, ctx, ledger, all)
	step(fmt.Sprintf("%d records consumed", len(all)))

	eventually(t, ctx, "every record committed", func() bool {
		sum, err := committedTotal(ctx, adm, group, topic)
		return err == nil && sum == int64(len(all))
	})
	checkConsumedOnce(t, v, ledger, all, "b", nil)
	leaveAll(t, ctx, c, a2, b2)
	if sum, err := committedTotal(ctx, adm, group, topic); err != nil || sum != int64(len(all)) {
		t.Fatalf("after every member left: committed %d of %d (%v)", sum, len(all), err)
	}
	step("every member left")
}

// liveProducer writes records to a topic, one every few milliseconds,
// until stopped, so that members join, leave and crash while records
// arrive.
type liveProducer struct {
	cl    *kgo.Client
	mu    sync.Mutex
	acked []string
	fail  error
	quit  chan struct{}
	done  chan struct{}
}

func startLiveProducer(t *testing.T, ctx context.Context, addr, topic string) *liveProducer {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(addr), kgo.DefaultProduceTopic(topic),
		kgo.RecordPartitioner(kgo.RoundRobinPartitioner()), kgo.ProducerLinger(0))
	if err != nil {
		t.Fatal(err)
	}
	p := &liveProducer{cl: cl, quit: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(p.done)
		tick := time.NewTicker(5 * time.Millisecond)
		defer tick.Stop()
		for i := 0; ; i++ {
			select {
			case <-p.quit:
				return
			case <-ctx.Done():
				return
			case <-tick.C:
			}
			v := "live-" + strconv.Itoa(i)
			cl.Produce(ctx, &kgo.Record{Value: []byte(v)}, func(_ *kgo.Record, err error) {
				p.mu.Lock()
				defer p.mu.Unlock()
				if err != nil {
					p.fail = err
					return
				}
				p.acked = append(p.acked, v)
			})
		}
	}()
	t.Cleanup(func() { p.stopQuietly() })
	return p
}

func (p *liveProducer) stopQuietly() {
	select {
	case <-p.quit:
	default:
		close(p.quit)
	}
	<-p.done
	p.cl.Close()
}

// stop ends the production and returns every acknowledged value.
func (p *liveProducer) stop(t *testing.T) []string {
	t.Helper()
	select {
	case <-p.quit:
	default:
		close(p.quit)
	}
	<-p.done
	if err := p.cl.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.fail != nil {
		t.Fatalf("live producer: %v", p.fail)
	}
	return slices.Clone(p.acked)
}

// TestGroupsResumeAfterMemberAndBrokerRestart checks, for every client and
// protocol, that a member that comes back reads exactly what its group had
// not committed: after the previous member left, after it crashed
// (SIGKILL once its commits were acknowledged), and after the broker was
// SIGKILLed and started again on the same data directory. The variants run
// side by side, each in its own group and topic.
func TestGroupsResumeAfterMemberAndBrokerRestart(t *testing.T) {
	if testing.Short() {
		t.Skip("kills and restarts a broker process")
	}
	k := &karstProcess{t: t, bin: withOverrides(t, buildKarst(t), churnBrokerConfig),
		dir: filepath.Join(t.TempDir(), "data"), addr: "127.0.0.1:" + strconv.Itoa(freePort(t))}
	k.start()
	defer func() { k.kill() }()
	ctx := deadlineCtx(t, 3*time.Minute)
	waitGroupStorage(t, ctx, k.addr)
	const partitions, perRound = 3, 30
	specFor := func(v groupVariant) memberSpec {
		name := "resume-" + v.client + "-" + v.protocol + "-" + v.strategy
		spec := v.spec(k.addr, name, name)
		spec.SessionTimeoutMs = 3000
		return spec
	}
	adm := newAdmin(t, k.addr)
	for _, v := range groupVariants {
		createAdminTopic(t, ctx, adm, specFor(v).Topic, partitions)
	}

	// round produces perRound new records for every variant, and a new
	// member (the previous one gone) must read exactly those: nothing
	// committed before, nothing skipped. Then the member leaves, or
	// crashes once the group committed every record.
	round := func(n int, crash bool) {
		t.Helper()
		start := time.Now()
		var wg sync.WaitGroup
		failures := make(chan string, len(groupVariants))
		members := make([]*childMember, len(groupVariants))
		ledgers := make([]*consumeLedger, len(groupVariants))
		fresh := make([][]string, len(groupVariants))
		for i, v := range groupVariants {
			spec := specFor(v)
			fresh[i] = produceTagged(t, ctx, k.addr, spec.Topic, "round"+strconv.Itoa(n), perRound)
			ledgers[i] = newConsumeLedger()
			members[i] = startChildMember(t, fmt.Sprintf("%s-%d", strings.ReplaceAll(v.name(), "/", "-"), n), spec, ledgers[i])
			wg.Add(1)
			go func() {
				defer wg.Done()
				err := waitUntil(ctx, func() bool {
					sum, err := committedTotal(ctx, adm, spec.Group, spec.Topic)
					return ledgers[i].hasAll(fresh[i]) && err == nil && sum == int64(n*perRound)
				})
				if err != nil {
					sum, _ := committedTotal(ctx, adm, spec.Group, spec.Topic)
					failures <- fmt.Sprintf("%s round %d: consumed all %v, committed %d of %d", v.name(), n, ledgers[i].hasAll(fresh[i]), sum, n*perRound)
				}
			}()
		}
		wg.Wait()
		close(failures)
		for f := range failures {
			t.Error(f)
		}
		if crash {
			for _, m := range members {
				m.crash()
			}
		} else {
			leaveAll(t, ctx, members...)
		}
		for i, v := range groupVariants {
			checkConsumedOnce(t, v, ledgers[i], fresh[i], "", nil)
		}
		if t.Failed() {
			t.FailNow()
		}
		t.Logf("round %d: every variant's member read exactly its %d new records in %v", n, perRound, time.Since(start).Round(100*time.Millisecond))
	}
	round(1, false) // the first members, which leave
	round(2, true)  // after the members left; these crash
	round(3, false) // after the members crashed: these wait for the dead ones' sessions to expire

	before := map[string]int64{}
	for _, v := range groupVariants {
		spec := specFor(v)
		sum, err := committedTotal(ctx, adm, spec.Group, spec.Topic)
		if err != nil {
			t.Fatal(err)
		}
		before[spec.Group] = sum
	}
	k.kill()
	k.start()
	adm = newAdmin(t, k.addr)
	for _, v := range groupVariants {
		spec := specFor(v)
		sum, err := committedTotal(ctx, adm, spec.Group, spec.Topic)
		if err != nil || sum != before[spec.Group] {
			t.Fatalf("group %s: committed %d before the broker restart, %d after (%v)", spec.Group, before[spec.Group], sum, err)
		}
	}
	round(4, false) // after the broker restarted
}

// waitUntil polls cond until it holds or ctx ends; unlike eventually it
// may run outside the test's goroutine.
func waitUntil(ctx context.Context, cond func() bool) error {
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for !cond() {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-tick.C:
		}
	}
	return nil
}
