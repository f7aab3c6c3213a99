package txn

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/datadriven"
	"github.com/twmb/franz-go/pkg/kerr"

	"github.com/karst-broker/karst/internal/coordinator"
)

// TestDataDriven runs the scripts in testdata/: requests, clock moves,
// crashes and restarts, each followed by the answer, the
// __transaction_state records written and the markers sent. Commands:
//
//	init id=ID [timeout=MS] [pid=N epoch=N]  InitProducerId
//	add id=ID parts=(t-0,t-1) [pid=N epoch=N] [implicit]
//	end id=ID commit|abort [v2] [pid=N epoch=N]
//	verify id=ID parts=(...)                 KIP-890 verification
//	describe id=ID / list
//	advance d=DURATION                       the clock, and the timers due
//	completions hold|run|drop                the calls out (markers, Complete)
//	markers fail|ok                          make marker writes fail
//	markers block=TOPIC|unblock              marker writes to TOPIC wait
//	                                         until unblocked; the calls out
//	                                         run on goroutines of their own
//	logs hold|sync                           appends wait to be durable
//	                                         until sync
//	start (a request as input) / await       run a request that waits, and
//	                                         its answer once it is given
//	crash before-durable|after-durable       with one request as input: the
//	                                         broker dies once its record is
//	                                         appended, before or after fsync
//	restart                                  a clean stop and start
//
// The pid and epoch of a request default to the last ones the id was
// given. Run with -rewrite to regenerate the expected output.
func TestDataDriven(t *testing.T) {
	datadriven.Walk(t, "testdata", func(t *testing.T, path string) {
		h := newScript(t)
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			args := map[string]string{}
			for _, a := range d.CmdArgs {
				args[a.Key] = strings.Join(a.Vals, ",")
			}
			return h.run(d.Cmd, args, d.Input)
		})
	})
}

// script is the world of one test file: a coordinator over in-memory
// logs, and what it has been seen to write.
type script struct {
	*fixture
	t    *testing.T
	pes  map[string]ProducerIDAndEpoch
	seen map[int32]int
	// started are the answers of the requests started and not awaited.
	started []chan string
}

func newScript(t *testing.T) *script {
	f := newFixture(t)
	return &script{fixture: f, t: t, pes: map[string]ProducerIDAndEpoch{}, seen: map[int32]int{}}
}

func (h *script) run(cmd string, args map[string]string, input string) string {
	var out strings.Builder
	switch cmd {
	case "advance":
		d, err := time.ParseDuration(args["d"])
		if err != nil {
			h.t.Fatal(err)
		}
		h.advance(d)
	case "completions":
		switch {
		case has(args, "hold"):
			h.q.setHold(true)
		case has(args, "run"):
			h.q.setHold(false)
			h.q.run()
			h.settle()
		case has(args, "drop"):
			h.q.drop()
		}
	case "markers":
		switch {
		case has(args, "block"):
			h.markers.block(args["block"])
			h.q.setAsync(true)
		case has(args, "unblock"):
			h.markers.unblock()
			h.settleAsync()
			h.q.setAsync(false)
		default:
			h.markers.mu.Lock()
			h.markers.fail = nil
			if has(args, "fail") {
				h.markers.fail = errors.New("partition log unavailable")
			}
			h.markers.mu.Unlock()
		}
	case "logs":
		if has(args, "sync") {
			h.syncLogs()
		}
		h.holdLogs(has(args, "hold"))
	case "start":
		answered, ok := h.start(input)
		if !ok {
			fmt.Fprintf(&out, "answered before any write: %s", <-answered)
			break
		}
		h.started = append(h.started, answered)
	case "await":
		if len(h.started) == 0 {
			h.t.Fatal("await with no request started")
		}
		answered := h.started[0]
		h.started = h.started[1:]
		select {
		case a := <-answered:
			out.WriteString(a)
		case <-time.After(10 * time.Second):
			h.t.Fatal("the started request was never answered")
		}
		h.settle()
	case "restart":
		h.restart()
	case "crash":
		h.crash(&out, has(args, "after-durable"), input)
	default:
		out.WriteString(h.request(cmd, args))
	}
	if h.q.isAsync() {
		h.settleAsync()
	}
	h.written(&out)
	return out.String()
}

func has(args map[string]string, key string) bool { _, ok := args[key]; return ok }

