package integration

// Transactions seen from unmodified clients (franz-go, sarama,
// confluent-kafka-go): committed records are visible to read_committed
// consumers exactly once, aborted ones never; an open transaction holds the
// last stable offset; a zombie producer is fenced; a transaction abandoned by
// its producer is aborted at its timeout; a broker SIGKILLed mid-transaction
// keeps what was committed and aborts what was open. Every test also runs
// against Apache Kafka with KARST_TXN_AGAINST=kafka (see txn_helpers_test.go).

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/IBM/sarama"
	"github.com/confluentinc/confluent-kafka-go/v2/kafka"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

func TestTxnFranzGoCommittedVisibleAbortedNot(t *testing.T) {
	ctx := deadlineCtx(t, 2*time.Minute)
	addr := startTxnBroker(t)
	adm := newAdmin(t, addr)
	const topic = "txn-franz-isolation"
	createAdminTopic(t, ctx, adm, topic, 2)

	cl := txnProducer(t, addr, "txn-franz-isolation")
	var committed, aborted []string
	for round, commit := range []kgo.TransactionEndTry{kgo.TryCommit, kgo.TryAbort, kgo.TryCommit, kgo.TryAbort, kgo.TryCommit} {
		tag := fmt.Sprintf("aborted%d", round)
		if commit {
			tag = fmt.Sprintf("committed%d", round)
		}
		values := tagged(tag, 10)
		if err := cl.BeginTransaction(); err != nil {
			t.Fatal(err)
		}
		// Both partitions in one transaction: the marker goes to each.
		produceInTxn(t, ctx, cl, topic, 0, values[:5])
		produceInTxn(t, ctx, cl, topic, 1, values[5:])
		if err := cl.EndTransaction(ctx, commit); err != nil {
			t.Fatalf("round %d: end (commit=%v): %v", round, commit, err)
		}
		if commit {
			committed = append(committed, values...)
		} else {
			aborted = append(aborted, values...)
		}
	}
	writeSentinels(t, ctx, addr, topic, 2, "a")

	rc := readToSentinels(t, ctx, addr, topic, 2, "a", kgo.ReadCommitted())
	requireExactly(t, "read_committed", flat(rc), committed)
	ru := readToSentinels(t, ctx, addr, topic, 2, "a", kgo.ReadUncommitted())
	requireExactly(t, "read_uncommitted", flat(ru), append(slices.Clone(committed), aborted...))
	// Within a partition the committed records keep their produce order.
	for p, vs := range rc {
		if !slices.IsSortedFunc(vs, func(a, b string) int { return strings.Compare(a[:len("committedN")], b[:len("committedN")]) }) {
			t.Errorf("partition %d: read_committed order %q", p, vs)
		}
	}
	lso, hwm, err := stableOffsets(ctx, adm, topic)
	if err != nil || !mapsEqual(lso, hwm) {
		t.Errorf("after every transaction ended: last stable offsets %v, high watermarks %v, err %v", lso, hwm, err)
	}
}

