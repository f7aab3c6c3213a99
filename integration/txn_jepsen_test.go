package integration

// A Jepsen-style exactly-once test: consume-transform-produce workers
// (franz-go GroupTransactSession) run while the broker process is SIGKILLed
// and restarted several times; a read_committed observer and an offset
// sampler record what they were told; checkJepsen (txn_jepsen_checker_test.go)
// then judges that history against the output read back at the end. With
// KARST_TXN_AGAINST=kafka it runs against Apache Kafka (txn_helpers_test.go).

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

const (
	jepsenIn, jepsenOut, jepsenGroup = "jepsen-in", "jepsen-out", "jepsen-ctp"
	jepsenPartitions                 = 4
	jepsenRecords                    = 2000
	jepsenWorkers                    = 3
	jepsenPerTxn                     = 4 // input records per transaction at most
	// Each worker ends at most one transaction per jepsenPace, as an
	// application doing slow work per record would: without it the input
	// is processed in a second or two, before the killer has done its work.
	jepsenPace = 70 * time.Millisecond
	// jepsenTxnTimeout is the workers' transaction.timeout.ms; some
	// outages last longer.
	jepsenTxnTimeout = 3 * time.Second
)

func TestTxnJepsenConsumeTransformProduceUnderSIGKILL(t *testing.T) {
	if testing.Short() {
		t.Skip("kills and restarts a broker process")
	}
	p := startTxnProcess(t)
	ctx := deadlineCtx(t, 5*time.Minute) // Apache Kafka takes ~15 s a restart
	started := time.Now()
	adm := newAdmin(t, p.addr)
	createAdminTopic(t, ctx, adm, jepsenIn, jepsenPartitions)
	createAdminTopic(t, ctx, adm, jepsenOut, jepsenPartitions)
	in := produceJepsenInput(t, ctx, p.addr)

	h := &jepsenHistory{observed: map[int32]map[int64]string{}}
	var mu sync.Mutex // guards h
	var commits, sessionRestarts atomic.Int64

	runCtx, stopRun := context.WithCancel(ctx)
	var wg sync.WaitGroup
	defer func() { stopRun(); wg.Wait() }()
	var events jepsenEvents
	for i := range jepsenWorkers {
		w := &jepsenWorker{name: fmt.Sprintf("w%d", i), addr: p.addr, events: &events, commits: &commits, restarts: &sessionRestarts,
			acked: func(as []jepsenAck) { mu.Lock(); h.acked = append(h.acked, as...); mu.Unlock() }}
		wg.Add(1)
		go func() { defer wg.Done(); w.run(runCtx) }()
	}
	observeCtx, stopObserving := context.WithCancel(ctx)
	observerDone := make(chan struct{})
	go func() {
		defer close(observerDone)
		observeJepsenOutput(observeCtx, p.addr, &events, func(r *kgo.Record) {
			mu.Lock()
			defer mu.Unlock()
			byOffset := h.observed[r.Partition]
			if byOffset == nil {
				byOffset = map[int64]string{}
				h.observed[r.Partition] = byOffset
			}
			if old, ok := byOffset[r.Offset]; ok && old != string(r.Value) {
				h.conflicts = append(h.conflicts, fmt.Sprintf("%d/%d: %q then %q", r.Partition, r.Offset, old, r.Value))
			}
			byOffset[r.Offset] = string(r.Value)
		})
	}()
	defer func() { stopObserving(); <-observerDone }()

	// The sampler reads the group's committed offsets all through the run.
	var latest atomic.Pointer[map[int32]int64]
	wg.Add(1)
	go func() {
		defer wg.Done()
		for runCtx.Err() == nil {
			reqCtx, cancel := context.WithTimeout(runCtx, 2*time.Second)
			s, err := committedInputOffsets(reqCtx, adm)
			cancel()
			if err == nil {
				mu.Lock()
				h.samples = append(h.samples, s)
				mu.Unlock()
				latest.Store(&s)
			}
			select {
			case <-runCtx.Done():
			case <-time.After(50 * time.Millisecond):
			}
		}
	}()
	allCommitted := func() bool {
		s := latest.Load()
		if s == nil {
			return false
		}
		var n int64
		for _, c := range *s {
			n += c
		}
		return n == jepsenRecords
	}

	// The killer: each time the workers have committed again since the
	// last restart, let them run on for a random moment, then SIGKILL.
	kills := 5 + rand.IntN(4)
	var downtime time.Duration
	longOutages := 0
	killed := 0
	for killed < kills {
		base := commits.Load()
		eventually(t, ctx, fmt.Sprintf("a transaction commits after restart %d", killed), func() bool {
			return commits.Load() > base || allCommitted()
		})
		if allCommitted() {
			break
		}
		time.Sleep(time.Duration(300+rand.IntN(1200)) * time.Millisecond) // a random moment, not a wait on a condition
		// The second and fifth kills keep the broker down for longer than
		// the workers' transaction timeout: on restart the coordinator must
		// abort their open transactions itself, and the workers find their
		// producer epoch fenced and start new sessions.
		long := killed == 1 || killed == 4
		events.add("SIGKILL %d after %d commits (long outage %v)", killed+1, commits.Load(), long)
		t0 := time.Now()
		p.kill()
		if long {
			longOutages++
			time.Sleep(jepsenTxnTimeout + time.Second)
		}
		t1 := time.Now()
		p.start()
		events.add("broker back after %v (start took %v)", time.Since(t0).Round(time.Millisecond), time.Since(t1).Round(time.Millisecond))
		downtime += time.Since(t0)
		killed++
	}
	eventually(t, ctx, "the group's committed offsets reach the input's end offsets", allCommitted)
	t.Logf("input processed in %v with %d SIGKILLs (%d of them long outages; broker down/restarting %v in all), %d committed transactions",
		time.Since(started).Round(time.Millisecond), killed, longOutages, downtime.Round(time.Millisecond), commits.Load())
	if killed < 5 {
		t.Errorf("only %d SIGKILLs before the input was processed (wanted %d); the run is too short to test much", killed, kills)
	}
	stopRun()
	wg.Wait()

	// The final state, read after the workers stopped.
	finalOffsets, err := committedInputOffsets(ctx, adm)
	if err != nil {
		t.Fatalf("final committed offsets: %v", err)
	}
	waitNoOpenTxn(t, ctx, adm, jepsenOut)
	writeSentinels(t, ctx, p.addr, jepsenOut, jepsenPartitions, "final")
	f := jepsenFinal{
		committed:   readToSentinels(t, ctx, p.addr, jepsenOut, jepsenPartitions, "final", kgo.ReadCommitted()),
		uncommitted: readToSentinels(t, ctx, p.addr, jepsenOut, jepsenPartitions, "final", kgo.ReadUncommitted()),
		offsets:     finalOffsets,
	}
	select {
	case <-observerDone:
	case <-ctx.Done():
		t.Fatalf("the observer never reached the sentinels")
	}

	mu.Lock()
	defer mu.Unlock()
	aborted := len(flat(f.uncommitted)) - len(flat(f.committed))
	t.Logf("output: %d committed records, %d aborted records in the log (read_uncommitted %d); observer got %d records; %d acknowledged commits; %d offset samples; %d SIGKILLs; %d worker sessions restarted after errors; total %v",
		len(flat(f.committed)), aborted, len(flat(f.uncommitted)), observedCount(h), len(h.acked), len(h.samples), killed, sessionRestarts.Load(), time.Since(started).Round(time.Millisecond))
	if anomalies := checkJepsen(in, h, f); len(anomalies) > 0 {
		t.Errorf("%d anomalies:\n%s\nclient events:\n%s\nbroker log:\n%s", len(anomalies), strings.Join(anomalies, "\n"), events.String(), p.logTail())
	}
}

