package group

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cockroachdb/datadriven"
	"github.com/twmb/franz-go/pkg/kerr"
)

// TestScripts runs the deterministic coordinator scripts in testdata/
// (etcd raft and Pebble style): requests, clock ticks, the log's
// durability and crashes, with the records and answers they give. Run
// with -rewrite to regenerate the expected output after a deliberate
// change, then read the diff.
func TestScripts(t *testing.T) {
	datadriven.Walk(t, "testdata", func(t *testing.T, path string) {
		s := newScript(t)
		datadriven.RunTest(t, path, s.run)
	})
}

// scriptLog is a __consumer_offsets partition whose durability the
// script decides: an append stays pending until "sync" makes it durable
// or "fail-sync" loses it, and "crash" restarts from the durable appends
// only, as a broker killed before its fsync does.
type scriptLog struct {
	mu      sync.Mutex
	appends []*scriptAppend
	printed int
	changed chan struct{}
}

type scriptAppend struct {
	records []Record
	state   int // appendPending, appendDurable, appendLost
	// txn is the producer of a transactional batch; marker, a control
	// batch of it that commits (commit) or aborts.
	txn            *txnProducer
	marker, commit bool
}

const (
	appendPending = iota
	appendDurable
	appendLost
)

var errSyncFailed = errors.New("script: the fsync failed")

func (l *scriptLog) Append(_ string, recs []Record) (Durable, error) {
	return l.add(&scriptAppend{records: recs})
}

// AppendTxn writes a producer's transactional batch (TxnStore).
func (l *scriptLog) AppendTxn(_ string, producerID int64, producerEpoch int16, recs []Record) (Durable, error) {
	return l.add(&scriptAppend{records: recs, txn: &txnProducer{id: producerID, epoch: producerEpoch}})
}

func (l *scriptLog) add(a *scriptAppend) (Durable, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.appends = append(l.appends, a)
	return func(ctx context.Context) error {
		for {
			l.mu.Lock()
			state, changed := a.state, l.changed
			l.mu.Unlock()
			switch state {
			case appendDurable:
				return nil
			case appendLost:
				return errSyncFailed
			}
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-changed:
			}
		}
	}, nil
}

// settle moves every pending append to state.
func (l *scriptLog) settle(state int) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for _, a := range l.appends {
		if a.state == appendPending {
			a.state = state
			n++
		}
	}
	close(l.changed)
	l.changed = make(chan struct{})
	return n
}

// Replay hands the durable records to Load; a crash loses the rest.
func (l *scriptLog) Replay(fn func(StoredRecord) error) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, a := range l.appends {
		if a.state != appendDurable {
			continue
		}
		sr := StoredRecord{ProducerID: -1, ProducerEpoch: -1}
		if a.txn != nil {
			sr.ProducerID, sr.ProducerEpoch, sr.Transactional = a.txn.id, a.txn.epoch, true
		}
		if a.marker {
			sr.Marker, sr.Commit = true, a.commit
			if err := fn(sr); err != nil {
				return err
			}
			continue
		}
		for _, r := range a.records {
			sr.Key, sr.Value = r.Key, r.Value
			if err := fn(sr); err != nil {
				return err
			}
		}
	}
	return nil
}

// crash drops what was not durable, as the restarted broker's log has it.
func (l *scriptLog) crash() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	kept := l.appends[:0]
	lost := 0
	for _, a := range l.appends {
		if a.state == appendDurable {
			kept = append(kept, a)
		} else {
			lost += len(a.records)
		}
	}
	l.appends, l.printed = kept, len(kept)
	return lost
}

type script struct {
	clock   *fakeClock
	log     *scriptLog
	c       *Coordinator
	answers []scriptAnswer
	// topics is what KIP-848 heartbeats see of the cluster ("topics").
	topics fakeTopics
	// joins are JoinGroup answers still waiting for their rebalance.
	joins []scriptJoin
	// ids numbers the member ids the coordinator hands out, so that the
	// script can name them.
	ids int
}

// scriptAnswer is a request's answer that waits for its records; show,
// if set, prints the answer once they are durable.
type scriptAnswer struct {
	name string
	wait Durable
	done bool
	show func(out *strings.Builder, err error)
}

// scriptJoin is a JoinGroup waiting for the end of its join phase.
type scriptJoin struct {
	name string
	ch   <-chan JoinResult
}

