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

	"github.com/confluentinc/confluent-kafka-go/v2/kafka"
)

// A confluent-kafka-go group member runs in a child process (this test
// binary, re-executed) so that a test can crash it: SIGKILL drops its
// connections without a LeaveGroup or a leaving heartbeat, and only the
// session timeout takes it out of the group, as when a real consumer dies.
//
// The child speaks a line protocol on stdout:
//
//	owns 0,3           its librdkafka assignment changed to these partitions
//	consumed P O VAL   it received the record at partition P, offset O
//	left               Close returned: it left the group
//
// It commits synchronously after every record (retrying a failed commit on
// the next loop, and committing before giving partitions up), and closes
// when its stdin says "close" or ends.

const confluentMemberEnv = "KARST_CONFLUENT_MEMBER"

// confluentMemberSpec configures a child member.
type confluentMemberSpec struct {
	Bootstrap string
	Group     string
	Topic     string
	Protocol  string // group.protocol: classic or consumer
	Strategy  string // partition.assignment.strategy (classic only)
	// SessionTimeoutMs is the classic session.timeout.ms (0: librdkafka's
	// default); a short one needs a lower group.min.session.timeout.ms.
	SessionTimeoutMs int
}

// TestConfluentGroupMemberProcess is the child side; it does nothing in a
// normal test run.
func TestConfluentGroupMemberProcess(t *testing.T) {
	raw := os.Getenv(confluentMemberEnv)
	if raw == "" {
		t.Skip("runs only as the child process of the confluent-kafka-go group tests")
	}
	var spec confluentMemberSpec
	if err := json.Unmarshal([]byte(raw), &spec); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	if err := runConfluentMember(spec, os.Stdin, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "member:", err)
		os.Exit(1)
	}
}

func runConfluentMember(spec confluentMemberSpec, in io.Reader, out io.Writer) error {
	cfg := kafka.ConfigMap{
		"bootstrap.servers":    spec.Bootstrap,
		"group.id":             spec.Group,
		"group.protocol":       spec.Protocol,
		"enable.auto.commit":   false,
		"auto.offset.reset":    "earliest",
		"enable.partition.eof": false,
	}
	if spec.Protocol == "classic" {
		cfg["partition.assignment.strategy"] = spec.Strategy
		if spec.SessionTimeoutMs > 0 {
			cfg["session.timeout.ms"] = spec.SessionTimeoutMs
			cfg["heartbeat.interval.ms"] = spec.SessionTimeoutMs / 10
		}
	}
	c, err := kafka.NewConsumer(&cfg)
	if err != nil {
		return err
	}
	closing := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(in)
		for sc.Scan() && sc.Text() != "close" {
		}
		close(closing)
	}()

	pending := map[int32]int64{} // partition -> next offset to commit
	commit := func() {
		if len(pending) == 0 {
			return
		}
		var tps []kafka.TopicPartition
		for p, o := range pending {
			tps = append(tps, kafka.TopicPartition{Topic: &spec.Topic, Partition: p, Offset: kafka.Offset(o)})
		}
		done, err := c.CommitOffsets(tps)
		if err != nil {
			fmt.Fprintln(os.Stderr, "commit:", err)
			return
		}
		for _, tp := range done {
			if tp.Error == nil && pending[tp.Partition] == int64(tp.Offset) {
				delete(pending, tp.Partition)
			}
		}
	}
	onRebalance := func(c *kafka.Consumer, ev kafka.Event) error {
		if revoked, ok := ev.(kafka.RevokedPartitions); ok {
			if !c.AssignmentLost() {
				commit()
			}
			for _, tp := range revoked.Partitions {
				delete(pending, tp.Partition)
			}
		}
		return nil // the library does the (incremental) assign or unassign
	}
	if err := c.SubscribeTopics([]string{spec.Topic}, onRebalance); err != nil {
		return err
	}
	last := "-"
	for {
		select {
		case <-closing:
			commit()
			if err := c.Close(); err != nil {
				return err
			}
			fmt.Fprintln(out, "left")
			return nil
		default:
		}
		switch e := c.Poll(50).(type) {
		case *kafka.Message:
			if e.TopicPartition.Error != nil {
				fmt.Fprintln(os.Stderr, "message:", e.TopicPartition.Error)
				continue
			}
			p, o := e.TopicPartition.Partition, int64(e.TopicPartition.Offset)
			fmt.Fprintf(out, "consumed %d %d %s\n", p, o, e.Value)
			pending[p] = o + 1
			commit()
		case kafka.Error:
			fmt.Fprintln(os.Stderr, "error:", e)
			if e.IsFatal() {
				return e
			}
		}
		assigned, err := c.Assignment()
		if err != nil {
			continue
		}
		var ps []string
		for _, tp := range assigned {
			ps = append(ps, strconv.Itoa(int(tp.Partition)))
		}
		slices.Sort(ps)
		if now := strings.Join(ps, ","); now != last {
			fmt.Fprintln(out, "owns "+now)
			last = now
		}
	}
}

// consumeLedger records which member consumed which value, in the order
// the test read the reports.
type consumeLedger struct {
	mu sync.Mutex
	by map[string][]string // value -> members
}

func newConsumeLedger() *consumeLedger { return &consumeLedger{by: map[string][]string{}} }

func (l *consumeLedger) add(value, member string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.by[value] = append(l.by[value], member)
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

// consumers lists who consumed value.
func (l *consumeLedger) consumers(value string) []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.by[value])
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

// confluentMember is the parent's handle on a child member. Its ownership
// view lives in a groupMember (without a franz-go client) so that the
// helpers of groups_test.go (splitExactly, owned) apply to it.
type confluentMember struct {
	name  string
	view  *groupMember
	cmd   *exec.Cmd
	stdin io.WriteCloser
	done  chan struct{} // closed once stdout ended and the process was reaped
	mu    sync.Mutex
	left  bool
}

// startConfluentMember starts a child member; its stderr (librdkafka's
// log) goes to a file that is shown if the test fails.
func startConfluentMember(t *testing.T, name string, spec confluentMemberSpec, ledger *consumeLedger) *confluentMember {
	t.Helper()
	raw, err := json.Marshal(spec)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestConfluentGroupMemberProcess$", "-test.timeout=10m")
	cmd.Env = append(os.Environ(), confluentMemberEnv+"="+string(raw))
	logPath := filepath.Join(t.TempDir(), name+".log")
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
	m := &confluentMember{name: name, view: &groupMember{owns: map[int32]bool{}}, cmd: cmd, stdin: stdin, done: make(chan struct{})}
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

func (m *confluentMember) handle(line string, ledger *consumeLedger) {
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
	case len(f) == 4 && f[0] == "consumed":
		ledger.add(f[3], m.name)
	case len(f) == 1 && f[0] == "left":
		m.mu.Lock()
		m.left = true
		m.mu.Unlock()
		m.forget()
	}
}

// forget empties the ownership view of a member that is gone.
func (m *confluentMember) forget() {
	m.view.mu.Lock()
	m.view.owns = map[int32]bool{}
	m.view.mu.Unlock()
}

// leave closes the member the way an application does (it leaves the
// group) and waits until its process ended.
func (m *confluentMember) leave(t *testing.T, ctx context.Context) {
	t.Helper()
	fmt.Fprintln(m.stdin, "close")
	m.stdin.Close()
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
func (m *confluentMember) crash() {
	m.cmd.Process.Signal(syscall.SIGKILL)
	<-m.done
	m.forget()
}

func views(members []*confluentMember) []*groupMember {
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