func observedCount(h *jepsenHistory) int {
	n := 0
	for _, m := range h.observed {
		n += len(m)
	}
	return n
}

// produceJepsenInput writes ids 0..jepsenRecords-1 ("in-<id>"), id i to
// partition i mod jepsenPartitions, and returns where each landed.
func produceJepsenInput(t *testing.T, ctx context.Context, addr string) jepsenInput {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(addr), kgo.DefaultProduceTopic(jepsenIn), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	rs := make([]*kgo.Record, jepsenRecords)
	for i := range rs {
		rs[i] = &kgo.Record{Partition: int32(i % jepsenPartitions), Value: []byte("in-" + strconv.Itoa(i))}
	}
	results := cl.ProduceSync(ctx, rs...)
	if err := results.FirstErr(); err != nil {
		t.Fatalf("input: %v", err)
	}
	in := jepsenInput{pos: map[int]jepsenPos{}, at: map[jepsenPos]int{}}
	for _, r := range results {
		id, _ := strconv.Atoi(strings.TrimPrefix(string(r.Record.Value), "in-"))
		pos := jepsenPos{r.Record.Partition, r.Record.Offset}
		in.pos[id], in.at[pos] = pos, id
	}
	return in
}

// committedInputOffsets is the group's committed offset of each input
// partition (absent ones count as 0).
func committedInputOffsets(ctx context.Context, adm *kadm.Client) (map[int32]int64, error) {
	resp, err := adm.FetchOffsets(ctx, jepsenGroup)
	if err == nil {
		err = resp.Error()
	}
	if err != nil {
		return nil, err
	}
	out := map[int32]int64{}
	for p := range int32(jepsenPartitions) {
		if o, ok := resp.Lookup(jepsenIn, p); ok && o.At > 0 {
			out[p] = o.At
		}
	}
	return out, nil
}

