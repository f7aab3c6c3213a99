package integration

import (
	"context"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// consumedValues records every record value the members of a group
// consume, and how often.
type consumedValues struct {
	mu    sync.Mutex
	count map[string]int
	dups  []string
}

func (c *consumedValues) add(v string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.count[v]++; c.count[v] == 2 {
		c.dups = append(c.dups, v)
	}
}

func (c *consumedValues) distinct() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.count)
}

// recording848Member is a franz-go KIP-848 consumer that records what it
// consumes and counts the partitions it loses or gives up once counting
// is switched on.
type recording848Member struct {
	*groupMember
	lostOrRevoked atomic.Int64
	counting      atomic.Bool
}

func startRecording848Member(t *testing.T, addr, group, topic string, seen *consumedValues) *recording848Member {
	t.Helper()
	m := &recording848Member{groupMember: &groupMember{owns: map[int32]bool{}, done: make(chan struct{})}}
	update := func(ps map[string][]int32, own bool) {
		m.mu.Lock()
		defer m.mu.Unlock()
		for _, p := range ps[topic] {
			if own {
				m.owns[p] = true
				continue
			}
			delete(m.owns, p)
			if m.counting.Load() {
				m.lostOrRevoked.Add(1)
			}
		}
	}
	cl, err := kgo.NewClient(kgo.SeedBrokers(addr), kgo.ConsumerGroup(group), kgo.ConsumeTopics(topic),
		kgo.ServerSideBalancer(), kgo.AutoCommitInterval(100*time.Millisecond),
		kgo.OnPartitionsAssigned(func(_ context.Context, _ *kgo.Client, ps map[string][]int32) { update(ps, true) }),
		kgo.OnPartitionsRevoked(func(_ context.Context, _ *kgo.Client, ps map[string][]int32) { update(ps, false) }),
		kgo.OnPartitionsLost(func(_ context.Context, _ *kgo.Client, ps map[string][]int32) { update(ps, false) }))
	if err != nil {
		t.Fatal(err)
	}
	m.cl = cl
	go func() {
		defer close(m.done)
		for {
			fs := cl.PollFetches(context.Background())
			if fs.IsClientClosed() {
				return
			}
			fs.EachRecord(func(r *kgo.Record) { seen.add(string(r.Value)) })
		}
	}()
	return m
}

