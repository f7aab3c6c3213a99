package integration

import (
	"bufio"
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// TestKillCyclesLoseNoAcknowledgedRecord kills the broker with SIGKILL
// KARST_KILL_CYCLES times (default 50; scripts/soak-kill.sh runs 1,000) on
// one data directory that grows from cycle to cycle. In each cycle an
// acks=all producer without idempotence, an idempotent one and a
// transactional one write to a topic with 1 MiB segments (Kafka's least
// segment.bytes, so it rolls every second or so) and to one with the
// default 1 GiB, and a topic is created; the kill falls at a random moment
// of the produce, as a new segment appears, or (one cycle in four) a second
// time while the restarted broker is still starting. After each restart,
// before anything is written again, every topic whose creation succeeded
// must exist and no partition may end before an acknowledged offset; then
// what was written since the last check (everything, every
// KARST_KILL_FULL_CHECK_EVERY cycles and at the end) is read with
// read_committed: each acknowledged record at the offset its produce
// response gave, with its value, every committed transaction whole, none of
// an aborted one, and a transaction the kill left undecided all or nothing.
// A record of the producer without idempotence may also appear a second
// time (a retry); none may be lost. Each restart must be ready within a
// minute; the times are logged. KARST_KILL_MAX_SECONDS (default 3600) ends
// the run early, after a full check. KARST_KILL_SEED repeats a run's choices;
// KARST_KILL_LOG keeps the broker's log at that path; KARST_KILL_DATA_DIR
// puts the data directory there (it must not exist) and keeps it, for a
// look at a failed run.
func TestKillCyclesLoseNoAcknowledgedRecord(t *testing.T) {
	if testing.Short() {
		t.Skip("kills and restarts a broker process")
	}
	cycles := envInt(t, "KARST_KILL_CYCLES", 50)
	fullEvery := envInt(t, "KARST_KILL_FULL_CHECK_EVERY", 10)
	budget := time.Duration(envInt(t, "KARST_KILL_MAX_SECONDS", 3600)) * time.Second
	seed := envInt(t, "KARST_KILL_SEED", int(time.Now().UnixNano()%1e9))
	t.Logf("KARST_KILL_SEED=%d", seed)
	rng := rand.New(rand.NewPCG(uint64(seed), 0))

	dataDir := filepath.Join(t.TempDir(), "data")
	if keep := os.Getenv("KARST_KILL_DATA_DIR"); keep != "" {
		if _, err := os.Stat(keep); err == nil {
			t.Fatalf("KARST_KILL_DATA_DIR %s exists", keep)
		}
		dataDir = keep
	}
	k := &karstProcess{t: t, bin: buildKarst(t), dir: dataDir, addr: "127.0.0.1:" + strconv.Itoa(freePort(t))}
	if keep := os.Getenv("KARST_KILL_LOG"); keep != "" {
		t.Cleanup(func() {
			if b, err := os.ReadFile(k.logPath()); err == nil {
				os.WriteFile(keep, b, 0o644)
			}
		})
	}
	k.start()
	defer func() { k.kill() }()
	topics := []killCycleTopic{{"small-segments", 2}, {"large-segments", 2}}
	createKillCycleTopics(t, k.addr, topics)

	ledger := newKillLedger()
	verifier := &killVerifier{addr: k.addr, topics: topics, ledger: ledger}
	var stats killCycleStats
	lastListen := 100 * time.Millisecond
	stopAt := time.Now().Add(budget)
	for cycle := range int32(cycles) {
		if time.Now().After(stopAt) {
			t.Logf("KARST_KILL_MAX_SECONDS reached: stopping after %d of %d cycles", cycle, cycles)
			cycles = int(cycle)
			break
		}
		producers, err := startCycleProducers(k.addr, cycle, rng.Uint64(), topics, ledger)
		if err != nil {
			t.Fatal(err)
		}
		var creating sync.WaitGroup
		creating.Add(1)
		createAfter := time.Duration(rng.IntN(800)) * time.Millisecond
		go func() {
			defer creating.Done()
			createTopicUntilKilled(k.addr, "created-"+strconv.Itoa(int(cycle)), createAfter, ledger)
		}()
		if rng.IntN(3) == 0 {
			stats.rollWaits++
			if waitForRoll(filepath.Join(k.dir, topics[0].name), topics[0].partitions, 3*time.Second) {
				stats.atRoll++
			}
		} else {
			time.Sleep(time.Duration(100+rng.IntN(1100)) * time.Millisecond)
		}
		k.kill()
		producers.stop()
		creating.Wait()
		ledger.settleOpenTxns()

		if rng.IntN(4) == 0 {
			k.launch()
			time.Sleep(time.Duration(rng.Int64N(int64(lastListen) * 3 / 2)))
			k.kill()
			stats.duringStartup++
		}
		began := time.Now()
		k.launch()
		k.waitListening(time.Minute)
		lastListen = time.Since(began)
		stats.listen = append(stats.listen, lastListen)
		ctx, cancel := context.WithDeadline(context.Background(), began.Add(time.Minute))
		if err := waitReady(ctx, k.addr, ledger); err != nil {
			t.Fatalf("cycle %d: broker not ready a minute after its start: %v", cycle, err)
		}
		stats.ready = append(stats.ready, time.Since(began))
		cancel()

		full := (int(cycle)+1)%fullEvery == 0 || int(cycle) == cycles-1 || time.Now().After(stopAt)
		// A full check rereads the whole log, which grows with the run:
		// it is bounded by the read's stall limit more than by this.
		checkFor := 2 * time.Minute
		if full {
			checkFor = 30 * time.Minute
		}
		ctx, cancel = context.WithTimeout(context.Background(), checkFor)
		problems := verifier.check(ctx, full)
		cancel()
		if len(problems) > 0 {
			for _, p := range problems {
				t.Error(p)
			}
			t.Fatalf("cycle %d of %d (seed %d): %d problems; broker log lines on truncation:\n%s",
				cycle, cycles, seed, len(problems), strings.Join(truncationLines(k.logPath()), "\n"))
		}
	}
	trunc := truncationLines(k.logPath())
	errorLevel := 0
	for _, l := range trunc {
		if strings.Contains(l, "level=ERROR") {
			errorLevel++
		}
	}
	committed, aborted := ledger.txnOutcomes()
	t.Logf("kill cycles: %d (%d of them also during startup, %d of %d waits for a new segment saw one); acknowledged records: %d, found in place %d times, lost 0; "+
		"transactions committed %d, aborted %d; topics created %d; truncations logged %d (%d at ERROR)",
		cycles, stats.duringStartup, stats.atRoll, stats.rollWaits, ledger.ackedRecs, verifier.checked, committed, aborted, len(ledger.topics), len(trunc), errorLevel)
	for _, tp := range topics {
		segments, _ := filepath.Glob(filepath.Join(k.dir, tp.name+"-*", "*.log"))
		var bytes int64
		for _, f := range segments {
			if st, err := os.Stat(f); err == nil {
				bytes += st.Size()
			}
		}
		t.Logf("%s: %d segments, %d bytes over %d partitions", tp.name, len(segments), bytes, tp.partitions)
	}
	t.Logf("restart to listening: %s", summarize(stats.listen))
	t.Logf("restart to ready (metadata of every topic with a leader): %s", summarize(stats.ready))
	if errorLevel > 0 {
		t.Errorf("the broker cut fsynced bytes below a recovery point:\n%s", strings.Join(trunc, "\n"))
	}
}

type killCycleStats struct {
	duringStartup, rollWaits, atRoll int
	listen, ready                    []time.Duration
}

func envInt(t *testing.T, name string, def int) int {
	t.Helper()
	s := os.Getenv(name)
	if s == "" {
		return def
	}
	n, err := strconv.Atoi(s)
	if err != nil || n <= 0 {
		t.Fatalf("%s=%q: want a positive integer", name, s)
	}
	return n
}

func createKillCycleTopics(t *testing.T, addr string, topics []killCycleTopic) {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(addr))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	small := "1048576"
	for i, tp := range topics {
		var configs map[string]*string
		if i == 0 {
			configs = map[string]*string{"segment.bytes": &small}
		}
		if _, err := kadm.NewClient(cl).CreateTopic(ctx, tp.partitions, 1, configs, tp.name); err != nil {
			t.Fatal(err)
		}
	}
}