// jepsenEvents is a short timeline of what the clients went through
// (errors, session restarts, kills), printed when the check fails.
type jepsenEvents struct {
	mu    sync.Mutex
	start time.Time
	lines []string
	count map[string]int
}

func (e *jepsenEvents) add(format string, args ...any) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.start.IsZero() {
		e.start, e.count = time.Now(), map[string]int{}
	}
	line := fmt.Sprintf(format, args...)
	// Errors repeat while the broker is down; keep the first few of each.
	if e.count[line]++; e.count[line] > 3 {
		return
	}
	e.lines = append(e.lines, fmt.Sprintf("%8.3fs %s", time.Since(e.start).Seconds(), line))
}

func (e *jepsenEvents) String() string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return tail(strings.Join(e.lines, "\n"), 6000)
}

// jepsenWorker is one consume-transform-produce application instance: a
// GroupTransactSession with its own transactional id in the shared group.
// Like a real application it opens a new session whenever a transaction
// ends in an error (fenced, epoch invalid, retries exhausted).
type jepsenWorker struct {
	name     string
	addr     string
	events   *jepsenEvents
	commits  *atomic.Int64
	restarts *atomic.Int64 // sessions ended by an error
	acked    func([]jepsenAck)
}

func (w *jepsenWorker) run(ctx context.Context) {
	for session := 0; ctx.Err() == nil; session++ {
		s, err := kgo.NewGroupTransactSession(kgo.SeedBrokers(w.addr), kgo.TransactionalID("jepsen-"+w.name),
			kgo.ConsumerGroup(jepsenGroup), kgo.ConsumeTopics(jepsenIn), kgo.FetchIsolationLevel(kgo.ReadCommitted()),
			kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
			kgo.DefaultProduceTopic(jepsenOut), kgo.RecordPartitioner(kgo.ManualPartitioner()),
			kgo.SessionTimeout(6*time.Second), kgo.RebalanceTimeout(6*time.Second),
			kgo.TransactionTimeout(jepsenTxnTimeout), kgo.RetryTimeout(20*time.Second),
			// Enough retries to outlast an outage, so that a session ends
			// on what the broker answers once back, not on dial errors.
			kgo.RequestRetries(1000),
			kgoLog(fmt.Sprintf("%s.%d", w.name, session)))
		if err != nil {
			w.events.add("%s: new session: %v", w.name, err)
			return
		}
		err = w.transactUntilError(ctx, s)
		if ctx.Err() == nil {
			w.restarts.Add(1)
			w.events.add("%s: session %d ends: %v", w.name, session, err)
		}
		s.Close()
	}
}

