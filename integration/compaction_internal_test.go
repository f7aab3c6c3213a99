package integration

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/karst-broker/karst/karsttest"
)

// cleanedOffset is the offset below which the cleaner-offset-checkpoint
// in dir says topic's partition 0 is clean (-1: not there yet).
func cleanedOffset(dir, topic string) int64 {
	data, _ := os.ReadFile(filepath.Join(dir, "cleaner-offset-checkpoint"))
	for _, line := range strings.Split(string(data), "\n") {
		var tp string
		var part int32
		var off int64
		if n, _ := fmt.Sscan(line, &tp, &part, &off); n == 3 && tp == topic && part == 0 {
			return off
		}
	}
	return -1
}

// txnCommitOffset commits offset for group's topic/partition 0 inside a
// transaction of cl (AddOffsetsToTxn, then TxnOffsetCommit with no
// generation, as a simple consumer's transactional commit), which the
// caller then ends.
func txnCommitOffset(t *testing.T, ctx context.Context, cl *kgo.Client, txnID, group, topic string, offset int64) {
	t.Helper()
	id, epoch, err := cl.ProducerID(ctx)
	if err != nil {
		t.Fatal(err)
	}
	add := kmsg.NewPtrAddOffsetsToTxnRequest()
	add.TransactionalID, add.ProducerID, add.ProducerEpoch, add.Group = txnID, id, epoch, group
	addResp, err := add.RequestWith(ctx, cl)
	if err == nil {
		err = kerr.ErrorForCode(addResp.ErrorCode)
	}
	if err != nil {
		t.Fatalf("AddOffsetsToTxn: %v", err)
	}
	commit := kmsg.NewPtrTxnOffsetCommitRequest()
	commit.TransactionalID, commit.Group, commit.ProducerID, commit.ProducerEpoch, commit.Generation = txnID, group, id, epoch, -1
	rt := kmsg.NewTxnOffsetCommitRequestTopic()
	rt.Topic = topic // v0-v5
	topics, err := kadm.NewClient(cl).ListTopics(ctx, topic)
	if err != nil {
		t.Fatal(err)
	}
	rt.TopicID = topics[topic].ID // v6+
	rp := kmsg.NewTxnOffsetCommitRequestTopicPartition()
	rp.Offset, rp.LeaderEpoch = offset, -1
	rt.Partitions = append(rt.Partitions, rp)
	commit.Topics = append(commit.Topics, rt)
	commitResp, err := commit.RequestWith(ctx, cl)
	if err == nil {
		err = kerr.ErrorForCode(commitResp.Topics[0].Partitions[0].ErrorCode)
	}
	if err != nil {
		t.Fatalf("TxnOffsetCommit: %v", err)
	}
}

