package integration

// Helpers of the transaction client tests (txn_clients_test.go). Those tests
// run against Karst by default; with KARST_TXN_AGAINST=kafka they run against
// the Apache Kafka 4.1.2 reference broker started from interop/kafka (its
// jars fetched by interop/kafka/fetch.sh), which proves the tests themselves
// right:
//
//	KARST_TXN_AGAINST=kafka go test ./integration -run TestTxn -v

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/karst-broker/karst/karsttest"
)

// txnBrokerSettings apply to both brokers: timed-out transactions are
// rolled back within half a second of their timeout (Kafka checks every
// 10 s by default), and groups form without the initial rebalance delay.
var txnBrokerSettings = [][2]string{
	{"transaction.abort.timed.out.transaction.cleanup.interval.ms", "500"},
	{"group.initial.rebalance.delay.ms", "0"},
}

func txnAgainstKafka() bool { return os.Getenv("KARST_TXN_AGAINST") == "kafka" }

// startTxnBroker starts the broker the test runs against and returns its
// address; it is stopped when the test ends.
func startTxnBroker(t *testing.T) string {
	t.Helper()
	if txnAgainstKafka() {
		p := startTxnProcess(t)
		return p.addr
	}
	var opts []karsttest.Option
	for _, kv := range txnBrokerSettings {
		opts = append(opts, karsttest.WithConfig(kv[0], kv[1]))
	}
	return karsttest.Start(t, opts...).Addr()
}

// txnProcess is a broker process (the karst binary, or Apache Kafka with
// KARST_TXN_AGAINST=kafka) on a fixed port and data directory, so that it
// can be SIGKILLed and started again in place.
type txnProcess struct {
	t              *testing.T
	kafka          bool
	bin            string // karst binary
	dir            string // data directory (Kafka: start.sh's DATA_DIR)
	addr           string
	controllerPort int // Kafka's KRaft controller listener, kept across restarts
	cmd            *exec.Cmd
}

func startTxnProcess(t *testing.T) *txnProcess {
	t.Helper()
	p := &txnProcess{t: t, kafka: txnAgainstKafka(), dir: filepath.Join(t.TempDir(), "data"),
		addr: "127.0.0.1:" + strconv.Itoa(freePort(t))}
	if p.kafka {
		p.controllerPort = freePort(t)
	} else {
		p.bin = buildKarst(t)
	}
	p.start()
	t.Cleanup(p.kill)
	return p
}