func newScript(t *testing.T) *script {
	s := &script{clock: &fakeClock{now: time.Unix(1_700_000_000, 0)}, log: &scriptLog{changed: make(chan struct{})},
		topics: fakeTopics{}}
	s.start(t)
	return s
}

func scriptConfig() Config {
	cfg := testConfig()
	cfg.OffsetsRetention = time.Hour
	cfg.OffsetsRetentionCheckInterval = time.Minute
	return cfg
}

func (s *script) start(t *testing.T) {
	if s.c != nil {
		halt(s.c)
	}
	s.c = New(scriptConfig(), Options{Clock: s.clock, Store: s.log, Topics: s.topics})
	s.c.newUUID = func() string { s.ids++; return strconv.Itoa(s.ids) }
	if _, err := s.c.Load(s.log); err != nil {
		t.Fatal(err)
	}
	s.answers, s.joins = nil, nil
}

func (s *script) run(t *testing.T, d *datadriven.TestData) string {
	var out strings.Builder
	switch d.Cmd {
	case "commit":
		req := CommitRequest{GroupID: arg(t, d, "group", "g"), Generation: -1}
		req.Offsets = parseOffsets(t, d.Input)
		top, errs, wait := s.c.CommitOffsets(req)
		writeCodes(&out, req.Offsets, top, errs)
		s.await(&out, "commit", wait)
	case "delete-offsets":
		var tps []TopicPartition
		for _, o := range parseOffsets(t, d.Input) {
			tps = append(tps, o.TopicPartition)
		}
		top, errs, wait := s.c.DeleteOffsets(arg(t, d, "group", "g"), tps)
		offsets := make([]OffsetToCommit, len(tps))
		for i, tp := range tps {
			offsets[i].TopicPartition = tp
		}
		writeCodes(&out, offsets, top, errs)
		if top == nil {
			s.await(&out, "delete-offsets", wait)
		}
	case "fetch":
		fetch := s.c.FetchOffsets
		if d.HasArg("stable") {
			fetch = s.c.FetchStableOffsets
		}
		// partitions=t-0,t-1 asks for those; none: every one.
		var tps []TopicPartition
		if d.HasArg("partitions") {
			tps = parseTPs(t, arg(t, d, "partitions", ""))
		}
		top, offsets := fetch(arg(t, d, "group", "g"), tps)
		if top != nil {
			fmt.Fprintf(&out, "error %s\n", top.Message)
		}
		for _, o := range offsets {
			if o.Err != nil {
				fmt.Fprintf(&out, "%s-%d: %s\n", o.Topic, o.Partition, o.Err.Message)
				continue
			}
			fmt.Fprintf(&out, "%s-%d: %d\n", o.Topic, o.Partition, o.Offset)
		}
		if len(offsets) == 0 && top == nil {
			out.WriteString("no offsets\n")
		}
	case "txn-commit":
		var producer, epoch int
		d.ScanArgs(t, "producer", &producer)
		d.ScanArgs(t, "epoch", &epoch)
		req := TxnCommitRequest{GroupID: arg(t, d, "group", "g"), ProducerID: int64(producer), ProducerEpoch: int16(epoch),
			Generation: -1, Offsets: parseOffsets(t, d.Input)}
		top, errs, wait := s.c.CommitTransactionalOffsets(req)
		writeCodes(&out, req.Offsets, top, errs)
		if top == nil {
			s.await(&out, "txn-commit", wait)
		}
	case "end-txn":
		// The transaction coordinator writes the marker, durable, then
		// ends the transaction in the groups.
		var producer, epoch int
		d.ScanArgs(t, "producer", &producer)
		d.ScanArgs(t, "epoch", &epoch)
		commit := d.HasArg("commit")
		s.log.mu.Lock()
		s.log.appends = append(s.log.appends, &scriptAppend{state: appendDurable, marker: true, commit: commit,
			txn: &txnProducer{id: int64(producer), epoch: int16(epoch)}})
		s.log.mu.Unlock()
		s.c.CompleteTransaction(int64(producer), int16(epoch), commit)
		fmt.Fprintf(&out, "pending transactions %v\n", s.c.PendingTransactions())
	case "classic-heartbeat":
		var gen int
		d.ScanArgs(t, "generation", &gen)
		var instance *string
		if d.HasArg("instance") {
			id := arg(t, d, "instance", "")
			instance = &id
		}
		member := arg(t, d, "member", "")
		if err := s.c.Heartbeat(arg(t, d, "group", "g"), member, instance, int32(gen)); err != nil {
			fmt.Fprintf(&out, "heartbeat %s: %s\n", member, err.Message)
		} else {
			fmt.Fprintf(&out, "heartbeat %s: ok\n", member)
		}
	case "group":
		id := arg(t, d, "group", "g")
		g := s.c.group(id, false)
		if g == nil {
			out.WriteString("no group\n")
			break
		}
		g.mu.Lock()
		fmt.Fprintf(&out, "%s: %s generation %d leader %q members %q\n", id, g.state, g.generation, g.leader, g.order)
		g.mu.Unlock()
	case "records":
		s.writeRecords(&out)
	case "sync":
		fmt.Fprintf(&out, "%d appends durable\n", s.log.settle(appendDurable))
		s.writeAnswers(&out)
	case "fail-sync":
		fmt.Fprintf(&out, "%d appends lost\n", s.log.settle(appendLost))
		s.writeAnswers(&out)
	case "crash":
		lost := s.log.crash()
		s.start(t)
		fmt.Fprintf(&out, "restarted; %d records lost\n", lost)
	case "tick":
		var dur string
		d.ScanArgs(t, "advance", &dur)
		step, err := time.ParseDuration(dur)
		if err != nil {
			t.Fatal(err)
		}
		s.clock.advance(step)
		s.c.Tick()
		out.WriteString("ok\n")
	case "topics":
		for _, a := range d.CmdArgs {
			n, err := strconv.Atoi(a.Vals[0])
			if err != nil {
				t.Fatal(err)
			}
			s.topics[a.Key] = int32(n)
		}
		out.WriteString("ok\n")
	case "join":
		s.join(t, d, &out)
	case "sync-group":
		s.syncGroup(t, d, &out)
	case "list":
		for _, l := range s.c.List(nil, nil) {
			fmt.Fprintf(&out, "%s: %s %s %q\n", l.GroupID, l.Type, l.State, l.ProtocolType)
		}
		if out.Len() == 0 {
			out.WriteString("no groups\n")
		}
	case "heartbeat":
		s.heartbeat(t, d, &out)
	case "describe-consumer":
		s.describeConsumer(arg(t, d, "group", "g"), &out)
	case "describe":
		for _, g := range s.c.Describe([]string{arg(t, d, "group", "g")}) {
			fmt.Fprintf(&out, "%s: %s protocol %q\n", g.GroupID, g.State, g.Protocol)
			for _, m := range g.Members {
				fmt.Fprintf(&out, "  %s assignment %q\n", m.MemberID, m.Assignment)
			}
		}
	default:
		t.Fatalf("unknown command %q", d.Cmd)
	}
	if d.Cmd != "crash" {
		s.writeJoins(&out)
	}
	return out.String()
}

