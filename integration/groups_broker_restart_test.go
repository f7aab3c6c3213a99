package integration

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// TestGroupsContinueAcrossBrokerSIGKILL keeps two members of every client
// and protocol running while the broker is SIGKILLed and started again on
// the same data directory. Every record read before the kill was committed
// then (OffsetFetch says so), so afterwards none may be read again (a lost
// commit, or a member sent back to an older offset, would show). The
// restarted coordinator has every group's members as before the kill (it
// restores them, as Kafka's onLoaded does), the records produced after the
// restart are all read, and none is read again after a commit past it was
// acknowledged (see checkAcknowledgedCommitsHold: a member that lost its
// membership during the outage has its commit refused, and the record goes
// to the partition's owner again, as Kafka allows). Each group settles
// again with one owner per partition. The variants run side by side, each
// in its own group.
func TestGroupsContinueAcrossBrokerSIGKILL(t *testing.T) {
	if testing.Short() {
		t.Skip("kills and restarts a broker process")
	}
	k := &karstProcess{t: t, bin: withOverrides(t, buildKarst(t), restartBrokerConfig()),
		dir: filepath.Join(t.TempDir(), "data"), addr: "127.0.0.1:" + strconv.Itoa(freePort(t))}
	k.start()
	defer func() { k.kill() }()
	ctx := deadlineCtx(t, 3*time.Minute)
	waitGroupStorage(t, ctx, k.addr)
	const partitions, perPhase = 4, 40
	start := time.Now()
	step := func(what string) { t.Logf("%6.1fs %s", time.Since(start).Seconds(), what) }

	cl, err := kgo.NewClient(kgo.SeedBrokers(k.addr))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { cl.Close() }()
	type variantRun struct {
		v       groupVariant
		spec    memberSpec
		ledger  *consumeLedger
		members []*childMember
		all     []string
	}
	runs := make([]*variantRun, len(groupVariants))
	adm := newAdmin(t, k.addr)
	for i, v := range groupVariants {
		name := "live-restart-" + v.client + "-" + v.protocol + "-" + v.strategy
		spec := v.spec(k.addr, name, name)
		spec.SessionTimeoutMs = restartSessionTimeoutMs
		createAdminTopic(t, ctx, adm, spec.Topic, partitions)
		r := &variantRun{v: v, spec: spec, ledger: newConsumeLedger()}
		r.all = produceTagged(t, ctx, k.addr, spec.Topic, "before", perPhase)
		for j := range 2 {
			r.members = append(r.members, startChildMember(t, fmt.Sprintf("%s-%d", strings.ReplaceAll(v.name(), "/", "-"), j), spec, r.ledger))
		}
		runs[i] = r
	}
	// settled: per variant, every record so far consumed and committed, and
	// the group stable with one owner per partition.
	settled := func(what string) {
		t.Helper()
		var wg sync.WaitGroup
		var mu sync.Mutex
		var late []string
		for _, r := range runs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				stable := stableFor(10, func() bool {
					return splitExactly(views(r.members), partitions) &&
						coordinatorSaysStable(ctx, cl, r.v.protocol, r.v.strategy, r.spec.Group, len(r.members))
				})
				err := waitUntil(ctx, func() bool {
					sum, err := committedTotal(ctx, adm, r.spec.Group, r.spec.Topic)
					return r.ledger.hasAll(r.all) && err == nil && sum == int64(len(r.all)) && stable()
				})
				if err != nil {
					sum, _ := committedTotal(ctx, adm, r.spec.Group, r.spec.Topic)
					mu.Lock()
					late = append(late, fmt.Sprintf("%s: consumed all %v, committed %d of %d, owned %v/%v",
						r.v.name(), r.ledger.hasAll(r.all), sum, len(r.all), r.members[0].view.owned(), r.members[1].view.owned()))
					mu.Unlock()
				}
			}()
		}
		wg.Wait()
		if len(late) > 0 {
			t.Fatalf("timed out waiting until %s:\n%s", what, strings.Join(late, "\n"))
		}
		step(what)
	}
	settled("every group stable, every record before the kill consumed and committed")
	before := make([][]string, len(runs))
	for i, r := range runs {
		if before[i], err = describedMembers(ctx, cl, r.v.protocol, r.spec.Group); err != nil {
			t.Fatal(err)
		}
	}

	k.kill()
	var restarted int
	for _, r := range runs {
		restarted = r.ledger.nextPhase()
	}
	k.start()
	step("broker SIGKILLed and started again")
	cl.Close()
	if cl, err = kgo.NewClient(kgo.SeedBrokers(k.addr)); err != nil {
		t.Fatal(err)
	}
	for i, r := range runs {
		if r.v.rejoinsAfterOutage {
			continue // its members may have rejoined already
		}
		var after []string
		if err := waitUntil(ctx, func() bool {
			after, err = describedMembers(ctx, cl, r.v.protocol, r.spec.Group)
			return err == nil
		}); err != nil {
			t.Fatalf("describing %s after the restart: %v", r.spec.Group, err)
		}
		if !slices.Equal(after, before[i]) {
			t.Errorf("%s: the restarted coordinator describes members %v, before the kill %v", r.v.name(), after, before[i])
		}
	}
	adm = newAdmin(t, k.addr)
	for _, r := range runs {
		// Members that kept their assignment read on from their own
		// positions, so a commit lost at the restart would not show as a
		// record read again; OffsetFetch shows it.
		var sum int64
		if err := waitUntil(ctx, func() bool {
			sum, err = committedTotal(ctx, adm, r.spec.Group, r.spec.Topic)
			return err == nil
		}); err != nil {
			t.Fatalf("fetching the offsets of %s after the restart: %v", r.spec.Group, err)
		}
		if sum != int64(len(r.all)) {
			t.Errorf("%s: %d offsets committed before the kill, %d after the restart", r.v.name(), len(r.all), sum)
		}
	}
	for _, r := range runs {
		r.all = append(r.all, produceTagged(t, ctx, k.addr, r.spec.Topic, "after", perPhase)...)
	}
	settled("every group stable again, every record after the restart consumed and committed")
	for _, r := range runs {
		checkAcknowledgedCommitsHold(t, r.v, r.ledger, r.all, restarted)
		leaveAll(t, ctx, r.members...)
	}
}

