package integration

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// A group member of any client library runs in a child process (this test
// binary, re-executed) so that a test can crash it: SIGKILL drops its
// connections without a LeaveGroup or a leaving heartbeat, and only the
// session timeout takes it out of the group, as when a real consumer dies.
//
// The child speaks a line protocol on stdout:
//
//	owns 0,3           its client's assignment changed to these partitions
//	consumed P O VAL   it received the record at partition P, offset O
//	committed P O      the coordinator acknowledged its commit of offset O
//	                   (the next record to read) for partition P
//	left               its client closed: it left the group
//
// Every member commits synchronously after what it read and before giving
// partitions up, and closes when its stdin says "close" or ends. Its
// stderr (the client's log) is shown when the test fails; with
// KARST_GROUP_MEMBER_LOGS=dir the logs are kept in dir, and
// KARST_RDKAFKA_DEBUG=cgrp turns on librdkafka's debug contexts.

const groupMemberEnv = "KARST_GROUP_MEMBER"

// memberSpec configures a child member.
type memberSpec struct {
	Client    string // a key of memberRunners
	Bootstrap string
	Group     string
	Topic     string
	// Protocol is the group protocol: classic or consumer (KIP-848).
	Protocol string
	// Strategy is the classic assignor: range or cooperative-sticky.
	Strategy string
	// SessionTimeoutMs is the classic session timeout (0: the client's
	// default); a short one needs a lower group.min.session.timeout.ms.
	SessionTimeoutMs int
}

// memberRunners run a member of one client library until closing closes.
var memberRunners = map[string]func(spec memberSpec, closing <-chan struct{}, out *memberReport) error{
	"confluent-kafka-go": runConfluentMember,
	"franz-go":           runFranzMember,
	"sarama":             runSaramaMember,
	"kafka-go":           runKafkaGoMember,
}

// memberReport writes the child's lines; client callbacks call it from
// their own goroutines.
type memberReport struct {
	mu   sync.Mutex
	w    io.Writer
	last string
}

// owns reports the member's assignment when it changed.
func (r *memberReport) owns(partitions []int32) {
	ps := make([]string, 0, len(partitions))
	for _, p := range slices.Sorted(slices.Values(partitions)) {
		ps = append(ps, strconv.Itoa(int(p)))
	}
	now := strings.Join(ps, ",")
	r.mu.Lock()
	defer r.mu.Unlock()
	if now != r.last {
		fmt.Fprintln(r.w, "owns "+now)
		r.last = now
	}
}

func (r *memberReport) consumed(partition int32, offset int64, value []byte) {
	r.mu.Lock()
	defer r.mu.Unlock()
	fmt.Fprintf(r.w, "consumed %d %d %s\n", partition, offset, value)
}

// committed reports a commit the coordinator acknowledged: next is the
// offset committed, the one after the last record it covers.
func (r *memberReport) committed(partition int32, next int64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	fmt.Fprintf(r.w, "committed %d %d\n", partition, next)
}

func (r *memberReport) left() {
	r.mu.Lock()
	defer r.mu.Unlock()
	fmt.Fprintln(r.w, "left")
}

// TestGroupMemberProcess is the child side; it does nothing in a normal
// test run.
func TestGroupMemberProcess(t *testing.T) {
	raw := os.Getenv(groupMemberEnv)
	if raw == "" {
		t.Skip("runs only as the child process of the group tests")
	}
	var spec memberSpec
	if err := json.Unmarshal([]byte(raw), &spec); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	run := memberRunners[spec.Client]
	if run == nil {
		fmt.Fprintln(os.Stderr, "unknown client", spec.Client)
		os.Exit(2)
	}
	closing := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(os.Stdin)
		for sc.Scan() && sc.Text() != "close" {
		}
		close(closing)
	}()
	if err := run(spec, closing, &memberReport{w: os.Stdout, last: "-"}); err != nil {
		fmt.Fprintln(os.Stderr, "member:", err)
		os.Exit(1)
	}
}