func arg(t *testing.T, d *datadriven.TestData, key, def string) string {
	if !d.HasArg(key) {
		return def
	}
	var v string
	d.ScanArgs(t, key, &v)
	return v
}

// parseOffsets reads lines "topic partition [offset]".
// parseTPs reads partitions written t-0,t-1 ("" is none).
func parseTPs(t *testing.T, list string) []TopicPartition {
	var out []TopicPartition
	for _, tp := range strings.Split(list, ",") {
		if tp == "" {
			continue
		}
		i := strings.LastIndexByte(tp, '-')
		p, err := strconv.Atoi(tp[i+1:])
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, TopicPartition{tp[:i], int32(p)})
	}
	return out
}

func parseOffsets(t *testing.T, input string) []OffsetToCommit {
	var out []OffsetToCommit
	for _, line := range strings.Split(strings.TrimSpace(input), "\n") {
		f := strings.Fields(line)
		if len(f) < 2 {
			t.Fatalf("want \"topic partition [offset]\": %q", line)
		}
		p, err := strconv.Atoi(f[1])
		if err != nil {
			t.Fatal(err)
		}
		o := OffsetToCommit{TopicPartition: TopicPartition{f[0], int32(p)}, LeaderEpoch: -1}
		if len(f) > 2 {
			if o.Offset, err = strconv.ParseInt(f[2], 10, 64); err != nil {
				t.Fatal(err)
			}
		}
		out = append(out, o)
	}
	return out
}

