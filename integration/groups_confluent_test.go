package integration

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/karst-broker/karst/karsttest"
)

// confluentVariants are the group protocols confluent-kafka-go
// (librdkafka) is checked with: classic with an eager and a cooperative
// assignor, and KIP-848's consumer protocol with the broker's assignor.
var confluentVariants = []struct{ name, protocol, strategy string }{
	{"classic-range", "classic", "range"},
	{"classic-cooperative-sticky", "classic", "cooperative-sticky"},
	{"consumer", "consumer", ""},
}

// startChurnBroker starts a broker whose sessions expire within seconds
// (classic: the client asks for 3 s, which needs a lower
// group.min.session.timeout.ms; consumer protocol: the broker sets the
// session and heartbeat interval itself), so a crashed member is noticed
// quickly.
func startChurnBroker(t *testing.T) *karsttest.Broker {
	return karsttest.Start(t,
		karsttest.WithConfig("group.initial.rebalance.delay.ms", "0"),
		karsttest.WithConfig("group.min.session.timeout.ms", "1000"),
		karsttest.WithConfig("group.consumer.min.session.timeout.ms", "1000"),
		karsttest.WithConfig("group.consumer.session.timeout.ms", "3000"),
		karsttest.WithConfig("group.consumer.min.heartbeat.interval.ms", "100"),
		karsttest.WithConfig("group.consumer.heartbeat.interval.ms", "300"))
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

// TestConfluentKafkaGoGroupsChurn runs three librdkafka members over six
// partitions with each group protocol; one member leaves (Close), one
// crashes (SIGKILL, its session expires), both come back, and records are
// produced before and during every step. Once the group is stable each
// time, every partition has exactly one owner (sampled repeatedly, and the
// coordinator agrees); every record is consumed, none twice except those
// the crashed member had read but not yet committed; and every record
// ends up committed.
func TestConfluentKafkaGoGroupsChurn(t *testing.T) {
	b := startChurnBroker(t)
	for _, v := range confluentVariants {
		t.Run(v.name, func(t *testing.T) {
			ctx := deadlineCtx(t, 2*time.Minute)
			topic, group := "confluent-churn-"+v.name, "confluent-churn-"+v.name
			cl, err := kgo.NewClient(kgo.SeedBrokers(b.Addr()))
			if err != nil {
				t.Fatal(err)
			}
			defer cl.Close()
			adm := kadm.NewClient(cl)
			createAdminTopic(t, ctx, adm, topic, 6)
			spec := confluentMemberSpec{Bootstrap: b.Addr(), Group: group, Topic: topic, Protocol: v.protocol, Strategy: v.strategy,
				SessionTimeoutMs: 3000}
			ledger := newConsumeLedger()
			var all []string
			produce := func(tag string) { all = append(all, produceTagged(t, ctx, b.Addr(), topic, tag, 60)...) }
			settle := func(what string, members []*confluentMember) {
				t.Helper()
				eventually(t, ctx, what, stableFor(10, func() bool {
					return splitExactly(views(members), 6) && coordinatorSaysStable(ctx, cl, v.protocol, v.strategy, group, len(members))
				}))
			}

			produce("before")
			a := startConfluentMember(t, "a", spec, ledger)
			bm := startConfluentMember(t, "b", spec, ledger)
			c := startConfluentMember(t, "c", spec, ledger)
			produce("joining")
			settle("3 members own 2 partitions each", []*confluentMember{a, bm, c})
			for _, m := range []*confluentMember{a, bm, c} {
				if got := m.view.owned(); len(got) != 2 {
					t.Fatalf("member %s owns %v, want 2 partitions", m.name, got)
				}
			}
			waitConsumedAll(t, ctx, ledger, all)

			a.leave(t, ctx)
			produce("after-leave")
			settle("the 2 remaining members own all 6 partitions", []*confluentMember{bm, c})
			waitConsumedAll(t, ctx, ledger, all)

			bm.crash()
			produce("after-crash")
			settle("the last member owns all 6 partitions once the crashed one's session expired", []*confluentMember{c})
			waitConsumedAll(t, ctx, ledger, all)

			a2 := startConfluentMember(t, "a2", spec, ledger)
			b2 := startConfluentMember(t, "b2", spec, ledger)
			produce("rejoining")
			settle("3 members own 2 partitions each again", []*confluentMember{c, a2, b2})
			waitConsumedAll(t, ctx, ledger, all)
			produce("after")
			waitConsumedAll(t, ctx, ledger, all)

			eventually(t, ctx, "every record committed", func() bool {
				sum, err := committedTotal(ctx, adm, group, topic)
				return err == nil && sum == int64(len(all))
			})
			checkConsumedOnce(t, ledger, all, "b")
			for _, m := range []*confluentMember{c, a2, b2} {
				m.leave(t, ctx)
			}
			if sum, err := committedTotal(ctx, adm, group, topic); err != nil || sum != int64(len(all)) {
				t.Fatalf("after every member left: committed %d of %d (%v)", sum, len(all), err)
			}
		})
	}
}

// checkConsumedOnce fails unless every value of want was consumed, nothing
// else was, and a value was consumed twice only if crashed was one of its
// two consumers (it read the record but died before committing it).
func checkConsumedOnce(t *testing.T, ledger *consumeLedger, want []string, crashed string) {
	t.Helper()
	for _, v := range ledger.values() {
		if !slices.Contains(want, v) {
			t.Errorf("consumed %q, which this check does not expect: committed before, or never produced", v)
		}
	}
	redelivered := 0
	for _, v := range want {
		by := ledger.consumers(v)
		switch {
		case len(by) == 0:
			t.Errorf("record %s skipped", v)
		case len(by) == 2 && slices.Contains(by, crashed) && by[0] != by[1]:
			redelivered++
		case len(by) > 1:
			t.Errorf("record %s consumed by %v: a committed record was consumed again", v, by)
		}
	}
	if crashed != "" {
		t.Logf("%d records, %d redelivered after the crash", len(want), redelivered)
	}
}

// TestConfluentKafkaGoGroupsResumeAfterMemberAndBrokerRestart checks, for
// the classic and the consumer protocol, that a librdkafka member that
// comes back reads exactly what the group had not committed: first after
// the member itself restarted, then after the broker was SIGKILLed and
// started again on the same data directory.
func TestConfluentKafkaGoGroupsResumeAfterMemberAndBrokerRestart(t *testing.T) {
	if testing.Short() {
		t.Skip("kills and restarts a broker process")
	}
	k := &karstProcess{t: t, bin: buildKarst(t), dir: filepath.Join(t.TempDir(), "data"), addr: "127.0.0.1:" + strconv.Itoa(freePort(t))}
	k.start()
	defer func() { k.kill() }()
	ctx := deadlineCtx(t, 3*time.Minute)
	const partitions, perRound = 3, 30
	variants := []struct{ protocol, strategy string }{{"classic", "cooperative-sticky"}, {"consumer", ""}}
	specFor := func(protocol, strategy string) confluentMemberSpec {
		name := "confluent-resume-" + protocol
		return confluentMemberSpec{Bootstrap: k.addr, Group: name, Topic: name, Protocol: protocol, Strategy: strategy}
	}
	adm := newAdmin(t, k.addr)
	for _, v := range variants {
		createAdminTopic(t, ctx, adm, specFor(v.protocol, v.strategy).Topic, partitions)
	}

	// round produces perRound new records, and a new member (the previous
	// one closed) must read exactly those: nothing committed before.
	round := func(n int) {
		t.Helper()
		for _, v := range variants {
			spec := specFor(v.protocol, v.strategy)
			fresh := produceTagged(t, ctx, k.addr, spec.Topic, "round"+strconv.Itoa(n), perRound)
			ledger := newConsumeLedger()
			m := startConfluentMember(t, fmt.Sprintf("%s-%d", v.protocol, n), spec, ledger)
			waitConsumedAll(t, ctx, ledger, fresh)
			eventually(t, ctx, "the round's records committed", func() bool {
				sum, err := committedTotal(ctx, adm, spec.Group, spec.Topic)
				return err == nil && sum == int64(n*perRound)
			})
			m.leave(t, ctx)
			checkConsumedOnce(t, ledger, fresh, "")
		}
	}
	round(1)
	round(2) // the member restarted

	before := map[string]int64{}
	for _, v := range variants {
		spec := specFor(v.protocol, v.strategy)
		sum, err := committedTotal(ctx, adm, spec.Group, spec.Topic)
		if err != nil {
			t.Fatal(err)
		}
		before[spec.Group] = sum
	}
	k.kill()
	k.start()
	adm = newAdmin(t, k.addr)
	for _, v := range variants {
		spec := specFor(v.protocol, v.strategy)
		sum, err := committedTotal(ctx, adm, spec.Group, spec.Topic)
		if err != nil || sum != before[spec.Group] {
			t.Fatalf("group %s: committed %d before the broker restart, %d after (%v)", spec.Group, before[spec.Group], sum, err)
		}
	}
	round(3) // the broker restarted
}
