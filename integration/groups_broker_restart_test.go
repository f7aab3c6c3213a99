package integration

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// TestGroupsContinueAcrossBrokerSIGKILL keeps two members of every client
// and protocol running while the broker is SIGKILLed and started again on
// the same data directory. Every record read before the kill was committed
// then, so afterwards none may be read again (a lost commit, or a member
// sent back to an older offset, would show), the records produced after the
// restart are all read, once (classic members are restored with their
// generation: see classicMembersSurviveBrokerRestart), and each
// group settles again with one owner per partition. The variants run side
// by side, each in its own group.
func TestGroupsContinueAcrossBrokerSIGKILL(t *testing.T) {
	if testing.Short() {
		t.Skip("kills and restarts a broker process")
	}
	k := &karstProcess{t: t, bin: withOverrides(t, buildKarst(t), churnBrokerConfig),
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
		spec.SessionTimeoutMs = 3000
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

	k.kill()
	k.start()
	step("broker SIGKILLed and started again")
	cl.Close()
	if cl, err = kgo.NewClient(kgo.SeedBrokers(k.addr)); err != nil {
		t.Fatal(err)
	}
	adm = newAdmin(t, k.addr)
	for _, r := range runs {
		r.all = append(r.all, produceTagged(t, ctx, k.addr, r.spec.Topic, "after", perPhase)...)
	}
	settled("every group stable again, every record after the restart consumed and committed")
	for _, r := range runs {
		var redeliverable func(string) bool
		if r.v.protocol == "classic" && (!classicMembersSurviveBrokerRestart || r.v.rejoinsAfterOutage) {
			redeliverable = func(v string) bool { return strings.HasPrefix(v, "after-") }
		}
		checkConsumedOnce(t, r.v, r.ledger, r.all, "", redeliverable)
		leaveAll(t, ctx, r.members...)
	}
}

// classicMembersSurviveBrokerRestart says whether the broker restores a
// classic group's members (and their generation) from __consumer_offsets
// at start, as Kafka does (GroupMetadataManager.onLoaded reschedules each
// loaded member's heartbeat). Karst does (internal/group/load_classic.go):
// running members carry on with their member id and generation, so no
// record read after the restart is read again, unless the client rejoins
// on its own (groupVariant.rejoinsAfterOutage). Set to false, a redelivery
// of records produced after the restart would be tolerated for classic
// groups (and logged); records committed before the kill must never come
// back either way.
const classicMembersSurviveBrokerRestart = true

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