// produceRange writes the values from..to-1, spread over the partitions.
func produceRange(t *testing.T, ctx context.Context, addr, topic string, from, to int) {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(addr), kgo.DefaultProduceTopic(topic), kgo.RecordPartitioner(kgo.RoundRobinPartitioner()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	var recs []*kgo.Record
	for i := from; i < to; i++ {
		recs = append(recs, &kgo.Record{Value: []byte(strconv.Itoa(i))})
	}
	if err := cl.ProduceSync(ctx, recs...).FirstErr(); err != nil {
		t.Fatal(err)
	}
}

// TestKIP848MembersContinueAcrossBrokerRestart: KIP-848 consumers read a
// topic, the broker is killed (SIGKILL) and started again on the same
// data directory, and the members carry on with their member ids, epochs
// and partitions, as against Kafka: the group comes back from
// __consumer_offsets, so there is no new group epoch, no partition is
// revoked or lost, nothing is consumed twice and nothing is skipped.
func TestKIP848MembersContinueAcrossBrokerRestart(t *testing.T) {
	if testing.Short() {
		t.Skip("kills and restarts a broker process")
	}
	k := &karstProcess{t: t, bin: buildKarst(t), dir: filepath.Join(t.TempDir(), "data"), addr: "127.0.0.1:" + strconv.Itoa(freePort(t))}
	k.start()
	defer func() { k.kill() }()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	const topic, group, partitions = "r848", "g-restart-848", 4
	admCl, err := kgo.NewClient(kgo.SeedBrokers(k.addr))
	if err != nil {
		t.Fatal(err)
	}
	defer admCl.Close()
	adm := kadm.NewClient(admCl)
	createAdminTopic(t, ctx, adm, topic, partitions)
	produceRange(t, ctx, k.addr, topic, 0, 200)

	seen := &consumedValues{count: map[string]int{}}
	members := []*recording848Member{
		startRecording848Member(t, k.addr, group, topic, seen),
		startRecording848Member(t, k.addr, group, topic, seen),
	}
	plain := func() []*groupMember { return []*groupMember{members[0].groupMember, members[1].groupMember} }
	committed := func() int64 {
		offs, err := adm.FetchOffsets(ctx, group)
		if err != nil {
			return -1
		}
		var sum int64
		offs.Each(func(o kadm.OffsetResponse) { sum += o.At })
		return sum
	}
	describe := func() (kmsg.ConsumerGroupDescribeResponseGroup, bool) {
		req := kmsg.NewPtrConsumerGroupDescribeRequest()
		req.Groups = []string{group}
		resp, err := req.RequestWith(ctx, admCl)
		if err != nil || len(resp.Groups) != 1 || resp.Groups[0].ErrorCode != 0 {
			return kmsg.ConsumerGroupDescribeResponseGroup{}, false
		}
		return resp.Groups[0], true
	}
	memberEpochs := func(g kmsg.ConsumerGroupDescribeResponseGroup) map[string]int32 {
		out := map[string]int32{}
		for _, m := range g.Members {
			out[m.MemberID] = m.MemberEpoch
		}
		return out
	}

	eventually(t, ctx, "2 members own 2 partitions each", func() bool {
		return splitExactly(plain(), partitions) && len(members[0].owned()) == 2
	})
	eventually(t, ctx, "200 records consumed and committed", func() bool {
		return seen.distinct() == 200 && committed() == 200
	})
	var before kmsg.ConsumerGroupDescribeResponseGroup
	eventually(t, ctx, "the group is Stable", func() bool {
		g, ok := describe()
		before = g
		return ok && g.State == "Stable" && len(g.Members) == 2
	})
	ownedBefore := [][]int32{members[0].owned(), members[1].owned()}
	for _, m := range members {
		m.counting.Store(true)
	}

	k.kill()
	k.start()

	produceRange(t, ctx, k.addr, topic, 200, 400)
	eventually(t, ctx, "400 records consumed and committed after the restart", func() bool {
		return seen.distinct() == 400 && committed() == 400
	})
	after, ok := describe()
	if !ok || after.Epoch != before.Epoch || after.AssignmentEpoch != before.AssignmentEpoch {
		t.Fatalf("group after the restart: epoch %d/%d, was %d/%d (%+v)", after.Epoch, after.AssignmentEpoch, before.Epoch, before.AssignmentEpoch, after)
	}
	if a, b := memberEpochs(after), memberEpochs(before); len(a) != len(b) {
		t.Fatalf("members after the restart %v, before %v", a, b)
	} else {
		for id, e := range b {
			if a[id] != e {
				t.Fatalf("members after the restart %v, before %v", a, b)
			}
		}
	}
	for i, m := range members {
		if n := m.lostOrRevoked.Load(); n != 0 {
			t.Fatalf("member %d lost or gave up %d partitions across the restart", i, n)
		}
		if got := m.owned(); len(got) != len(ownedBefore[i]) {
			t.Fatalf("member %d owns %v, owned %v", i, got, ownedBefore[i])
		}
	}
	seen.mu.Lock()
	dups := seen.dups
	seen.mu.Unlock()
	if len(dups) > 0 {
		t.Fatalf("consumed twice: %v", dups)
	}
	for _, m := range members {
		m.close()
	}
}

// TestKIP848UpgradesAnEmptyClassicGroup: a classic consumer group reads
// and commits, and leaves; a KIP-848 consumer joining the same group id
// turns it into a consumer group, as Kafka does with an empty classic
// group, and carries on from the committed offsets: nothing committed is
// consumed again, nothing is skipped.
func TestKIP848UpgradesAnEmptyClassicGroup(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	b := startGroupBroker(t)
	const topic, group = "up848", "g-upgrade"
	admCl, err := kgo.NewClient(kgo.SeedBrokers(b.Addr()))
	if err != nil {
		t.Fatal(err)
	}
	defer admCl.Close()
	adm := kadm.NewClient(admCl)
	createAdminTopic(t, ctx, adm, topic, 4)
	produceRange(t, ctx, b.Addr(), topic, 0, 100)

	classic, err := kgo.NewClient(kgo.SeedBrokers(b.Addr()), kgo.ConsumerGroup(group), kgo.ConsumeTopics(topic),
		kgo.DisableAutoCommit(), kgo.HeartbeatInterval(200*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	for n := 0; n < 100; {
		fs := classic.PollFetches(ctx)
		if ctx.Err() != nil {
			t.Fatalf("the classic consumer read %d of 100", n)
		}
		n += fs.NumRecords()
	}
	if err := classic.CommitUncommittedOffsets(ctx); err != nil {
		t.Fatal(err)
	}
	classic.Close() // leaves: the classic group is empty
	listed, err := adm.ListGroups(ctx)
	if err != nil || listed[group].State != "Empty" {
		t.Fatalf("classic group after its member left: %+v %v", listed[group], err)
	}

	produceRange(t, ctx, b.Addr(), topic, 100, 200)
	seen := &consumedValues{count: map[string]int{}}
	m := startRecording848Member(t, b.Addr(), group, topic, seen)
	defer m.close()
	eventually(t, ctx, "the 100 new records consumed", func() bool { return seen.distinct() >= 100 })
	seen.mu.Lock()
	for v := range seen.count {
		if i, _ := strconv.Atoi(v); i < 100 {
			t.Errorf("record %s, committed by the classic group, consumed again", v)
		}
	}
	if len(seen.count) != 100 || len(seen.dups) > 0 {
		t.Errorf("consumed %d distinct records (want 100), twice: %v", len(seen.count), seen.dups)
	}
	seen.mu.Unlock()

	eventually(t, ctx, "the group is listed as a consumer group", func() bool {
		req := kmsg.NewPtrListGroupsRequest()
		resp, err := req.RequestWith(ctx, admCl)
		if err != nil {
			return false
		}
		for _, g := range resp.Groups {
			if g.Group == group {
				return g.GroupType == "consumer"
			}
		}
		return false
	})
	req := kmsg.NewPtrDescribeGroupsRequest()
	req.Groups = []string{group}
	resp, err := req.RequestWith(ctx, admCl)
	if err != nil {
		t.Fatal(err)
	}
	if g := resp.Groups[0]; g.ErrorCode != 69 || g.ErrorMessage == nil || *g.ErrorMessage != "Group "+group+" is not a classic group." || g.State != "Dead" {
		t.Fatalf("DescribeGroups of the upgraded group: %+v", g)
	}
}