// request runs one request and describes its answer.
func (h *script) request(cmd string, args map[string]string) string {
	id := args["id"]
	pe, ok := h.pes[id]
	if !ok {
		pe = noProducer
	}
	if v, ok := args["pid"]; ok {
		pe.ProducerID, _ = strconv.ParseInt(v, 10, 64)
	}
	if v, ok := args["epoch"]; ok {
		e, _ := strconv.ParseInt(v, 10, 16)
		pe.ProducerEpoch = int16(e)
	}
	parts := parseParts(args["parts"])
	switch cmd {
	case "init":
		timeout := int32(60000)
		if v, ok := args["timeout"]; ok {
			n, _ := strconv.ParseInt(v, 10, 32)
			timeout = int32(n)
		}
		req := InitRequest{TransactionalID: id, TimeoutMs: timeout, ProducerID: -1, ProducerEpoch: -1}
		if has(args, "pid") {
			req.ProducerID, req.ProducerEpoch = pe.ProducerID, pe.ProducerEpoch
		}
		got, err := h.c.InitProducerID(ctx, req)
		return h.answerPE(id, got, err)
	case "add":
		if has(args, "implicit") {
			return answer1(h.c.AddPartitionsImplicit(ctx, id, pe.ProducerID, pe.ProducerEpoch, parts))
		}
		return answer1(h.c.AddPartitions(ctx, id, pe.ProducerID, pe.ProducerEpoch, parts))
	case "end":
		commit := has(args, "commit")
		if has(args, "v2") {
			got, err := h.c.EndTxnV2(ctx, id, pe.ProducerID, pe.ProducerEpoch, commit)
			return h.answerPE(id, got, err)
		}
		return answer1(h.c.EndTxn(ctx, id, pe.ProducerID, pe.ProducerEpoch, commit))
	case "verify":
		per, top := h.c.VerifyPartitions(id, pe.ProducerID, pe.ProducerEpoch, parts)
		if top != nil {
			return answer1(top)
		}
		var b strings.Builder
		for i, tp := range parts {
			fmt.Fprintf(&b, "%s-%d: %s\n", tp.Topic, tp.Partition, strings.TrimSuffix(answer1(per[i]), "\n"))
		}
		return b.String()
	case "describe":
		d, err := h.c.Describe(id)
		if err != nil {
			return answer1(err)
		}
		return fmt.Sprintf("%s pid=%d epoch=%d timeout=%d started=%s partitions=%s\n", d.State, d.ProducerID, d.ProducerEpoch,
			d.TimeoutMs, h.since(d.StartMs), formatParts(d.Partitions))
	case "list":
		var b strings.Builder
		for _, l := range h.c.List(ListFilter{MinDurationMs: -1}) {
			fmt.Fprintf(&b, "%s %s pid=%d\n", l.TransactionalID, l.State, l.ProducerID)
		}
		return b.String()
	}
	h.t.Fatalf("unknown command %q", cmd)
	return ""
}

func (h *script) answerPE(id string, got ProducerIDAndEpoch, err error) string {
	if err != nil {
		return answer1(err)
	}
	h.pes[id] = got
	return fmt.Sprintf("pid=%d epoch=%d\n", got.ProducerID, got.ProducerEpoch)
}

func answer1(err error) string {
	var ke *kerr.Error
	switch {
	case err == nil:
		return "ok\n"
	case errors.As(err, &ke):
		return ke.Message + "\n"
	default:
		return "error: " + err.Error() + "\n"
	}
}

// crash runs the request in input and kills the broker once the request's
// record is appended: before it is durable (it is lost) or after (it
// survives, its answer lost either way). The restarted broker loads what
// is durable.
func (h *script) crash(out *strings.Builder, durable bool, input string) {
	// The calls out of the dying broker never run: what they would do
	// is the restarted broker's to find.
	h.q.mu.Lock()
	held := h.q.hold
	h.q.hold = true
	h.q.mu.Unlock()
	h.holdLogs(true)
	answered, wrote := h.start(input)
	if !wrote {
		// Nothing to write: the broker dies with nothing at risk.
		fmt.Fprintf(out, "answered before any write: %s", <-answered)
		h.holdLogs(false)
		h.crashRestart(held)
		return
	}
	if durable {
		h.syncLogs()
	}
	h.c.Close()
	lost := h.crashLogs()
	<-answered // lost with the broker, whatever it says
	fmt.Fprintf(out, "crashed with %d record(s) not durable\n", lost)
	h.holdLogs(false)
	h.crashRestart(held)
}