func (p *txnProcess) start() {
	p.t.Helper()
	if p.kafka {
		p.startKafka()
		return
	}
	args := []string{"serve", "--override", "listeners=PLAINTEXT://" + p.addr, "--override", "log.dirs=" + p.dir}
	for _, kv := range txnBrokerSettings {
		args = append(args, "--override", kv[0]+"="+kv[1])
	}
	p.cmd = exec.Command(p.bin, args...)
	logFile, err := os.OpenFile(filepath.Join(filepath.Dir(p.dir), "karst.log"), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		p.t.Fatal(err)
	}
	defer logFile.Close()
	p.cmd.Stdout, p.cmd.Stderr = logFile, logFile
	if err := p.cmd.Start(); err != nil {
		p.t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		c, err := net.DialTimeout("tcp", p.addr, time.Second)
		if err == nil {
			c.Close()
			return
		}
		if time.Now().After(deadline) {
			p.t.Fatalf("karst did not listen on %s: %v\n%s", p.addr, err, p.logTail())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// startKafka runs interop/kafka/start.sh, which formats the directory on
// the first start only and returns once the broker has started.
func (p *txnProcess) startKafka() {
	p.t.Helper()
	_, port, _ := net.SplitHostPort(p.addr)
	args := []string{p.dir, port, "auto.create.topics.enable=false"}
	for _, kv := range txnBrokerSettings {
		args = append(args, kv[0]+"="+kv[1])
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "../interop/kafka/start.sh", args...)
	cmd.Env = append(os.Environ(), "KAFKA_CONTROLLER_PORT="+strconv.Itoa(p.controllerPort))
	if out, err := cmd.CombinedOutput(); err != nil {
		p.t.Fatalf("starting Apache Kafka: %v\n%s", err, out)
	}
}

// kill stops the broker with SIGKILL and waits until it is gone.
func (p *txnProcess) kill() {
	if !p.kafka {
		if p.cmd != nil && p.cmd.Process != nil {
			p.cmd.Process.Signal(syscall.SIGKILL)
			p.cmd.Wait()
		}
		return
	}
	raw, err := os.ReadFile(filepath.Join(p.dir, "kafka.pid"))
	if err != nil {
		return
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(raw)))
	if err != nil {
		return
	}
	syscall.Kill(pid, syscall.SIGKILL)
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if syscall.Kill(pid, 0) != nil {
			break
		}
	}
	os.Remove(filepath.Join(p.dir, "kafka.pid"))
}

func (p *txnProcess) logTail() string {
	name := filepath.Join(filepath.Dir(p.dir), "karst.log")
	if p.kafka {
		name = filepath.Join(p.dir, "logs", "server.log")
	}
	raw, _ := os.ReadFile(name)
	return tail(string(raw), 3000)
}

// kgoLog is franz-go's debug log on stderr when KARST_TXN_KGO_LOG=1, to
// see which request a stuck client waits on.
func kgoLog(name string) kgo.Opt {
	if os.Getenv("KARST_TXN_KGO_LOG") != "1" {
		return kgo.WithLogger(nil)
	}
	return kgo.WithLogger(kgo.BasicLogger(os.Stderr, kgo.LogLevelDebug, func() string { return name + " " }))
}

// txnProducer is a franz-go transactional producer; records go to the
// partition they name.
func txnProducer(t *testing.T, addr, txnID string, opts ...kgo.Opt) *kgo.Client {
	t.Helper()
	base := []kgo.Opt{kgo.SeedBrokers(addr), kgo.TransactionalID(txnID), kgo.RecordPartitioner(kgo.ManualPartitioner()),
		kgo.RetryTimeout(30 * time.Second), kgoLog(txnID)}
	cl, err := kgo.NewClient(append(base, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	return cl
}

// produceTxn runs one transaction that writes values to topic/partition and
// ends it with commit or abort.
func produceTxn(t *testing.T, ctx context.Context, cl *kgo.Client, topic string, partition int32, values []string, commit kgo.TransactionEndTry) {
	t.Helper()
	if err := cl.BeginTransaction(); err != nil {
		t.Fatalf("begin: %v", err)
	}
	produceInTxn(t, ctx, cl, topic, partition, values)
	if err := cl.EndTransaction(ctx, commit); err != nil {
		t.Fatalf("end transaction (commit=%v): %v", commit, err)
	}
}

// produceInTxn writes values inside the open transaction and waits for
// their acknowledgements (the records are then in the log, undecided).
func produceInTxn(t *testing.T, ctx context.Context, cl *kgo.Client, topic string, partition int32, values []string) {
	t.Helper()
	rs := make([]*kgo.Record, len(values))
	for i, v := range values {
		rs[i] = &kgo.Record{Topic: topic, Partition: partition, Value: []byte(v)}
	}
	if err := cl.ProduceSync(ctx, rs...).FirstErr(); err != nil {
		t.Fatalf("produce in transaction: %v", err)
	}
}

// tagged is "tag-0" .. "tag-(n-1)".
func tagged(tag string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("%s-%d", tag, i)
	}
	return out
}

// writeSentinels appends, outside any transaction, the record "end-<tag>"
// to each partition. A read_committed reader reaches it only once every
// transaction before it is decided, so reading up to the sentinels reads
// everything without waiting on a quiet period.
func writeSentinels(t *testing.T, ctx context.Context, addr, topic string, partitions int32, tag string) {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(addr), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	for p := range partitions {
		if err := cl.ProduceSync(ctx, &kgo.Record{Topic: topic, Partition: p, Value: []byte("end-" + tag)}).FirstErr(); err != nil {
			t.Fatalf("sentinel to partition %d: %v", p, err)
		}
	}
}

// readToSentinels reads topic from the start with the given isolation level
// until it has seen "end-<tag>" on every partition, and returns the values
// before the sentinels, partition by partition in offset order.
func readToSentinels(t *testing.T, ctx context.Context, addr, topic string, partitions int32, tag string, level kgo.IsolationLevel) [][]string {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(addr), kgo.ConsumeTopics(topic), kgo.FetchIsolationLevel(level),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()), kgo.FetchMaxWait(200*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	got := make([][]string, partitions)
	done := make([]bool, partitions)
	for slices.Contains(done, false) {
		fs := cl.PollFetches(ctx)
		if ctx.Err() != nil {
			t.Fatalf("%s: timed out before every partition's sentinel end-%s; read %q (done %v)", topic, tag, got, done)
		}
		for _, e := range fs.Errors() {
			if !errors.Is(e.Err, context.Canceled) {
				t.Logf("fetch %s/%d: %v", e.Topic, e.Partition, e.Err)
			}
		}
		fs.EachRecord(func(r *kgo.Record) {
			switch {
			case done[r.Partition]:
			case string(r.Value) == "end-"+tag:
				done[r.Partition] = true
			default:
				got[r.Partition] = append(got[r.Partition], string(r.Value))
			}
		})
	}
	return got
}

// flat joins per-partition values.
func flat(parts [][]string) []string {
	var out []string
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

// requireExactly fails unless got holds every value of want exactly once
// and nothing else (order ignored).
func requireExactly(t *testing.T, what string, got, want []string) {
	t.Helper()
	count := map[string]int{}
	for _, v := range got {
		count[v]++
	}
	var missing, dup, extra []string
	for _, v := range want {
		switch count[v] {
		case 0:
			missing = append(missing, v)
		case 1:
		default:
			dup = append(dup, v)
		}
		delete(count, v)
	}
	for v := range count {
		extra = append(extra, v)
	}
	slices.Sort(extra)
	if len(missing)+len(dup)+len(extra) > 0 {
		t.Fatalf("%s: %d values, want %d; missing %q; more than once %q; unexpected %q",
			what, len(got), len(want), short(missing), short(dup), short(extra))
	}
}

func short(vs []string) []string {
	if len(vs) > 12 {
		return append(slices.Clone(vs[:12]), fmt.Sprintf("... (%d in all)", len(vs)))
	}
	return vs
}

// isFenced says whether err is how a broker rejects a zombie producer.
func isFenced(err error) bool {
	return errors.Is(err, kerr.ProducerFenced) || errors.Is(err, kerr.InvalidProducerEpoch) ||
		errors.Is(err, kerr.InvalidProducerIDMapping)
}

// stableOffsets lists the last stable offset (ListOffsets with
// read_committed) and the high watermark of each partition of topic.
func stableOffsets(ctx context.Context, adm *kadm.Client, topic string) (lso, hwm map[int32]int64, err error) {
	committed, err := adm.ListCommittedOffsets(ctx, topic)
	if err == nil {
		err = committed.Error()
	}
	if err != nil {
		return nil, nil, fmt.Errorf("ListOffsets read_committed: %w", err)
	}
	ends, err := adm.ListEndOffsets(ctx, topic)
	if err == nil {
		err = ends.Error()
	}
	if err != nil {
		return nil, nil, fmt.Errorf("ListOffsets read_uncommitted: %w", err)
	}
	lso, hwm = map[int32]int64{}, map[int32]int64{}
	committed.Each(func(o kadm.ListedOffset) { lso[o.Partition] = o.Offset })
	ends.Each(func(o kadm.ListedOffset) { hwm[o.Partition] = o.Offset })
	return lso, hwm, nil
}

// waitNoOpenTxn waits until every partition's last stable offset has caught
// up with its high watermark: no transaction is open on topic any more.
func waitNoOpenTxn(t *testing.T, ctx context.Context, adm *kadm.Client, topic string) {
	t.Helper()
	var last string
	for {
		lso, hwm, err := stableOffsets(ctx, adm, topic)
		if err == nil && len(lso) > 0 && mapsEqual(lso, hwm) {
			return
		}
		last = fmt.Sprintf("lso %v hwm %v err %v", lso, hwm, err)
		select {
		case <-ctx.Done():
			t.Fatalf("%s: last stable offset never reached the high watermark: %s", topic, last)
		case <-time.After(100 * time.Millisecond):
		}
	}
}

func mapsEqual(a, b map[int32]int64) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}
