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
}

const (
	appendPending = iota
	appendDurable
	appendLost
)

var errSyncFailed = errors.New("script: the fsync failed")

func (l *scriptLog) Append(_ string, recs []Record) (Durable, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	a := &scriptAppend{records: recs}
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
		for _, r := range a.records {
			if err := fn(StoredRecord{Key: r.Key, Value: r.Value, ProducerID: -1, ProducerEpoch: -1}); err != nil {
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
}

// scriptAnswer is a request's answer that waits for its records.
type scriptAnswer struct {
	name string
	wait Durable
	done bool
}

func newScript(t *testing.T) *script {
	s := &script{clock: &fakeClock{now: time.Unix(1_700_000_000, 0)}, log: &scriptLog{changed: make(chan struct{})}}
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
	s.c = New(scriptConfig(), Options{Clock: s.clock, Store: s.log})
	if _, err := s.c.Load(s.log); err != nil {
		t.Fatal(err)
	}
	s.answers = nil
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
		top, offsets := fetch(arg(t, d, "group", "g"), nil)
		if top != nil {
			fmt.Fprintf(&out, "error %s\n", top.Message)
		}
		for _, o := range offsets {
			fmt.Fprintf(&out, "%s-%d: %d\n", o.Topic, o.Partition, o.Offset)
		}
		if len(offsets) == 0 && top == nil {
			out.WriteString("no offsets\n")
		}
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
	default:
		t.Fatalf("unknown command %q", d.Cmd)
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
		if err != nil {
			fmt.Fprintf(out, "%s answered with %v\n", a.name, err)
		} else {
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
		fmt.Fprintf(out, "append (%s)\n", state)
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
				fmt.Fprintf(out, "  record of type %d\n", d.kind)
			}
		}
	}
	s.log.printed = len(s.log.appends)
	if out.Len() == 0 {
		out.WriteString("none\n")
	}
}