// consumeLedger records which member consumed which value, in the order
// the test read the reports.
type consumeLedger struct {
	mu    sync.Mutex
	by    map[string][]*delivery // value -> its deliveries
	phase int                    // given to deliveries reported from now on
}

// delivery is one record handed to a member's application. Stale means the
// member did not own the record's partition at that moment by its own
// report: the client delivered a record it had buffered before its
// generation ended.
type delivery struct {
	member    string
	stale     bool
	partition int32
	offset    int64
	// acked: the member then reported an acknowledged commit past this
	// record while it still owned the partition, so by Kafka's guarantee
	// no member may read the record again.
	acked bool
	// phase is the ledger's phase when the delivery was reported: a test
	// moves to the next phase at a point where every record read before
	// was committed.
	phase int
}

func newConsumeLedger() *consumeLedger { return &consumeLedger{by: map[string][]*delivery{}} }

func (l *consumeLedger) add(value string, d delivery) *delivery {
	l.mu.Lock()
	defer l.mu.Unlock()
	d.phase = l.phase
	l.by[value] = append(l.by[value], &d)
	return &d
}

// ack marks deliveries as covered by an acknowledged commit.
func (l *consumeLedger) ack(ds []*delivery) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, d := range ds {
		d.acked = true
	}
}

// nextPhase starts the next phase and returns it.
func (l *consumeLedger) nextPhase() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.phase++
	return l.phase
}

// hasAll reports whether every value was consumed at least once.
func (l *consumeLedger) hasAll(values []string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, v := range values {
		if len(l.by[v]) == 0 {
			return false
		}
	}
	return true
}

// deliveries lists the deliveries of value.
func (l *consumeLedger) deliveries(value string) []delivery {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := make([]delivery, len(l.by[value]))
	for i, d := range l.by[value] {
		out[i] = *d
	}
	return out
}

// values lists every value consumed.
func (l *consumeLedger) values() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []string
	for v := range l.by {
		out = append(out, v)
	}
	return out
}

// childMember is the parent's handle on a child member. Its ownership view
// lives in a groupMember (without a franz-go client) so that the helpers
// of groups_test.go (splitExactly, owned) apply to it.
type childMember struct {
	name  string
	view  *groupMember
	cmd   *exec.Cmd
	stdin io.WriteCloser
	done  chan struct{} // closed once stdout ended and the process was reaped
	mu    sync.Mutex
	left  bool
	// uncommitted holds, per partition the member owns, its deliveries
	// that no acknowledged commit covers yet; only the goroutine reading
	// the member's reports touches it.
	uncommitted map[int32][]*delivery
}

// startChildMember starts a child member; its stderr (the client's log)
// goes to a file that is shown if the test fails.
func startChildMember(t *testing.T, name string, spec memberSpec, ledger *consumeLedger) *childMember {
	t.Helper()
	raw, err := json.Marshal(spec)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestGroupMemberProcess$", "-test.timeout=10m")
	cmd.Env = append(os.Environ(), groupMemberEnv+"="+string(raw))
	logDir := os.Getenv("KARST_GROUP_MEMBER_LOGS") // kept after the test, for a closer look
	if logDir == "" {
		logDir = t.TempDir()
	}
	logPath := filepath.Join(logDir, name+".log")
	logFile, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = logFile
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	m := &childMember{name: name, view: &groupMember{owns: map[int32]bool{}}, cmd: cmd, stdin: stdin, done: make(chan struct{}),
		uncommitted: map[int32][]*delivery{}}
	go func() {
		defer close(m.done)
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			m.handle(sc.Text(), ledger)
		}
		cmd.Wait()
		logFile.Close()
	}()
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGKILL)
		<-m.done
		if t.Failed() {
			if b, err := os.ReadFile(logPath); err == nil && len(b) > 0 {
				t.Logf("member %s stderr (tail):\n%s", name, tail(string(b), 3000))
			}
		}
	})
	return m
}