// createTopicUntilKilled creates a topic after delay; the ledger keeps it
// if the broker acknowledged the creation before it was killed.
func createTopicUntilKilled(addr, name string, delay time.Duration, ledger *killLedger) {
	time.Sleep(delay)
	cl, err := kgo.NewClient(kgo.SeedBrokers(addr), kgo.RetryTimeout(5*time.Second))
	if err != nil {
		return
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if resp, err := kadm.NewClient(cl).CreateTopic(ctx, 1, 1, nil, name); err == nil && resp.Err == nil {
		ledger.topicCreated(name, 1)
	}
}

// waitForRoll returns true as soon as a partition of the topic has one
// segment more than when it was called, false if none had after limit.
func waitForRoll(topicPrefix string, partitions int32, limit time.Duration) bool {
	count := func() int {
		n := 0
		for p := range partitions {
			files, _ := filepath.Glob(topicPrefix + "-" + strconv.Itoa(int(p)) + "/*.log")
			n += len(files)
		}
		return n
	}
	before := count()
	for deadline := time.Now().Add(limit); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		if count() > before {
			return true
		}
	}
	return false
}

// waitReady waits until metadata lists every topic created so far, each
// partition with a leader.
func waitReady(ctx context.Context, addr string, ledger *killLedger) error {
	cl, err := kgo.NewClient(kgo.SeedBrokers(addr))
	if err != nil {
		return err
	}
	defer cl.Close()
	adm := kadm.NewClient(cl)
	ledger.mu.Lock()
	want := len(ledger.topics)
	ledger.mu.Unlock()
	for {
		listed, err := adm.ListTopics(ctx)
		if err == nil {
			ready := 0
			for _, d := range listed {
				if d.Err != nil {
					continue
				}
				led := true
				for _, p := range d.Partitions {
					led = led && p.Err == nil && p.Leader >= 0
				}
				if led && strings.HasPrefix(d.Topic, "created-") {
					ready++
				}
			}
			if ready >= want {
				return nil
			}
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// truncationLines are the broker's log lines about truncating a log.
func truncationLines(path string) []string {
	f, err := os.Open(path)
	if err != nil {
		return []string{err.Error()}
	}
	defer f.Close()
	var lines []string
	s := bufio.NewScanner(f)
	s.Buffer(make([]byte, 1<<20), 1<<20)
	for s.Scan() {
		if strings.Contains(s.Text(), "truncat") {
			lines = append(lines, s.Text())
		}
	}
	return lines
}

func summarize(ds []time.Duration) string {
	s := slices.Clone(ds)
	slices.Sort(s)
	at := func(q float64) time.Duration { return s[int(q*float64(len(s)-1))].Round(time.Millisecond) }
	return "min " + at(0).String() + ", median " + at(0.5).String() + ", p90 " + at(0.9).String() +
		", p99 " + at(0.99).String() + ", max " + at(1).String() + " over " + strconv.Itoa(len(s)) + " restarts"
}