func writeCodes(out *strings.Builder, offsets []OffsetToCommit, top *kerr.Error, errs []*kerr.Error) {
	for i, o := range offsets {
		res := "ok"
		switch {
		case top != nil:
			res = top.Message
		case errs[i] != nil:
			res = errs[i].Message
		}
		fmt.Fprintf(out, "%s-%d: %s\n", o.Topic, o.Partition, res)
	}
}

// await reports whether an answer is ready or waits for durability.
func (s *script) await(out *strings.Builder, name string, wait Durable) {
	if err := wait(notWaiting); errors.Is(err, context.Canceled) {
		fmt.Fprintf(out, "answer waits for durability\n")
		s.answers = append(s.answers, scriptAnswer{name: name, wait: wait})
		return
	}
	out.WriteString("answered\n")
}

// writeAnswers lists the waiting answers given since the last call.
func (s *script) writeAnswers(out *strings.Builder) {
	for i := range s.answers {
		a := &s.answers[i]
		if a.done {
			continue
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		err := a.wait(ctx)
		cancel()
		a.done = true
		switch {
		case a.show != nil:
			a.show(out, err)
		case err != nil:
			fmt.Fprintf(out, "%s answered with %v\n", a.name, err)
		default:
			fmt.Fprintf(out, "%s answered\n", a.name)
		}
	}
}

// writeRecords prints the appends made since the last call.
func (s *script) writeRecords(out *strings.Builder) {
	s.log.mu.Lock()
	defer s.log.mu.Unlock()
	for _, a := range s.log.appends[s.log.printed:] {
		state := [...]string{"pending", "durable", "lost"}[a.state]
		switch {
		case a.marker:
			fmt.Fprintf(out, "marker (%s) producer %d commit %t\n", state, a.txn.id, a.commit)
		case a.txn != nil:
			fmt.Fprintf(out, "append (%s) producer %d epoch %d\n", state, a.txn.id, a.txn.epoch)
		default:
			fmt.Fprintf(out, "append (%s)\n", state)
		}
		for _, r := range a.records {
			d, err := decodeRecord(r.Key, r.Value)
			switch {
			case err != nil:
				fmt.Fprintf(out, "  undecodable\n")
			case d.kind == keyOffsetCommit && d.offset == nil:
				fmt.Fprintf(out, "  offset tombstone %s %s-%d\n", d.group, d.tp.Topic, d.tp.Partition)
			case d.kind == keyOffsetCommit:
				fmt.Fprintf(out, "  offset commit %s %s-%d %d\n", d.group, d.tp.Topic, d.tp.Partition, d.offset.Offset)
			case d.kind == keyGroupMetadata && d.meta == nil:
				fmt.Fprintf(out, "  group tombstone %s\n", d.group)
			case d.kind == keyGroupMetadata:
				fmt.Fprintf(out, "  group metadata %s generation %d\n", d.group, d.meta.Generation)
			default:
				s.writeConsumerRecord(out, r)
			}
		}
	}
	s.log.printed = len(s.log.appends)
	if out.Len() == 0 {
		out.WriteString("none\n")
	}
}

// join sends a JoinGroup: member= (none: a new member), instance= for a
// static member, v4 for a client that must join again with the id it is
// given (MEMBER_ID_REQUIRED).
func (s *script) join(t *testing.T, d *datadriven.TestData, out *strings.Builder) {
	req := JoinRequest{GroupID: arg(t, d, "group", "g"), MemberID: arg(t, d, "member", ""), ClientID: "c",
		ProtocolType: "consumer", Protocols: []Protocol{{Name: arg(t, d, "protocol", "range"), Metadata: []byte{}}},
		SessionTimeout: 30 * time.Second, RebalanceTimeout: time.Minute, RequireKnownMemberID: d.HasArg("v4")}
	if d.HasArg("instance") {
		id := arg(t, d, "instance", "")
		req.InstanceID = &id
	}
	name := "join " + req.MemberID
	if req.MemberID == "" {
		name = "join (new member)"
	}
	if req.InstanceID != nil {
		name = "join " + *req.InstanceID
	}
	ch := s.c.Join(req)
	select {
	case res := <-ch:
		s.writeJoin(out, name, res)
	default:
		fmt.Fprintf(out, "%s waits for the rebalance\n", name)
		s.joins = append(s.joins, scriptJoin{name: name, ch: ch})
	}
}

// writeJoin prints a JoinGroup answer, or queues it when it waits for
// its records.
func (s *script) writeJoin(out *strings.Builder, name string, res JoinResult) {
	show := func(out *strings.Builder, err error) {
		if err != nil {
			fmt.Fprintf(out, "%s: %v\n", name, err)
			return
		}
		if res.Err != nil {
			fmt.Fprintf(out, "%s: %s member %q\n", name, res.Err.Message, res.MemberID)
			return
		}
		fmt.Fprintf(out, "%s: member %s generation %d leader %s members %d skip-assignment %t\n",
			name, res.MemberID, res.Generation, res.Leader, len(res.Members), res.SkipAssignment)
	}
	s.answer(out, name, res.Wait, show)
}

// answer prints an answer, or queues it when it waits for its records
// (wait is not nil and they are not durable yet).
func (s *script) answer(out *strings.Builder, name string, wait Durable, show func(*strings.Builder, error)) {
	if wait != nil {
		if err := wait(notWaiting); errors.Is(err, context.Canceled) {
			fmt.Fprintf(out, "%s answer waits for durability\n", name)
			s.answers = append(s.answers, scriptAnswer{name: name, wait: wait, show: show})
			return
		}
	}
	show(out, nil)
}

// writeJoins prints the JoinGroup answers their rebalance gave since.
func (s *script) writeJoins(out *strings.Builder) {
	waiting := s.joins[:0]
	for _, j := range s.joins {
		select {
		case res := <-j.ch:
			s.writeJoin(out, j.name, res)
		default:
			waiting = append(waiting, j)
		}
	}
	s.joins = waiting
}

// syncGroup sends a SyncGroup; the leader's lists "member assignment"
// lines in its input.
func (s *script) syncGroup(t *testing.T, d *datadriven.TestData, out *strings.Builder) {
	var gen int
	d.ScanArgs(t, "generation", &gen)
	req := SyncRequest{GroupID: arg(t, d, "group", "g"), MemberID: arg(t, d, "member", ""), Generation: int32(gen)}
	if d.HasArg("instance") {
		id := arg(t, d, "instance", "")
		req.InstanceID = &id
	}
	for _, line := range strings.Split(strings.TrimSpace(d.Input), "\n") {
		if f := strings.Fields(line); len(f) == 2 {
			req.Assignments = append(req.Assignments, Assignment{MemberID: f[0], Assignment: []byte(f[1])})
		}
	}
	name := "sync " + req.MemberID
	show := func(res SyncResult) func(*strings.Builder, error) {
		return func(out *strings.Builder, err error) {
			switch {
			case err != nil:
				fmt.Fprintf(out, "%s: %v\n", name, err)
			case res.Err != nil:
				fmt.Fprintf(out, "%s: %s\n", name, res.Err.Message)
			default:
				fmt.Fprintf(out, "%s: assignment %q\n", name, res.Assignment)
			}
		}
	}
	select {
	case res := <-s.c.Sync(req):
		s.answer(out, name, res.Wait, show(res))
	case <-time.After(10 * time.Second):
		t.Fatal("the script's SyncGroup waits for a member that is not in the script")
	}
}

// heartbeat sends a ConsumerGroupHeartbeat: member=, epoch=, topics=t,u
// (the subscription; none: unchanged), owned=t-0,t-1 (none: unchanged;
// "owned=" for nothing), instance= for a static member,
// rebalance-timeout= its max.poll.interval.ms.
func (s *script) heartbeat(t *testing.T, d *datadriven.TestData, out *strings.Builder) {
	var epoch int
	d.ScanArgs(t, "epoch", &epoch)
	req := ConsumerHeartbeat{GroupID: arg(t, d, "group", "g"), MemberID: arg(t, d, "member", ""),
		MemberEpoch: int32(epoch), ClientID: "c", Topics: s.topics}
	if d.HasArg("topics") {
		req.SubscribedTopics = strings.Split(arg(t, d, "topics", ""), ",")
	}
	if d.HasArg("instance") {
		id := arg(t, d, "instance", "")
		req.InstanceID = &id
	}
	if d.HasArg("rebalance-timeout") {
		timeout, err := time.ParseDuration(arg(t, d, "rebalance-timeout", ""))
		if err != nil {
			t.Fatal(err)
		}
		req.RebalanceTimeout = timeout
	}
	if d.HasArg("owned") {
		req.OwnedSent = true
		req.Owned = parseTPs(t, arg(t, d, "owned", ""))
	}
	res := s.c.ConsumerHeartbeat(req)
	name := "heartbeat " + req.MemberID
	show := func(out *strings.Builder, err error) {
		switch {
		case err != nil:
			fmt.Fprintf(out, "%s: %v\n", name, err)
		case res.Err != nil:
			fmt.Fprintf(out, "%s: %s\n", name, res.Err.Message)
		case res.Assignment == nil:
			fmt.Fprintf(out, "%s: epoch %d\n", name, res.MemberEpoch)
		default:
			fmt.Fprintf(out, "%s: epoch %d assignment %s\n", name, res.MemberEpoch, formatAssignment(res.Assignment))
		}
	}
	s.answer(out, name, res.Wait, show)
}

// describeConsumer prints a KIP-848 group as ConsumerGroupDescribe
// shows it.
func (s *script) describeConsumer(id string, out *strings.Builder) {
	for _, d := range s.c.DescribeConsumerGroups([]string{id}) {
		if d.Err != nil {
			fmt.Fprintf(out, "%s: %s\n", d.GroupID, d.Err.Message)
			continue
		}
		fmt.Fprintf(out, "%s: %s epoch %d assignment epoch %d\n", d.GroupID, d.State, d.Epoch, d.AssignmentEpoch)
		for _, m := range d.Members {
			fmt.Fprintf(out, "  %s epoch %d assigned %s target %s\n", m.MemberID, m.MemberEpoch,
				formatAssignment(m.Assignment), formatAssignment(m.TargetAssignment))
		}
	}
}

func formatAssignment(ma MemberAssignment) string {
	var parts []string
	for _, tp := range partitionsOf(ma) {
		parts = append(parts, fmt.Sprintf("%s-%d", tp.Topic, tp.Partition))
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ",")
}

// writeConsumerRecord prints one KIP-848 record, topics by name.
func (s *script) writeConsumerRecord(out *strings.Builder, r Record) {
	rec, ok, err := decodeConsumerRecord(r.Key, r.Value)
	if !ok || err != nil {
		fmt.Fprintf(out, "  undecodable record\n")
		return
	}
	names := func(tps []topicPartitions) string {
		return formatAssignment(fromTopicPartitions(tps, s.topics))
	}
	kind := [...]string{keyConsumerGroupMetadata: "consumer group epoch", keyConsumerGroupPartitionMetadata: "consumer partition metadata",
		keyConsumerGroupMemberMetadata: "consumer member", keyConsumerGroupTargetMetadata: "consumer target epoch",
		keyConsumerGroupTargetMember: "consumer target", keyConsumerGroupCurrentAssignment: "consumer current"}[rec.Type]
	who := rec.Group
	if rec.Member != "" {
		who += " " + rec.Member
	}
	switch {
	case rec.Tombstone:
		fmt.Fprintf(out, "  %s tombstone %s\n", kind, who)
	case rec.Type == keyConsumerGroupMetadata, rec.Type == keyConsumerGroupTargetMetadata:
		fmt.Fprintf(out, "  %s %s %d\n", kind, who, rec.Epoch)
	case rec.Type == keyConsumerGroupMemberMetadata:
		fmt.Fprintf(out, "  %s %s topics %s\n", kind, who, strings.Join(rec.Member5.SubscribedTopics, ","))
	case rec.Type == keyConsumerGroupTargetMember:
		fmt.Fprintf(out, "  %s %s %s\n", kind, who, names(rec.Target))
	case rec.Type == keyConsumerGroupCurrentAssignment:
		fmt.Fprintf(out, "  %s %s epoch %d assigned %s revoking %s\n", kind, who, rec.Current.MemberEpoch,
			names(rec.Current.Assigned), names(rec.Current.PendingRevocation))
	default:
		fmt.Fprintf(out, "  %s %s\n", kind, who)
	}
}