// transactUntilError runs one transaction per poll until one fails.
func (w *jepsenWorker) transactUntilError(ctx context.Context, s *kgo.GroupTransactSession) error {
	pace := time.NewTicker(jepsenPace)
	defer pace.Stop()
	for ctx.Err() == nil {
		pollCtx, cancel := context.WithTimeout(ctx, time.Second)
		fs := s.PollRecords(pollCtx, jepsenPerTxn)
		cancel()
		for _, e := range fs.Errors() {
			if !errors.Is(e.Err, context.DeadlineExceeded) && !errors.Is(e.Err, context.Canceled) {
				w.events.add("%s: fetch %s/%d: %v", w.name, e.Topic, e.Partition, e.Err)
			}
		}
		if fs.NumRecords() == 0 {
			continue
		}
		if err := s.Begin(); err != nil {
			return fmt.Errorf("begin: %w", err)
		}
		var mu sync.Mutex
		var acks []jepsenAck
		var produceErr error
		fs.EachRecord(func(r *kgo.Record) {
			id, err := strconv.Atoi(strings.TrimPrefix(string(r.Value), "in-"))
			if err != nil {
				w.events.add("%s: unexpected input %q at %d/%d", w.name, r.Value, r.Partition, r.Offset)
				return
			}
			out := &kgo.Record{Partition: r.Partition, Value: []byte(jepsenOutputValue(id, jepsenPos{r.Partition, r.Offset}))}
			s.Produce(ctx, out, func(out *kgo.Record, err error) {
				mu.Lock()
				defer mu.Unlock()
				if err != nil {
					produceErr = err
					return
				}
				acks = append(acks, jepsenAck{worker: w.name, value: string(out.Value), out: jepsenPos{out.Partition, out.Offset}})
			})
		})
		// The transaction stays open, its records written, until the next
		// tick: most kills find transactions in this state.
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-pace.C:
		}
		// One transaction in eight is aborted on purpose, so that the log
		// holds aborted records for the observer to be wrongly given,
		// whether or not a kill happens to abort any.
		end := kgo.TryCommit
		if rand.IntN(8) == 0 {
			end = kgo.TryAbort
		}
		committed, err := s.End(ctx, end)
		if committed {
			w.commits.Add(1)
			mu.Lock()
			w.acked(acks)
			mu.Unlock()
		}
		if err != nil {
			return fmt.Errorf("end: %w", err)
		}
		if !committed && end == kgo.TryCommit {
			w.events.add("%s: transaction aborted (produce error %v)", w.name, produceErr)
		}
	}
	return ctx.Err()
}

// observeJepsenOutput consumes the output topic with read_committed from
// the start, across the kills, until it has read every partition's
// "end-final" sentinel or ctx ends.
func observeJepsenOutput(ctx context.Context, addr string, events *jepsenEvents, seen func(*kgo.Record)) {
	cl, err := kgo.NewClient(kgo.SeedBrokers(addr), kgo.ConsumeTopics(jepsenOut), kgo.FetchIsolationLevel(kgo.ReadCommitted()),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()), kgo.FetchMaxWait(200*time.Millisecond), kgoLog("observer"))
	if err != nil {
		events.add("observer: %v", err)
		return
	}
	defer cl.Close()
	sentinels := map[int32]bool{}
	for ctx.Err() == nil && len(sentinels) < jepsenPartitions {
		fs := cl.PollFetches(ctx)
		for _, e := range fs.Errors() {
			if !errors.Is(e.Err, context.Canceled) && !errors.Is(e.Err, context.DeadlineExceeded) {
				events.add("observer: fetch %s/%d: %v", e.Topic, e.Partition, e.Err)
			}
		}
		fs.EachRecord(func(r *kgo.Record) {
			seen(r)
			if string(r.Value) == "end-final" {
				sentinels[r.Partition] = true
			}
		})
	}
}