// restartSessionTimeoutMs is the session timeout of the members of
// TestGroupsContinueAcrossBrokerSIGKILL, both protocols. No member
// crashes there, so nothing waits for a session to lapse; it is long so
// that members keep their membership through the outage and the
// reconnection (with 3 s, on a loaded machine, librdkafka's classic
// members gave up their membership themselves, 3.0-3.5 s after their last
// heartbeat answer, and KIP-848 members were fenced 3 s after the load of
// the groups because their coordinator connection was still in its
// reconnect backoff), which the check of the members the restarted
// coordinator describes relies on.
const restartSessionTimeoutMs = 10000

// restartBrokerConfig is churnBrokerConfig with the consumer protocol's
// session timeout at restartSessionTimeoutMs.
func restartBrokerConfig() [][2]string {
	cfg := slices.Clone(churnBrokerConfig)
	for i, kv := range cfg {
		if kv[0] == "group.consumer.session.timeout.ms" {
			cfg[i][1] = strconv.Itoa(restartSessionTimeoutMs)
		}
	}
	return cfg
}

// describedMembers lists, sorted, the member ids the coordinator
// describes for group: DescribeGroups for a classic group,
// ConsumerGroupDescribe for a consumer group.
func describedMembers(ctx context.Context, cl *kgo.Client, protocol, group string) ([]string, error) {
	var ids []string
	if protocol == "consumer" {
		req := kmsg.NewPtrConsumerGroupDescribeRequest()
		req.Groups = []string{group}
		resp, err := req.RequestWith(ctx, cl)
		if err != nil {
			return nil, err
		}
		for _, g := range resp.Groups {
			if err := kerr.ErrorForCode(g.ErrorCode); err != nil {
				return nil, fmt.Errorf("describing %s: %w", group, err)
			}
			for _, m := range g.Members {
				ids = append(ids, m.MemberID)
			}
		}
	} else {
		described, err := kadm.NewClient(cl).DescribeGroups(ctx, group)
		if err != nil {
			return nil, err
		}
		if err := described[group].Err; err != nil {
			return nil, fmt.Errorf("describing %s: %w", group, err)
		}
		for _, m := range described[group].Members {
			ids = append(ids, m.MemberID)
		}
	}
	slices.Sort(ids)
	return ids, nil
}

// checkAcknowledgedCommitsHold checks what Kafka promises a consumer that
// commits synchronously: every value of want was consumed and nothing
// else was; no record is read again after a commit past it was
// acknowledged to the member that read it while that member owned the
// partition; and no record read before phase restarted (all of them
// committed, as OffsetFetch showed, before the broker was killed) is read
// in or after that phase. A record whose commit was refused, or not made
// before the member lost the partition, may be read again by the
// partition's owner: at least once, as in Kafka. A client that hands out
// records it had buffered before its generation ended
// (v.staleDeliveries) may do so on top of that; a client that does not
// tell which of its commits were acknowledged (v.commitAcksUnseen) has
// each of its reads counted as committed.
func checkAcknowledgedCommitsHold(t *testing.T, v groupVariant, ledger *consumeLedger, want []string, restarted int) {
	t.Helper()
	for _, val := range ledger.values() {
		if !slices.Contains(want, val) {
			t.Errorf("consumed %q, which this check does not expect: committed before, or never produced", val)
		}
	}
	again, stale := 0, 0
	for _, val := range want {
		ds := ledger.deliveries(val)
		if len(ds) == 0 {
			t.Errorf("record %s skipped", val)
			continue
		}
		var reads []delivery
		for _, d := range ds {
			if d.stale && v.staleDeliveries {
				stale++
				continue
			}
			reads = append(reads, d)
		}
		acked := 0
		for _, d := range reads {
			if d.acked || v.commitAcksUnseen {
				acked++
			}
		}
		switch {
		case len(reads) > 1 && reads[0].phase < restarted && reads[len(reads)-1].phase >= restarted:
			t.Errorf("record %s, committed before the broker was killed, was read again after the restart: %v", val, reads)
		case acked > 1:
			t.Errorf("record %s was read again after a commit past it was acknowledged: %v", val, reads)
		case len(reads) > 1:
			again += len(reads) - 1
		}
	}
	if again+stale > 0 {
		t.Logf("%s: %d records; read again: %d after a commit that was not acknowledged, %d outside the client's generation",
			v.name(), len(want), again, stale)
	}
}

// withOverrides returns an executable that runs bin with the broker
// configuration overrides added to its arguments, for karstProcess.
func withOverrides(t *testing.T, bin string, config [][2]string) string {
	t.Helper()
	var b strings.Builder
	b.WriteString("#!/bin/sh\nexec " + strconv.Quote(bin) + ` "$@"`)
	for _, kv := range config {
		b.WriteString(" --override " + kv[0] + "=" + kv[1])
	}
	b.WriteString("\n")
	script := filepath.Join(t.TempDir(), "karst-with-overrides")
	if err := os.WriteFile(script, []byte(b.String()), 0o755); err != nil {
		t.Fatal(err)
	}
	return script
}