// TestCoordinatorTopicsCleanedAndReloaded (issue 18 item 4): thousands of
// offset commits from ten groups, two groups deleted (their tombstones),
// transactional offset commits committed and aborted (their markers), and
// eighty transactions of four transactional ids fill many small segments
// (rolled every 100 ms) of __consumer_offsets and __transaction_state, with tombstones kept for
// delete.retention.ms=0. The broker's cleaner compacts both (below the
// cleaned offset each key is read once); a broker restarted on the data
// dir loads the cleaned logs into the same committed offsets, no trace of
// the deleted groups or the aborted commit, and the same transaction
// states, and goes on committing.
func TestCoordinatorTopicsCleanedAndReloaded(t *testing.T) {
	dir := t.TempDir()
	opts := []karsttest.Option{
		karsttest.WithConfig("log.dirs", dir),
		karsttest.WithConfig("log.cleaner.backoff.ms", "20"),
		karsttest.WithConfig("log.cleaner.delete.retention.ms", "0"),
		karsttest.WithConfig("offsets.topic.num.partitions", "1"),
		karsttest.WithConfig("transaction.state.log.num.partitions", "1"),
		// Segments roll by time: segment.bytes (offsets.topic.segment.bytes
		// too) may not be below 1 MiB.
		karsttest.WithConfig("log.roll.ms", "100"),
		karsttest.WithConfig("log.cleaner.min.cleanable.ratio", "0.01"),
	}
	b := karsttest.Start(t, opts...)
	ctx := deadlineCtx(t, 40*time.Second)
	adm := newAdmin(t, b.Addr())
	const topic, partitions, groups, rounds = "cleaned-offsets", 4, 10, 100
	createAdminTopic(t, ctx, adm, topic, partitions)

	want := map[string]map[int32]int64{} // group -> partition -> last committed offset
	var wg sync.WaitGroup
	errs := make(chan error, groups)
	for g := 0; g < groups; g++ {
		group := fmt.Sprintf("group-%02d", g)
		want[group] = map[int32]int64{}
		for p := int32(0); p < partitions; p++ {
			want[group][p] = int64(rounds-1)*10 + int64(p) + int64(g)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := 0; r < rounds; r++ {
				offs := make(kadm.Offsets)
				for p := int32(0); p < partitions; p++ {
					offs.Add(kadm.Offset{Topic: topic, Partition: p, At: int64(r)*10 + int64(p) + int64(g), LeaderEpoch: -1})
				}
				if err := commitRetrying(ctx, adm, group, offs); err != nil {
					errs <- fmt.Errorf("%s round %d: %w", group, r, err)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	deleted := []string{"group-08", "group-09"}
	resps, err := adm.DeleteGroups(ctx, deleted...)
	if err == nil {
		err = resps.Error()
	}
	if err != nil {
		t.Fatalf("deleting groups: %v", err)
	}
	for _, g := range deleted {
		delete(want, g)
	}

	// Transactions: txn-0 commits offset 10, aborts 20 and commits 30 then
	// aborts 40 for txn-group-a (30 stands); txn-1 commits 5 for
	// txn-group-b. Every id then runs twenty record-only transactions.
	ids := []string{"txn-0", "txn-1", "txn-2", "txn-3"}
	producers := map[string]*kgo.Client{}
	for _, id := range ids {
		producers[id] = txnProducer(t, b.Addr(), id)
	}
	offsetTxn := func(id, group string, offset int64, end kgo.TransactionEndTry) {
		cl := producers[id]
		if err := cl.BeginTransaction(); err != nil {
			t.Fatal(err)
		}
		produceInTxn(t, ctx, cl, topic, 0, []string{fmt.Sprintf("%s-%d", group, offset)})
		txnCommitOffset(t, ctx, cl, id, group, topic, offset)
		if err := cl.EndTransaction(ctx, end); err != nil {
			t.Fatalf("%s: ending the transaction: %v", id, err)
		}
	}
	offsetTxn("txn-0", "txn-group-a", 10, kgo.TryCommit)
	offsetTxn("txn-0", "txn-group-a", 20, kgo.TryAbort)
	offsetTxn("txn-0", "txn-group-a", 30, kgo.TryCommit)
	offsetTxn("txn-0", "txn-group-a", 40, kgo.TryAbort)
	offsetTxn("txn-1", "txn-group-b", 5, kgo.TryCommit)
	want["txn-group-a"] = map[int32]int64{0: 30}
	want["txn-group-b"] = map[int32]int64{0: 5}
	for i := 0; i < 20; i++ {
		for _, id := range ids {
			produceTxn(t, ctx, producers[id], topic, 1, []string{fmt.Sprintf("%s-%d", id, i)}, kgo.TryCommit)
		}
	}
	// EndTxn answers once PrepareCommit is written; the markers and
	// CompleteCommit follow.
	var txnsBefore kadm.DescribedTransactions
	eventually(t, ctx, "every transaction complete", func() bool {
		txnsBefore, err = adm.DescribeTransactions(ctx, ids...)
		if err != nil {
			return false
		}
		for _, id := range ids {
			if txnsBefore[id].Err != nil || txnsBefore[id].State != "CompleteCommit" {
				return false
			}
		}
		return true
	})

	// Wait until the cleaner has checkpointed both topics up to their
	// active segments (a segment rolls at the first append 100 ms after
	// its first; log.cleaner.min.cleanable.ratio=0.01 leaves nothing
	// cleanable behind).
	ends, err := adm.ListEndOffsets(ctx, "__consumer_offsets", "__transaction_state")
	if err != nil {
		t.Fatal(err)
	}
	for _, internal := range []string{"__consumer_offsets", "__transaction_state"} {
		for cleanedOffset(dir, internal) < activeBase(t, dir, internal) {
			if ctx.Err() != nil {
				t.Fatalf("%s: the cleaner checkpointed %d; the active segment starts at %d", internal, cleanedOffset(dir, internal), activeBase(t, dir, internal))
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	offsetsClean := cleanedOffset(dir, "__consumer_offsets")
	txnClean := cleanedOffset(dir, "__transaction_state")
	offsetsEnd, _ := ends.Lookup("__consumer_offsets", 0)
	txnEnd, _ := ends.Lookup("__transaction_state", 0)
	for _, c := range []struct {
		topic      string
		clean, end int64
	}{{"__consumer_offsets", offsetsClean, offsetsEnd.Offset}, {"__transaction_state", txnClean, txnEnd.Offset}} {
		read := readKeysBelow(t, ctx, b.Addr(), c.topic, c.clean)
		seen := map[string]int64{}
		for _, r := range read {
			if prev, ok := seen[string(r.Key)]; ok {
				t.Fatalf("%s: a key is read at offsets %d and %d, both below the cleaned offset %d", c.topic, prev, r.Offset, c.clean)
			}
			seen[string(r.Key)] = r.Offset
		}
		t.Logf("%s: cleaned to %d of %d; %d records below it, each key once", c.topic, c.clean, c.end, len(read))
		if int64(len(read)) >= c.clean/2 {
			t.Fatalf("%s: %d records survive below offset %d: not compacted", c.topic, len(read), c.clean)
		}
	}
	if err := b.Stop(); err != nil {
		t.Fatal(err)
	}

	b2 := karsttest.Start(t, opts...)
	adm2 := newAdmin(t, b2.Addr())
	checkOffsets := func(when string) {
		t.Helper()
		for group, parts := range want {
			got, err := adm2.FetchOffsets(ctx, group)
			if err == nil {
				err = got.Error()
			}
			if err != nil {
				t.Fatalf("%s: fetching %s's offsets: %v", when, group, err)
			}
			for p, off := range parts {
				o, ok := got.Lookup(topic, p)
				if !ok || o.At != off {
					t.Fatalf("%s: %s partition %d: committed offset %+v (found %v), want %d", when, group, p, o.At, ok, off)
				}
			}
			if n := len(got[topic]); n != len(parts) {
				t.Fatalf("%s: %s has %d committed partitions, want %d", when, group, n, len(parts))
			}
		}
		listed, err := adm2.ListGroups(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, g := range deleted {
			if _, ok := listed[g]; ok {
				t.Fatalf("%s: deleted group %s is listed again", when, g)
			}
			got, _ := adm2.FetchOffsets(ctx, g)
			if len(got[topic]) != 0 {
				t.Fatalf("%s: deleted group %s has offsets again: %v", when, g, got)
			}
		}
	}
	checkOffsets("after the restart")
	txnsAfter, err := adm2.DescribeTransactions(ctx, ids...)
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range ids {
		before, after := txnsBefore[id], txnsAfter[id]
		if after.Err != nil || before.ProducerID != after.ProducerID || before.ProducerEpoch != after.ProducerEpoch || before.State != after.State {
			t.Fatalf("%s: before the restart %+v, after %+v", id, before, after)
		}
	}
	// The coordinators serve on: a group commits again, a transactional id
	// is taken over (a new epoch) and commits a transaction.
	if err := commitRetrying(ctx, adm2, "group-00", kadm.OffsetsFromRecords(kgo.Record{Topic: topic, Partition: 0, Offset: 99999})); err != nil {
		t.Fatal(err)
	}
	want["group-00"][0] = 100000
	checkOffsets("after a new commit")
	cl := txnProducer(t, b2.Addr(), "txn-0")
	produceTxn(t, ctx, cl, topic, 2, []string{"after-restart"}, kgo.TryCommit)
	txns, err := adm2.DescribeTransactions(ctx, "txn-0")
	if err != nil {
		t.Fatal(err)
	}
	if got := txns["txn-0"]; got.ProducerID != txnsBefore["txn-0"].ProducerID || got.ProducerEpoch <= txnsBefore["txn-0"].ProducerEpoch {
		t.Fatalf("txn-0 after the takeover: %+v; before the restart %+v", got, txnsBefore["txn-0"])
	}
}

// commitRetrying commits offs for group, retrying while the coordinator
// is loading or not yet there (kadm leaves that to its caller).
func commitRetrying(ctx context.Context, adm *kadm.Client, group string, offs kadm.Offsets) error {
	for {
		resp, err := adm.CommitOffsets(ctx, group, offs)
		if err == nil {
			err = resp.Error()
		}
		if err == nil || !kerr.IsRetriable(err) || ctx.Err() != nil {
			return err
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// activeBase is the base offset of the newest segment of topic's
// partition 0 in dir.
func activeBase(t testing.TB, dir, topic string) int64 {
	t.Helper()
	names, err := filepath.Glob(filepath.Join(dir, topic+"-0", "*.log"))
	if err != nil || len(names) == 0 {
		t.Fatalf("%s-0 has no segment: %v", topic, err)
	}
	var base int64
	fmt.Sscan(strings.TrimLeft(strings.TrimSuffix(filepath.Base(names[len(names)-1]), ".log"), "0"), &base)
	return base
}

// partitionReader is a client consuming partition 0 of topic from its start.
func partitionReader(t testing.TB, addr, topic string, opts ...kgo.Opt) *kgo.Client {
	t.Helper()
	cl, err := kgo.NewClient(append([]kgo.Opt{kgo.SeedBrokers(addr), kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{
		topic: {0: kgo.NewOffset().AtStart()}})}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	return cl
}

// readKeysBelow reads partition 0 of topic from its start up to offset
// end, the partition's cleaned offset, and returns its data records
// (read_uncommitted). Records at and after end were never cleaned, so one
// is at end-1 or past it whatever the cleaner removed below; control
// records are kept so that a marker there counts too. The only limit is
// ctx's deadline: a slow machine (a broker that just restarted) only makes
// it wait longer.
func readKeysBelow(t testing.TB, ctx context.Context, addr, topic string, end int64) []*kgo.Record {
	t.Helper()
	cl := partitionReader(t, addr, topic, kgo.KeepControlRecords())
	defer cl.Close()
	ends, err := kadm.NewClient(cl).ListEndOffsets(ctx, topic)
	if err != nil {
		t.Fatal(err)
	}
	if le, _ := ends.Lookup(topic, 0); le.Err != nil || le.Offset <= end {
		t.Fatalf("%s: log end offset %d (%v) not past the cleaned offset %d: nothing uncleaned to read up to", topic, le.Offset, le.Err, end)
	}
	var out []*kgo.Record
	for {
		fs := cl.PollFetches(ctx)
		if ctx.Err() != nil {
			t.Fatalf("%s: timed out reading to offset %d (%d records read)", topic, end, len(out))
		}
		for _, fe := range fs.Errors() {
			t.Fatalf("fetch %s: %v", topic, fe.Err)
		}
		done := false
		fs.EachRecord(func(r *kgo.Record) {
			if r.Offset < end && !r.Attrs.IsControl() {
				out = append(out, r)
			}
			if r.Offset >= end-1 {
				done = true
			}
		})
		if done {
			return out
		}
	}
}