func (m *childMember) handle(line string, ledger *consumeLedger) {
	switch f := strings.Fields(line); {
	case len(f) >= 1 && f[0] == "owns":
		owns := map[int32]bool{}
		if len(f) == 2 {
			for _, p := range strings.Split(f[1], ",") {
				n, _ := strconv.Atoi(p)
				owns[int32(n)] = true
			}
		}
		m.view.mu.Lock()
		m.view.owns = owns
		m.view.mu.Unlock()
		// A commit acknowledged after the member gave a partition up does
		// not count: the next owner may have read from the offset before.
		for p := range m.uncommitted {
			if !owns[p] {
				delete(m.uncommitted, p)
			}
		}
	case len(f) == 4 && f[0] == "consumed":
		p, _ := strconv.Atoi(f[1])
		o, _ := strconv.ParseInt(f[2], 10, 64)
		m.view.mu.Lock()
		stale := !m.view.owns[int32(p)]
		m.view.mu.Unlock()
		d := ledger.add(f[3], delivery{member: m.name, stale: stale, partition: int32(p), offset: o})
		if !stale {
			m.uncommitted[int32(p)] = append(m.uncommitted[int32(p)], d)
		}
	case len(f) == 3 && f[0] == "committed":
		p, _ := strconv.Atoi(f[1])
		next, _ := strconv.ParseInt(f[2], 10, 64)
		var covered, rest []*delivery
		for _, d := range m.uncommitted[int32(p)] {
			if d.offset < next {
				covered = append(covered, d)
			} else {
				rest = append(rest, d)
			}
		}
		ledger.ack(covered)
		m.uncommitted[int32(p)] = rest
	case len(f) == 1 && f[0] == "left":
		m.mu.Lock()
		m.left = true
		m.mu.Unlock()
		m.forget()
	}
}

// forget empties the ownership view of a member that is gone.
func (m *childMember) forget() {
	m.view.mu.Lock()
	m.view.owns = map[int32]bool{}
	m.view.mu.Unlock()
}

// leave closes the member the way an application does (it leaves the
// group) and waits until its process ended.
func (m *childMember) leave(t *testing.T, ctx context.Context) {
	t.Helper()
	leaveAll(t, ctx, m)
}

// leaveAll closes the members at once and waits until each has left.
func leaveAll(t *testing.T, ctx context.Context, members ...*childMember) {
	t.Helper()
	for _, m := range members {
		fmt.Fprintln(m.stdin, "close")
		m.stdin.Close()
	}
	for _, m := range members {
		m.waitLeft(t, ctx)
	}
}

func (m *childMember) waitLeft(t *testing.T, ctx context.Context) {
	t.Helper()
	select {
	case <-m.done:
	case <-ctx.Done():
		t.Fatalf("member %s did not close", m.name)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.left {
		t.Fatalf("member %s exited without leaving (%v)", m.name, m.cmd.ProcessState)
	}
}

// crash SIGKILLs the member: no LeaveGroup, its session has to expire.
func (m *childMember) crash() {
	m.cmd.Process.Signal(syscall.SIGKILL)
	<-m.done
	m.forget()
}

func views(members []*childMember) []*groupMember {
	out := make([]*groupMember, len(members))
	for i, m := range members {
		out[i] = m.view
	}
	return out
}

func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[len(s)-n:]
}

// waitConsumedAll waits until the ledger holds every value.
func waitConsumedAll(t *testing.T, ctx context.Context, ledger *consumeLedger, values []string) {
	t.Helper()
	eventually(t, ctx, fmt.Sprintf("%d records consumed", len(values)), func() bool { return ledger.hasAll(values) })
}

// stableFor wraps cond so that it holds only after n consecutive true
// samples: an assignment seen once may be a moment inside a rebalance.
func stableFor(n int, cond func() bool) func() bool {
	streak := 0
	return func() bool {
		if cond() {
			streak++
		} else {
			streak = 0
		}
		return streak >= n
	}
}

// deadlineCtx is a context that ends after d, cancelled with the test.
func deadlineCtx(t *testing.T, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}