// start runs the request in input on its own goroutine until it has
// appended a record (wrote) or answered; answered hears its answer.
func (h *script) start(input string) (answered chan string, wrote bool) {
	fields := strings.Fields(input)
	if len(fields) == 0 {
		h.t.Fatal("no request to start")
	}
	args := map[string]string{}
	for _, f := range fields[1:] {
		k, v, _ := strings.Cut(f, "=")
		args[k] = strings.Trim(v, "()")
	}
	before := h.appended()
	answered = make(chan string, 1)
	go func() { answered <- h.request(fields[0], args) }()
	deadline := time.After(10 * time.Second)
	for h.appended() == before {
		select {
		case a := <-answered:
			answered <- a
			return answered, false
		case <-deadline:
			h.t.Fatal("the request neither wrote nor answered")
		case <-time.After(time.Millisecond):
		}
	}
	return answered, true
}

// appended counts the records of every partition.
func (h *script) appended() int {
	n := 0
	for _, l := range h.eachLog() {
		n += len(l.Entries())
	}
	return n
}

// crashRestart starts a new coordinator on what the logs hold; the dead
// one's held calls out die with it, and the new one's are held as the
// script had them.
func (h *script) crashRestart(holdCompletions bool) {
	h.q.drop()
	h.q.setHold(holdCompletions)
	h.c.Close()
	h.c = h.newCoordinator()
	h.load()
	for p, l := range h.eachLog() {
		h.seen[p] = min(h.seen[p], len(l.Entries()))
	}
}

func (h *script) eachLog() map[int32]*coordinator.MemoryLog {
	out := map[int32]*coordinator.MemoryLog{}
	for p := range h.store.partitions {
		out[p] = h.store.logs().Partition(p)
	}
	return out
}

func (h *script) holdLogs(hold bool) {
	for _, l := range h.eachLog() {
		l.Hold(hold)
	}
}

func (h *script) syncLogs() {
	for _, l := range h.eachLog() {
		l.Sync()
	}
}

func (h *script) crashLogs() int {
	n := 0
	for _, l := range h.eachLog() {
		n += l.Crash()
	}
	return n
}

// written describes the records and markers written since last asked.
func (h *script) written(out *strings.Builder) {
	for p := range h.store.partitions {
		entries := h.store.logs().Partition(p).Entries()
		for _, e := range entries[h.seen[p]:] {
			fmt.Fprintf(out, "record %d@%d: %s\n", p, e.Offset, h.describeRecord(e.Record))
		}
		h.seen[p] = len(entries)
	}
	h.markers.mu.Lock()
	written := h.markers.written
	h.markers.written = nil
	h.markers.mu.Unlock()
	for _, m := range written {
		kind := "abort"
		if m.Commit {
			kind = "commit"
		}
		fmt.Fprintf(out, "marker %s-%d: %s pid=%d epoch=%d\n", m.Topic, m.Partition, kind, m.ProducerID, m.ProducerEpoch)
	}
}

func (h *script) describeRecord(r coordinator.Record) string {
	id, err := DecodeKey(r.Key)
	if err != nil {
		return "malformed key"
	}
	if r.Value == nil {
		return id + " tombstone"
	}
	v, err := DecodeValue(r.Value)
	if err != nil {
		return id + " malformed value"
	}
	return fmt.Sprintf("%s %s pid=%d epoch=%d timeout=%d started=%s updated=%s partitions=%s", id, v.State, v.ProducerID,
		v.ProducerEpoch, v.TimeoutMs, h.since(v.StartMs), h.since(v.LastUpdateMs), formatParts(v.Partitions))
}

// since is a timestamp as an offset from the script's start.
func (h *script) since(ms int64) string {
	if ms < 0 {
		return "-"
	}
	return "+" + (time.Duration(ms-scriptStart.UnixMilli()) * time.Millisecond).String()
}

var scriptStart = time.UnixMilli(1_700_000_000_000)

func parseParts(s string) []TopicPartition {
	var out []TopicPartition
	for _, p := range strings.Split(s, ",") {
		if p == "" {
			continue
		}
		i := strings.LastIndex(p, "-")
		n, _ := strconv.ParseInt(p[i+1:], 10, 32)
		out = append(out, TopicPartition{Topic: p[:i], Partition: int32(n)})
	}
	return out
}

func formatParts(tps []TopicPartition) string {
	s := make([]string, len(tps))
	for i, tp := range tps {
		s[i] = fmt.Sprintf("%s-%d", tp.Topic, tp.Partition)
	}
	slices.Sort(s)
	return "[" + strings.Join(s, ",") + "]"
}
