package integration

import (
	"bufio"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// TestShareKillChecker: share consumers, each a process of its own, consume
// a topic of known records while the checker SIGKILLs consumers (and starts
// new ones) and the broker (and starts it again on the same data
// directory). After the chaos the survivors finish, the broker is killed
// once more and started, and then: no record was accepted twice as far as
// the broker's answers go (an accept counts once ShareAcknowledge or the
// ShareFetch carrying it was answered without error), none is lost (each
// partition's share-partition start offset, as read from the share
// coordinator after the last restart, has passed the partition's end, so
// every record is Acknowledged or Archived; a record archived without an
// accept must have been delivered up to group.share.delivery.count.limit
// times, or have an accept whose answer its consumer never read), and no
// record was delivered more often than that limit. The
// redeliveries are counted and logged. KARST_SHARE_KILL_SECONDS (default
// 25) is the length of the chaos; KARST_SHARE_KILL_RECORDS (default 3000)
// the records; KARST_SHARE_KILL_SEED repeats a run's choices.
func TestShareKillChecker(t *testing.T) {
	if testing.Short() {
		t.Skip("kills and restarts broker and consumer processes")
	}
	chaos := time.Duration(envInt(t, "KARST_SHARE_KILL_SECONDS", 25)) * time.Second
	records := envInt(t, "KARST_SHARE_KILL_RECORDS", 3000)
	seed := envInt(t, "KARST_SHARE_KILL_SEED", int(time.Now().UnixNano()%1e9))
	t.Logf("KARST_SHARE_KILL_SEED=%d", seed)
	rng := rand.New(rand.NewPCG(uint64(seed), 0))
	const partitions, consumers, limit = 3, 3, 10

	k := &karstProcess{t: t, bin: buildKarst(t), dir: filepath.Join(t.TempDir(), "data"), addr: "127.0.0.1:" + strconv.Itoa(freePort(t)),
		overrides: []string{"group.share.record.lock.duration.ms=2000", "group.share.delivery.count.limit=" + strconv.Itoa(limit)}}
	k.start()
	defer func() { k.kill() }()
	ctx, cancel := context.WithTimeout(context.Background(), chaos+3*time.Minute)
	defer cancel()

	group, topic := "share-kill-check", "share-kill-check"
	topicID, ends := produceShareKillRecords(t, ctx, k.addr, group, topic, partitions, records)

	led := &shareKillLedger{accepts: map[[2]int64]int{}, sent: map[[2]int64]bool{}, maxDelivery: map[[2]int64]int32{}}
	procs := make([]*exec.Cmd, consumers)
	var readers sync.WaitGroup
	startConsumer := func(i int) {
		cmd := shareConsumerCommand(k.addr, group, topicID, partitions)
		// A pipe of the test's own: Wait closes StdoutPipe's at once, and
		// the lines a killed consumer wrote last would be lost.
		out, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		cmd.Stdout = w
		err = cmd.Start()
		w.Close()
		if err != nil {
			t.Fatal(err)
		}
		procs[i] = cmd
		readers.Add(1)
		go func() {
			defer readers.Done()
			defer out.Close()
			sc := bufio.NewScanner(out)
			for sc.Scan() {
				led.line(sc.Text())
			}
		}()
	}
	killConsumer := func(i int) {
		procs[i].Process.Signal(syscall.SIGKILL)
		procs[i].Wait()
	}
	for i := range consumers {
		startConsumer(i)
	}
	defer func() {
		for i := range procs {
			killConsumer(i)
		}
	}()

	var consumerKills, brokerKills int
	stopAt := time.Now().Add(chaos)
	for time.Now().Before(stopAt) {
		time.Sleep(time.Duration(200+rng.IntN(1300)) * time.Millisecond)
		if rng.IntN(4) == 0 {
			k.kill()
			k.start()
			brokerKills++
		} else {
			i := rng.IntN(consumers)
			killConsumer(i)
			startConsumer(i)
			consumerKills++
		}
	}
	// The survivors finish; what the killed ones held comes back once its
	// lock expires. A record archived at the delivery limit is never
	// accepted: the start offsets say when all are done.
	for tick := 0; led.acceptedCount() < records; tick++ {
		if ctx.Err() != nil {
			t.Fatalf("%d of %d records accepted when the time ran out", led.acceptedCount(), records)
		}
		if tick%20 == 19 && passedEnds(readShareStartOffsets(t, ctx, k.addr, group, topicID, partitions), ends) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	for i := range procs {
		killConsumer(i)
	}
	readers.Wait()
	k.kill()
	k.start()

	starts := readShareStartOffsets(t, ctx, k.addr, group, topicID, partitions)
	for p := range int32(partitions) {
		if starts[p] < ends[p] {
			t.Errorf("partition %d: share-partition start offset %d below the end %d after every record was accepted", p, starts[p], ends[p])
		}
	}
	led.mu.Lock()
	defer led.mu.Unlock()
	var redelivered, deliveries, inDoubt int
	for p := range int32(partitions) {
		for o := range ends[p] {
			key := [2]int64{int64(p), o}
			n, d := led.accepts[key], led.maxDelivery[key]
			switch {
			case n > 1:
				t.Errorf("partition %d offset %d: accepted %d times", p, o, n)
			case n == 0 && led.sent[key]:
				// An accept was sent and its answer never read: the
				// consumer was killed, or the connection cut, in between.
				inDoubt++
			case n == 0 && d < limit:
				t.Errorf("partition %d offset %d: never accepted, delivered at most %d times of %d", p, o, d, limit)
			}
			if d > limit {
				t.Errorf("partition %d offset %d: delivery count %d above the limit %d", p, o, d, limit)
			}
			if d > 1 {
				redelivered++
			}
		}
	}
	deliveries = led.deliveries
	t.Logf("share kill checker: %d records in %d partitions, %d consumer kills, %d broker kills; %d deliveries, %d records redelivered, highest delivery count %d (limit %d); accepts answered %d, records whose only accept went unanswered %d",
		records, partitions, consumerKills, brokerKills, deliveries, redelivered, led.highest, limit, led.acceptLines, inDoubt)
}

func passedEnds(starts, ends map[int32]int64) bool {
	for p, end := range ends {
		if starts[p] < end {
			return false
		}
	}
	return true
}

// shareKillLedger is what the consumers said, by (partition, offset).
type shareKillLedger struct {
	mu                                    sync.Mutex
	accepts                               map[[2]int64]int
	sent                                  map[[2]int64]bool
	maxDelivery                           map[[2]int64]int32
	deliveries, acceptLines, acceptedKeys int
	highest                               int32
}

func (l *shareKillLedger) line(s string) {
	var kind string
	var p, o int64
	var d int32
	if n, _ := fmt.Sscanf(s, "%s %d %d %d", &kind, &p, &o, &d); n < 3 {
		return
	}
	key := [2]int64{p, o}
	l.mu.Lock()
	defer l.mu.Unlock()
	switch kind {
	case "d":
		l.deliveries++
		l.maxDelivery[key] = max(l.maxDelivery[key], d)
		l.highest = max(l.highest, d)
	case "s":
		l.sent[key] = true
	case "a":
		l.acceptLines++
		if l.accepts[key] == 0 {
			l.acceptedKeys++
		}
		l.accepts[key]++
	}
}

func (l *shareKillLedger) acceptedCount() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.acceptedKeys
}

// produceShareKillRecords creates the topic, sets the group to read from
// the start, and writes records spread over the partitions; it returns
// the topic's id and each partition's end offset.
func produceShareKillRecords(t *testing.T, ctx context.Context, addr, group, topic string, partitions int32, records int) ([16]byte, map[int32]int64) {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(addr), kgo.DefaultProduceTopic(topic), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	created, err := kadm.NewClient(cl).CreateTopic(ctx, partitions, 1, nil, topic)
	if err != nil {
		t.Fatal(err)
	}
	h := &shareHarness{t: t, ctx: ctx, cl: cl, group: group, topic: topic, id: created.ID}
	h.setGroupConfig("share.auto.offset.reset", "earliest")
	// Five records to a batch: a share consumer acquires whole batches,
	// and one batch of a thousand would be acquired and accepted before
	// the first kill.
	var rs []*kgo.Record
	for i := range records {
		rs = append(rs, &kgo.Record{Partition: int32(i) % partitions, Value: fmt.Appendf(nil, "record-%d", i)})
	}
	for chunk := range slices.Chunk(rs, 5*int(partitions)) {
		if err := cl.ProduceSync(ctx, chunk...).FirstErr(); err != nil {
			t.Fatal(err)
		}
	}
	ends := map[int32]int64{}
	for _, r := range rs {
		ends[r.Partition] = max(ends[r.Partition], r.Offset+1)
	}
	return created.ID, ends
}

// readShareStartOffsets asks the share coordinator for each partition's
// persisted share-partition start offset.
func readShareStartOffsets(t *testing.T, ctx context.Context, addr, group string, topicID [16]byte, partitions int32) map[int32]int64 {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(addr))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	req := kmsg.NewPtrReadShareGroupStateRequest()
	req.GroupID = group
	rt := kmsg.NewReadShareGroupStateRequestTopic()
	rt.TopicID = topicID
	for p := range partitions {
		rp := kmsg.NewReadShareGroupStateRequestTopicPartition()
		rp.Partition, rp.LeaderEpoch = p, -1
		rt.Partitions = append(rt.Partitions, rp)
	}
	req.Topics = append(req.Topics, rt)
	// The share coordinator may still be loading its state partition just
	// after the start.
	for {
		resp, err := req.RequestWith(ctx, cl.SeedBrokers()[0])
		if err != nil {
			t.Fatal(err)
		}
		starts, retry := map[int32]int64{}, false
		for _, rt := range resp.Topics {
			for _, p := range rt.Partitions {
				if p.ErrorCode != 0 {
					if !kerr.IsRetriable(kerr.ErrorForCode(p.ErrorCode)) {
						t.Fatalf("ReadShareGroupState partition %d: %v", p.Partition, kerr.ErrorForCode(p.ErrorCode))
					}
					retry = true
				}
				starts[p.Partition] = p.StartOffset
			}
		}
		if !retry {
			return starts
		}
		select {
		case <-ctx.Done():
			t.Fatal("ReadShareGroupState still retriable when the time ran out")
		case <-time.After(100 * time.Millisecond):
		}
	}
}