func TestTxnFranzGoOpenTransactionHoldsLastStableOffset(t *testing.T) {
	ctx := deadlineCtx(t, 2*time.Minute)
	addr := startTxnBroker(t)
	adm := newAdmin(t, addr)
	const topic = "txn-franz-lso"
	createAdminTopic(t, ctx, adm, topic, 1)

	cl := txnProducer(t, addr, "txn-franz-lso")
	produceTxn(t, ctx, cl, topic, 0, tagged("before", 3), kgo.TryCommit)
	if err := cl.BeginTransaction(); err != nil {
		t.Fatal(err)
	}
	open := tagged("open", 4)
	produceInTxn(t, ctx, cl, topic, 0, open)
	// A plain record after the open transaction's records: it is stable
	// only once the transaction ends.
	writeSentinels(t, ctx, addr, topic, 1, "after")

	// read_committed stops at the first open record: offsets 0-2 are
	// "before", 3 is the commit marker, 4 the first open record.
	lso, hwm, err := stableOffsets(ctx, adm, topic)
	if err != nil {
		t.Fatal(err)
	}
	if lso[0] != 4 || hwm[0] != 9 {
		t.Fatalf("with a transaction open from offset 4: last stable offset %d (want 4), high watermark %d (want 9)", lso[0], hwm[0])
	}
	// read_uncommitted already sees the open records and the sentinel.
	requireExactly(t, "read_uncommitted while open", flat(readToSentinels(t, ctx, addr, topic, 1, "after", kgo.ReadUncommitted())),
		append(tagged("before", 3), open...))

	// A read_committed consumer polling all along gets "before" and
	// nothing more until the commit.
	var mu sync.Mutex
	var seen []string
	rc, err := kgo.NewClient(kgo.SeedBrokers(addr), kgo.ConsumeTopics(topic), kgo.FetchIsolationLevel(kgo.ReadCommitted()),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()), kgo.FetchMaxWait(100*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	pollCtx, stopPolling := context.WithCancel(ctx)
	pollDone := make(chan struct{})
	go func() {
		defer close(pollDone)
		for pollCtx.Err() == nil {
			rc.PollFetches(pollCtx).EachRecord(func(r *kgo.Record) {
				mu.Lock()
				seen = append(seen, string(r.Value))
				mu.Unlock()
			})
		}
	}()
	defer func() { stopPolling(); <-pollDone }()
	snapshot := func() []string { mu.Lock(); defer mu.Unlock(); return slices.Clone(seen) }
	eventually(t, ctx, "read_committed consumer read the committed records", func() bool { return len(snapshot()) >= 3 })
	// Several more fetch round trips (100 ms each) must not go past the LSO.
	for range 5 {
		if lso2, _, err := stableOffsets(ctx, adm, topic); err != nil || lso2[0] != 4 {
			t.Fatalf("last stable offset moved while the transaction is open: %v %v", lso2, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if got := snapshot(); !slices.Equal(got, tagged("before", 3)) {
		t.Fatalf("read_committed saw %q while the transaction was open; want only %q", got, tagged("before", 3))
	}

	if err := cl.EndTransaction(ctx, kgo.TryCommit); err != nil {
		t.Fatal(err)
	}
	want := append(append(tagged("before", 3), open...), "end-after")
	eventually(t, ctx, "read_committed consumer read the transaction after its commit", func() bool { return len(snapshot()) >= len(want) })
	if got := snapshot(); !slices.Equal(got, want) {
		t.Fatalf("read_committed after commit: %q, want %q", got, want)
	}
	lso, hwm, err = stableOffsets(ctx, adm, topic)
	if err != nil || lso[0] != hwm[0] || hwm[0] != 10 {
		t.Fatalf("after commit: last stable offset %v, high watermark %v (want both 10), err %v", lso, hwm, err)
	}
}

func TestTxnFranzGoZombieProducerIsFenced(t *testing.T) {
	ctx := deadlineCtx(t, 2*time.Minute)
	addr := startTxnBroker(t)
	adm := newAdmin(t, addr)
	const topic = "txn-franz-zombie"
	createAdminTopic(t, ctx, adm, topic, 1)

	var want []string
	// The zombie's next step after being fenced is a write, then (on a
	// second transactional id) a commit.
	for _, next := range []string{"write", "commit"} {
		txnID := "txn-franz-zombie-" + next
		zombie := txnProducer(t, addr, txnID)
		produceTxn(t, ctx, zombie, topic, 0, tagged("zombie-committed-"+next, 2), kgo.TryCommit)
		want = append(want, tagged("zombie-committed-"+next, 2)...)
		if err := zombie.BeginTransaction(); err != nil {
			t.Fatal(err)
		}
		produceInTxn(t, ctx, zombie, topic, 0, tagged("zombie-open-"+next, 2))

		// The new incarnation's InitProducerId bumps the epoch and aborts
		// the zombie's open transaction.
		successor := txnProducer(t, addr, txnID)
		produceTxn(t, ctx, successor, topic, 0, tagged("successor-"+next, 3), kgo.TryCommit)
		want = append(want, tagged("successor-"+next, 3)...)

		var err error
		if next == "write" {
			err = zombie.ProduceSync(ctx, &kgo.Record{Topic: topic, Partition: 0, Value: []byte("zombie-late")}).FirstErr()
		} else {
			err = zombie.EndTransaction(ctx, kgo.TryCommit)
		}
		t.Logf("zombie's %s: %v", next, err)
		if !isFenced(err) {
			t.Errorf("zombie's %s: %v; want PRODUCER_FENCED or INVALID_PRODUCER_EPOCH", next, err)
		}
		if next == "write" {
			// Its transaction cannot be committed any more either.
			if err := zombie.EndTransaction(ctx, kgo.TryCommit); err == nil {
				t.Errorf("zombie committed after its write was fenced")
			}
		}

		// The successor keeps working after the zombie's attempts.
		produceTxn(t, ctx, successor, topic, 0, tagged("successor-again-"+next, 2), kgo.TryCommit)
		want = append(want, tagged("successor-again-"+next, 2)...)
	}
	writeSentinels(t, ctx, addr, topic, 1, "z")
	requireExactly(t, "read_committed", flat(readToSentinels(t, ctx, addr, topic, 1, "z", kgo.ReadCommitted())), want)
}

func TestTxnFranzGoGroupTransactSessionExactlyOnce(t *testing.T) {
	ctx := deadlineCtx(t, 3*time.Minute)
	addr := startTxnBroker(t)
	adm := newAdmin(t, addr)
	const in, out, group, half = "txn-eos-in", "txn-eos-out", "txn-eos", 150
	createAdminTopic(t, ctx, adm, in, 3)
	createAdminTopic(t, ctx, adm, out, 3)

	produceInput := func(from, to int) {
		cl, err := kgo.NewClient(kgo.SeedBrokers(addr), kgo.DefaultProduceTopic(in), kgo.RecordPartitioner(kgo.RoundRobinPartitioner()))
		if err != nil {
			t.Fatal(err)
		}
		defer cl.Close()
		var rs []*kgo.Record
		for i := from; i < to; i++ {
			rs = append(rs, &kgo.Record{Value: fmt.Appendf(nil, "in-%d", i)})
		}
		if err := cl.ProduceSync(ctx, rs...).FirstErr(); err != nil {
			t.Fatal(err)
		}
	}
	// transform runs one session of the group until it has committed
	// transactions covering n input records; it returns how many
	// transactions that took.
	transform := func(session string, n int) int {
		s, err := kgo.NewGroupTransactSession(kgo.SeedBrokers(addr), kgo.TransactionalID("txn-eos-"+session),
			kgo.ConsumerGroup(group), kgo.ConsumeTopics(in), kgo.FetchIsolationLevel(kgo.ReadCommitted()),
			kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
			kgo.DefaultProduceTopic(out), kgo.RecordPartitioner(kgo.ManualPartitioner()),
			kgo.FetchMaxPartitionBytes(500), kgo.TransactionTimeout(30*time.Second), kgoLog("session-"+session))
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		transactions, records := 0, 0
		for records < n {
			fs := s.PollRecords(ctx, 20)
			if ctx.Err() != nil {
				t.Fatalf("session %s: timed out after %d transactions, %d records", session, transactions, records)
			}
			for _, e := range fs.Errors() {
				t.Logf("session %s: fetch %s/%d: %v", session, e.Topic, e.Partition, e.Err)
			}
			if fs.NumRecords() == 0 {
				continue
			}
			if err := s.Begin(); err != nil {
				t.Fatalf("session %s: begin: %v", session, err)
			}
			fs.EachRecord(func(r *kgo.Record) {
				s.Produce(ctx, &kgo.Record{Partition: r.Partition, Value: []byte("out-" + strings.TrimPrefix(string(r.Value), "in-"))},
					func(_ *kgo.Record, err error) {
						if err != nil {
							t.Errorf("session %s: produce: %v", session, err)
						}
					})
			})
			committed, err := s.End(ctx, kgo.TryCommit)
			if err != nil {
				t.Fatalf("session %s: end: %v", session, err)
			}
			if committed {
				transactions++
				records += fs.NumRecords()
			}
		}
		return transactions
	}

	produceInput(0, half)
	n1 := transform("a", half)
	// A second session resumes from the offsets the first committed in its
	// transactions: nothing is transformed twice.
	produceInput(half, 2*half)
	n2 := transform("b", half)
	t.Logf("%d + %d transactions", n1, n2)

	writeSentinels(t, ctx, addr, out, 3, "final")
	var want []string
	for i := range 2 * half {
		want = append(want, fmt.Sprintf("out-%d", i))
	}
	got := flat(readToSentinels(t, ctx, addr, out, 3, "final", kgo.ReadCommitted()))
	requireExactly(t, "output read_committed", got, want)

	// Offsets committed within the transactions cover the whole input.
	offsets, err := adm.FetchOffsets(ctx, group)
	if err != nil {
		t.Fatal(err)
	}
	ends, err := adm.ListEndOffsets(ctx, in)
	if err != nil {
		t.Fatal(err)
	}
	ends.Each(func(o kadm.ListedOffset) {
		c, ok := offsets.Lookup(in, o.Partition)
		if !ok || c.At != o.Offset {
			t.Errorf("partition %d: committed %+v, end offset %d", o.Partition, c, o.Offset)
		}
	})
}

func TestTxnFranzGoAbandonedTransactionAbortedAtTimeout(t *testing.T) {
	ctx := deadlineCtx(t, 2*time.Minute)
	addr := startTxnBroker(t)
	adm := newAdmin(t, addr)
	const topic = "txn-franz-timeout"
	createAdminTopic(t, ctx, adm, topic, 2)

	cl := txnProducer(t, addr, "txn-franz-timeout", kgo.TransactionTimeout(3*time.Second))
	produceTxn(t, ctx, cl, topic, 0, tagged("committed", 3), kgo.TryCommit)
	if err := cl.BeginTransaction(); err != nil {
		t.Fatal(err)
	}
	abandoned := tagged("abandoned", 4)
	produceInTxn(t, ctx, cl, topic, 0, abandoned[:2])
	produceInTxn(t, ctx, cl, topic, 1, abandoned[2:])
	// The producer goes silent, as if killed: the coordinator alone must
	// roll the transaction back once transaction.timeout.ms has passed.
	start := time.Now()
	lso, hwm, err := stableOffsets(ctx, adm, topic)
	if err != nil {
		t.Fatal(err)
	}
	if lso[0] >= hwm[0] || lso[1] >= hwm[1] {
		t.Fatalf("open transaction does not hold the last stable offsets: %v, high watermarks %v", lso, hwm)
	}
	waitNoOpenTxn(t, ctx, adm, topic)
	t.Logf("transaction aborted %v after its last write (timeout 3 s)", time.Since(start).Round(10*time.Millisecond))

	writeSentinels(t, ctx, addr, topic, 2, "t")
	requireExactly(t, "read_committed", flat(readToSentinels(t, ctx, addr, topic, 2, "t", kgo.ReadCommitted())), tagged("committed", 3))
	// The abort marker follows the records: read_uncommitted has them all.
	requireExactly(t, "read_uncommitted", flat(readToSentinels(t, ctx, addr, topic, 2, "t", kgo.ReadUncommitted())),
		append(tagged("committed", 3), abandoned...))
}

// TestTxnSIGKILLBrokerMidTransaction SIGKILLs the broker process three
// times, each time with a transaction open and a commit in flight, after a
// committed and an aborted one, and restarts it on the same directory.
// Committed records stay visible, open transactions are aborted at their
// timeout, a commit racing the crash is all or nothing (and in if the client
// was told it committed), and a read_committed consumer polling throughout
// is never given an aborted record.
func TestTxnSIGKILLBrokerMidTransaction(t *testing.T) {
	if testing.Short() {
		t.Skip("kills and restarts a broker process")
	}
	p := startTxnProcess(t)
	ctx := deadlineCtx(t, 6*time.Minute)
	adm := newAdmin(t, p.addr)
	const topic, partitions, rounds = "txn-crash", 2, 3
	createAdminTopic(t, ctx, adm, topic, partitions)

	// A read_committed consumer polls through every crash and remembers
	// everything it was ever given.
	var mu sync.Mutex
	everSeen := map[string]int{}
	watcher, err := kgo.NewClient(kgo.SeedBrokers(p.addr), kgo.ConsumeTopics(topic), kgo.FetchIsolationLevel(kgo.ReadCommitted()),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()), kgo.FetchMaxWait(200*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	defer watcher.Close()
	watchCtx, stopWatching := context.WithCancel(ctx)
	watchDone := make(chan struct{})
	go func() {
		defer close(watchDone)
		for watchCtx.Err() == nil {
			watcher.PollFetches(watchCtx).EachRecord(func(r *kgo.Record) {
				mu.Lock()
				everSeen[string(r.Value)]++
				mu.Unlock()
			})
		}
	}()
	defer func() { stopWatching(); <-watchDone }()

	// One producer lives through every crash; each round it commits one
	// transaction and aborts one, and another producer leaves one open.
	committer := txnProducer(t, p.addr, "txn-crash-committer", kgo.RecordRetries(1<<20))
	var committed, aborted, mustCommit []string
	var racing [][]string
	both := func(values []string, commit kgo.TransactionEndTry, who *kgo.Client) {
		if err := who.BeginTransaction(); err != nil {
			t.Fatal(err)
		}
		half := len(values) / 2
		produceInTxn(t, ctx, who, topic, 0, values[:half])
		produceInTxn(t, ctx, who, topic, 1, values[half:])
		if err := who.EndTransaction(ctx, commit); err != nil {
			t.Fatalf("end (commit=%v): %v", commit, err)
		}
	}
	for round := range rounds {
		c := tagged(fmt.Sprintf("committed%d", round), 6)
		both(c, kgo.TryCommit, committer)
		committed = append(committed, c...)
		a := tagged(fmt.Sprintf("aborted%d", round), 6)
		both(a, kgo.TryAbort, committer)
		aborted = append(aborted, a...)

		opener := txnProducer(t, p.addr, fmt.Sprintf("txn-crash-open%d", round), kgo.TransactionTimeout(4*time.Second))
		if err := opener.BeginTransaction(); err != nil {
			t.Fatal(err)
		}
		o := tagged(fmt.Sprintf("open%d", round), 6)
		produceInTxn(t, ctx, opener, topic, 0, o[:3])
		produceInTxn(t, ctx, opener, topic, 1, o[3:])
		aborted = append(aborted, o...)

		// Committed just before the crash: it must survive it.
		c = tagged(fmt.Sprintf("lastcommit%d", round), 4)
		both(c, kgo.TryCommit, committer)
		committed = append(committed, c...)

		// A commit racing the crash: its outcome is unknown to the client,
		// but it must be all or nothing, and once seen, never lost.
		racer := txnProducer(t, p.addr, fmt.Sprintf("txn-crash-racer%d", round), kgo.TransactionTimeout(4*time.Second))
		r := tagged(fmt.Sprintf("racing%d", round), 6)
		if err := racer.BeginTransaction(); err != nil {
			t.Fatal(err)
		}
		produceInTxn(t, ctx, racer, topic, 0, r[:3])
		produceInTxn(t, ctx, racer, topic, 1, r[3:])
		racing = append(racing, r)
		raceDone := make(chan error, 1)
		go func() {
			endCtx, cancel := context.WithTimeout(ctx, 20*time.Second)
			defer cancel()
			raceDone <- racer.EndTransaction(endCtx, kgo.TryCommit)
		}()

		p.kill()
		p.start()
		racedErr := <-raceDone
		t.Logf("round %d: commit racing the crash returned %v", round, racedErr)
		if racedErr == nil {
			mustCommit = append(mustCommit, r...)
		}
		// The opener and the racer go away without ending their transactions.
		opener.Close()
		racer.Close()
	}

	// After the last restart the open transaction is aborted at its
	// timeout, and the last stable offsets catch up with the logs.
	waitNoOpenTxn(t, ctx, adm, topic)
	writeSentinels(t, ctx, p.addr, topic, partitions, "crash")
	final := flat(readToSentinels(t, ctx, p.addr, topic, partitions, "crash", kgo.ReadCommitted()))
	// Each racing transaction is entirely committed or entirely aborted.
	finalSet := map[string]bool{}
	for _, v := range final {
		finalSet[v] = true
	}
	for round, r := range racing {
		n := 0
		for _, v := range r {
			if finalSet[v] {
				n++
			}
		}
		switch n {
		case 0:
			aborted = append(aborted, r...)
		case len(r):
			committed = append(committed, r...)
		default:
			t.Errorf("round %d: torn transaction: %d of %d records of the racing commit are visible", round, n, len(r))
		}
	}
	for _, v := range mustCommit {
		if !finalSet[v] {
			t.Errorf("record %s of a commit acknowledged across the crash is missing", v)
		}
	}
	requireExactly(t, "read_committed after the crashes", final, committed)
	requireExactly(t, "read_uncommitted after the crashes", flat(readToSentinels(t, ctx, p.addr, topic, partitions, "crash", kgo.ReadUncommitted())),
		append(slices.Clone(committed), aborted...))

	eventually(t, ctx, "the watching consumer reached the sentinels", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return everSeen["end-crash"] == partitions
	})
	mu.Lock()
	defer mu.Unlock()
	for _, v := range aborted {
		if everSeen[v] > 0 {
			t.Errorf("read_committed consumer was given aborted record %s", v)
		}
	}
	for _, v := range committed {
		if everSeen[v] == 0 {
			t.Errorf("read_committed consumer never saw committed record %s", v)
		}
	}
}

func TestTxnSaramaCommitAbort(t *testing.T) {
	ctx := deadlineCtx(t, 2*time.Minute)
	addr := startTxnBroker(t)
	adm := newAdmin(t, addr)
	const topic = "txn-sarama"
	createAdminTopic(t, ctx, adm, topic, 1)

	cfg := sarama.NewConfig()
	cfg.Version = sarama.V4_0_0_0
	cfg.Producer.Idempotent = true
	cfg.Producer.Transaction.ID = "txn-sarama"
	cfg.Producer.RequiredAcks = sarama.WaitForAll
	cfg.Producer.Return.Successes = true
	cfg.Producer.Partitioner = sarama.NewManualPartitioner
	cfg.Net.MaxOpenRequests = 1
	producer, err := sarama.NewSyncProducer([]string{addr}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer producer.Close()
	var committed []string
	for round, commit := range []bool{true, false, true, false} {
		values := tagged(fmt.Sprintf("aborted%d", round), 5)
		if commit {
			values = tagged(fmt.Sprintf("committed%d", round), 5)
		}
		if err := producer.BeginTxn(); err != nil {
			t.Fatalf("round %d: BeginTxn: %v", round, err)
		}
		var msgs []*sarama.ProducerMessage
		for _, v := range values {
			msgs = append(msgs, &sarama.ProducerMessage{Topic: topic, Partition: 0, Value: sarama.StringEncoder(v)})
		}
		if err := producer.SendMessages(msgs); err != nil {
			t.Fatalf("round %d: SendMessages: %v", round, err)
		}
		if commit {
			err = producer.CommitTxn()
			committed = append(committed, values...)
		} else {
			err = producer.AbortTxn()
		}
		if err != nil {
			t.Fatalf("round %d: end (commit=%v): %v", round, commit, err)
		}
	}
	writeSentinels(t, ctx, addr, topic, 1, "s")

	// sarama's own consumer, read_committed.
	ccfg := sarama.NewConfig()
	ccfg.Version = sarama.V4_0_0_0
	ccfg.Consumer.IsolationLevel = sarama.ReadCommitted
	consumer, err := sarama.NewConsumer([]string{addr}, ccfg)
	if err != nil {
		t.Fatal(err)
	}
	defer consumer.Close()
	pc, err := consumer.ConsumePartition(topic, 0, sarama.OffsetOldest)
	if err != nil {
		t.Fatal(err)
	}
	defer pc.Close()
	var got []string
	for done := false; !done; {
		select {
		case m := <-pc.Messages():
			if string(m.Value) == "end-s" {
				done = true
			} else {
				got = append(got, string(m.Value))
			}
		case err := <-pc.Errors():
			t.Fatalf("sarama consumer: %v", err)
		case <-ctx.Done():
			t.Fatalf("sarama read_committed consumer timed out with %q", got)
		}
	}
	requireExactly(t, "sarama read_committed", got, committed)
	requireExactly(t, "franz-go read_committed", flat(readToSentinels(t, ctx, addr, topic, 1, "s", kgo.ReadCommitted())), committed)
}

func TestTxnConfluentKafkaGoConsumeTransformProduce(t *testing.T) {
	ctx := deadlineCtx(t, 3*time.Minute)
	addr := startTxnBroker(t)
	adm := newAdmin(t, addr)
	const in, out, group, n = "txn-confluent-in", "txn-confluent-out", "txn-confluent", 40
	createAdminTopic(t, ctx, adm, in, 2)
	createAdminTopic(t, ctx, adm, out, 2)
	plain, err := kgo.NewClient(kgo.SeedBrokers(addr), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close()
	for i := range n {
		if err := plain.ProduceSync(ctx, &kgo.Record{Topic: in, Partition: int32(i % 2), Value: fmt.Appendf(nil, "%d", i)}).FirstErr(); err != nil {
			t.Fatal(err)
		}
	}

	p, err := kafka.NewProducer(&kafka.ConfigMap{"bootstrap.servers": addr, "transactional.id": "txn-confluent",
		"transaction.timeout.ms": 30000, "linger.ms": 5})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	go func() { // delivery reports; errors surface in CommitTransaction
		for range p.Events() {
		}
	}()
	if err := p.InitTransactions(ctx); err != nil {
		t.Fatalf("InitTransactions: %v", err)
	}
	topicOut := out
	send := func(partition int32, value string) {
		if err := p.Produce(&kafka.Message{TopicPartition: kafka.TopicPartition{Topic: &topicOut, Partition: partition}, Value: []byte(value)}, nil); err != nil {
			t.Fatalf("produce: %v", err)
		}
	}
	// A committed and an aborted transaction straight to the output.
	var want []string
	for _, commit := range []bool{true, false} {
		if err := p.BeginTransaction(); err != nil {
			t.Fatal(err)
		}
		for i := range 4 {
			if commit {
				send(int32(i%2), fmt.Sprintf("direct-committed-%d", i))
				want = append(want, fmt.Sprintf("direct-committed-%d", i))
			} else {
				send(int32(i%2), fmt.Sprintf("direct-aborted-%d", i))
			}
		}
		if commit {
			err = p.CommitTransaction(ctx)
		} else {
			// Abort purges what is still queued; flushed, the aborted
			// records are in the log before the abort marker.
			if left := p.Flush(30000); left != 0 {
				t.Fatalf("%d records not flushed", left)
			}
			err = p.AbortTransaction(ctx)
		}
		if err != nil {
			t.Fatalf("end (commit=%v): %v", commit, err)
		}
	}

	// Consume-transform-produce: input offsets go into each transaction.
	c, err := kafka.NewConsumer(&kafka.ConfigMap{"bootstrap.servers": addr, "group.id": group, "isolation.level": "read_committed",
		"enable.auto.commit": false, "auto.offset.reset": "earliest", "group.protocol": "classic"})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.Subscribe(in, nil); err != nil {
		t.Fatal(err)
	}
	transformed := 0
	for transformed < n {
		if ctx.Err() != nil {
			t.Fatalf("transformed %d of %d records", transformed, n)
		}
		var batch []*kafka.Message
		for len(batch) < 7 {
			ev := c.Poll(200)
			if ev == nil {
				break
			}
			switch e := ev.(type) {
			case *kafka.Message:
				if e.TopicPartition.Error != nil {
					t.Fatalf("consume: %v", e.TopicPartition.Error)
				}
				batch = append(batch, e)
			case kafka.Error:
				t.Logf("consumer: %v", e)
			}
		}
		if len(batch) == 0 {
			continue
		}
		if err := p.BeginTransaction(); err != nil {
			t.Fatal(err)
		}
		for _, m := range batch {
			send(m.TopicPartition.Partition, "out-"+string(m.Value))
		}
		assigned, err := c.Assignment()
		if err != nil {
			t.Fatal(err)
		}
		positions, err := c.Position(assigned)
		if err != nil {
			t.Fatal(err)
		}
		meta, err := c.GetConsumerGroupMetadata()
		if err != nil {
			t.Fatal(err)
		}
		if err := p.SendOffsetsToTransaction(ctx, positions, meta); err != nil {
			t.Fatalf("SendOffsetsToTransaction: %v", err)
		}
		if err := p.CommitTransaction(ctx); err != nil {
			t.Fatalf("CommitTransaction: %v", err)
		}
		transformed += len(batch)
	}
	for i := range n {
		want = append(want, fmt.Sprintf("out-%d", i))
	}

	// The group's offsets were committed by the transactions.
	committedOffsets, err := c.Committed([]kafka.TopicPartition{{Topic: ptr(in), Partition: 0}, {Topic: ptr(in), Partition: 1}}, 30000)
	if err != nil {
		t.Fatal(err)
	}
	for _, tp := range committedOffsets {
		if tp.Offset != kafka.Offset(n/2) {
			t.Errorf("committed offset of %s/%d: %v, want %d", *tp.Topic, tp.Partition, tp.Offset, n/2)
		}
	}

	// confluent-kafka-go's own read_committed consumer over the output.
	writeSentinels(t, ctx, addr, out, 2, "cf")
	rc, err := kafka.NewConsumer(&kafka.ConfigMap{"bootstrap.servers": addr, "group.id": "txn-confluent-reader",
		"isolation.level": "read_committed", "enable.auto.commit": false})
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	if err := rc.Assign([]kafka.TopicPartition{{Topic: ptr(out), Partition: 0, Offset: kafka.OffsetBeginning},
		{Topic: ptr(out), Partition: 1, Offset: kafka.OffsetBeginning}}); err != nil {
		t.Fatal(err)
	}
	var got []string
	for ends := 0; ends < 2; {
		if ctx.Err() != nil {
			t.Fatalf("confluent read_committed consumer timed out with %d records, %d sentinels", len(got), ends)
		}
		m, ok := rc.Poll(200).(*kafka.Message)
		if !ok {
			continue
		}
		if m.TopicPartition.Error != nil {
			t.Fatalf("read: %v", m.TopicPartition.Error)
		}
		if string(m.Value) == "end-cf" {
			ends++
		} else {
			got = append(got, string(m.Value))
		}
	}
	requireExactly(t, "confluent-kafka-go read_committed", got, want)
	requireExactly(t, "franz-go read_uncommitted", flat(readToSentinels(t, ctx, addr, out, 2, "cf", kgo.ReadUncommitted())),
		append(slices.Clone(want), tagged("direct-aborted", 4)...))
}

// TestTxnDelayedEndTxnCannotEndALaterTransaction replays, under transaction
// version 2 (an epoch bump per transaction), an EndTxn of an earlier
// transaction while a later one is open, as a network that delays a request
// would. It must not end the later transaction: a delayed abort must not
// abort it, and a delayed commit must not commit it.
func TestTxnDelayedEndTxnCannotEndALaterTransaction(t *testing.T) {
	ctx := deadlineCtx(t, 2*time.Minute)
	addr := startTxnBroker(t)
	adm := newAdmin(t, addr)
	const topic = "txn-delayed-endtxn"
	createAdminTopic(t, ctx, adm, topic, 1)
	raw, err := kgo.NewClient(kgo.SeedBrokers(addr))
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()

	var want []string
	for _, delayedCommit := range []bool{false, true} {
		txnID := fmt.Sprintf("txn-delayed-endtxn-%v", delayedCommit)
		cl := txnProducer(t, addr, txnID)
		if err := cl.BeginTransaction(); err != nil {
			t.Fatal(err)
		}
		first := tagged(fmt.Sprintf("first-%v", delayedCommit), 2)
		produceInTxn(t, ctx, cl, topic, 0, first)
		id, epoch, err := cl.ProducerID(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if err := cl.EndTransaction(ctx, kgo.TryCommit); err != nil {
			t.Fatal(err)
		}
		want = append(want, first...)

		if err := cl.BeginTransaction(); err != nil {
			t.Fatal(err)
		}
		second := tagged(fmt.Sprintf("second-%v", delayedCommit), 2)
		produceInTxn(t, ctx, cl, topic, 0, second)
		_, laterEpoch, _ := cl.ProducerID(ctx)
		t.Logf("first transaction ran with producer %d epoch %d; the second with epoch %d", id, epoch, laterEpoch)

		// The first transaction's EndTxn arrives late.
		req := kmsg.NewPtrEndTxnRequest()
		req.TransactionalID, req.ProducerID, req.ProducerEpoch, req.Commit = txnID, id, epoch, delayedCommit
		resp, err := req.RequestWith(ctx, raw)
		if err != nil {
			t.Fatalf("delayed EndTxn: %v", err)
		}
		t.Logf("delayed EndTxn(commit=%v, epoch %d): %v", delayedCommit, epoch, kerr.ErrorForCode(resp.ErrorCode))
		if resp.ErrorCode == 0 {
			t.Errorf("a delayed EndTxn(commit=%v) of the finished first transaction was accepted (Kafka: PRODUCER_FENCED)", delayedCommit)
		}

		// The producer ends its second transaction the other way round
		// from the delayed request; that is what read_committed must show.
		end := kgo.TryAbort
		if !delayedCommit {
			end = kgo.TryCommit
			want = append(want, second...)
		}
		if err := cl.EndTransaction(ctx, end); err != nil {
			t.Fatalf("ending the second transaction (commit=%v) after the delayed EndTxn: %v", end, err)
		}
	}
	writeSentinels(t, ctx, addr, topic, 1, "d")
	requireExactly(t, "read_committed", flat(readToSentinels(t, ctx, addr, topic, 1, "d", kgo.ReadCommitted())), want)
}
