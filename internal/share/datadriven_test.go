package share

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/datadriven"

	"github.com/karst-broker/karst/internal/coordinator"
)

// TestDataDriven runs the scripts in testdata/ against one share-partition
// persisting through a share coordinator over in-memory logs, with a
// manual clock. Commands:
//
//	new [start=N] [limit=N] [locks=N] [lock=DUR] [snapshot=N]
//	fetch member=M batches=(0-4,5-5:ctl) [from=N] [max=N] [strict] [size=N]
//	                       the batches a read found (ctl: not deliverable);
//	                       from defaults to FetchOffset
//	ack member=M acks=(0-1:accept,2-3:release,4-5:accept.reject) [renew]
//	release member=M       the member's session closed or it was fenced
//	logstart offset=N      retention moved the log start offset
//	advance d=DUR          the clock, running the lock timers due
//	state                  the in-flight window
//	durable                the state the share coordinator holds
//	records [dcc]          the records of __share_group_state, decoded
//	                       (dcc: with their DeliveryCompleteCount)
//	summary                what ReadShareGroupStateSummary answers
//	crash                  the broker dies: what is durable is reloaded
//	                       into a new coordinator and partition
func TestDataDriven(t *testing.T) {
	datadriven.Walk(t, "testdata", func(t *testing.T, path string) {
		s := &script{t: t}
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			args := map[string]string{}
			for _, a := range d.CmdArgs {
				args[a.Key] = strings.Join(a.Vals, ",")
			}
			return s.run(d.Cmd, args)
		})
	})
}

type script struct {
	t     *testing.T
	clock *coordinator.ManualClock
	logs  *coordinator.MemoryLogs
	coord *Coordinator
	part  *Partition
	cfg   Config
	start int64
	every int
	key   Key
}

func (s *script) num(args map[string]string, k string, def int64) int64 {
	v, ok := args[k]
	if !ok {
		return def
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		s.t.Fatalf("%s=%q: %v", k, v, err)
	}
	return n
}

func (s *script) load() string {
	s.coord = NewCoordinator(CoordinatorOptions{Logs: s.logs, Partitions: 1, UpdatesPerSnapshot: s.every, Clock: s.clock})
	p, err := LoadPartition(s.key, func() Config { return s.cfg }, s.clock, s.coord, func() (int64, error) { return s.start, nil })
	if err != nil {
		return "error: " + err.Error()
	}
	s.part = p
	return s.state()
}

func (s *script) run(cmd string, args map[string]string) string {
	switch cmd {
	case "new":
		s.clock = coordinator.NewManualClock(time.Unix(1_700_000_000, 0))
		s.logs = coordinator.NewMemoryLogs()
		s.key = Key{Group: "g", TopicID: [16]byte{1}, Partition: 0}
		s.start = s.num(args, "start", 0)
		s.every = int(s.num(args, "snapshot", 500))
		s.cfg = Config{RecordLockDuration: 30 * time.Second, DeliveryCountLimit: int16(s.num(args, "limit", 5)),
			MaxRecordLocks: int(s.num(args, "locks", 2000))}
		if d, ok := args["lock"]; ok {
			var err error
			if s.cfg.RecordLockDuration, err = time.ParseDuration(d); err != nil {
				s.t.Fatal(err)
			}
		}
		return s.load()
	case "fetch":
		var batches []FetchedBatch
		for _, b := range strings.Split(args["batches"], ",") {
			if b == "" {
				continue
			}
			b, ctl := strings.CutSuffix(b, ":ctl")
			first, last := s.span(b)
			batches = append(batches, FetchedBatch{FirstOffset: first, LastOffset: last, Deliverable: !ctl})
		}
		from, ok := s.part.FetchOffset()
		if !ok {
			return "window full"
		}
		from = s.num(args, "from", from)
		_, strict := args["strict"]
		got := s.part.Acquire(args["member"], from, batches, int(s.num(args, "max", 0)), int(s.num(args, "size", 0)), strict)
		var b strings.Builder
		for _, a := range got {
			fmt.Fprintf(&b, "acquired %d-%d delivery=%d\n", a.FirstOffset, a.LastOffset, a.DeliveryCount)
		}
		if len(got) == 0 {
			b.WriteString("acquired nothing\n")
		}
		return b.String() + s.state()
	case "ack":
		var acks []Ack
		for _, a := range strings.Split(args["acks"], ",") {
			span, types, _ := strings.Cut(a, ":")
			first, last := s.span(span)
			ack := Ack{FirstOffset: first, LastOffset: last}
			for _, t := range strings.Split(types, ".") {
				ack.Types = append(ack.Types, map[string]AcknowledgeType{"gap": AckGap, "accept": AckAccept,
					"release": AckRelease, "reject": AckReject, "renew": AckRenew, "bad": 9}[t])
			}
			acks = append(acks, ack)
		}
		_, renew := args["renew"]
		if err := s.part.Acknowledge(args["member"], acks, renew); err != nil {
			return "error: " + err.Error() + "\n" + s.state()
		}
		return s.state()
	case "release":
		if err := s.part.ReleaseMember(args["member"]); err != nil {
			return "error: " + err.Error()
		}
		return s.state()
	case "logstart":
		if err := s.part.AdvanceTo(s.num(args, "offset", 0)); err != nil {
			return "error: " + err.Error()
		}
		return s.state()
	case "advance":
		d, err := time.ParseDuration(args["d"])
		if err != nil {
			s.t.Fatal(err)
		}
		s.clock.Advance(d)
		return s.state()
	case "state":
		return s.state()
	case "durable":
		st, err := s.coord.ReadState(s.key)
		if err != nil {
			return "error: " + err.Error()
		}
		return formatState(st)
	case "summary":
		st, err := s.coord.ReadState(s.key)
		if err != nil {
			return "error: " + err.Error()
		}
		return fmt.Sprintf("start=%d deliveryCompleteCount=%d\n", st.StartOffset, st.DeliveryCompleteCount)
	case "records":
		var b strings.Builder
		_, withCount := args["dcc"]
		for _, e := range s.logs.Partition(0).Entries() {
			typ, k, err := decodeKey(e.Key)
			if err != nil {
				fmt.Fprintf(&b, "bad key: %v\n", err)
				continue
			}
			name := map[int16]string{recordSnapshot: "ShareSnapshot", recordUpdate: "ShareUpdate"}[typ]
			switch {
			case e.Value == nil:
				fmt.Fprintf(&b, "%d %s %s-%d tombstone\n", e.Offset, name, k.Group, k.Partition)
			case typ == recordSnapshot:
				v, err := decodeSnapshotValue(e.Value)
				fmt.Fprintf(&b, "%d %s snapshotEpoch=%d stateEpoch=%d start=%d %s", e.Offset, name, v.SnapshotEpoch, v.StateEpoch, v.StartOffset, formatBatches(v.Batches))
				if withCount {
					fmt.Fprintf(&b, " dcc=%d", v.DeliveryCompleteCount)
				}
				fmt.Fprintf(&b, " err=%v\n", err)
			default:
				v, err := decodeUpdateValue(e.Value)
				fmt.Fprintf(&b, "%d %s snapshotEpoch=%d start=%d %s", e.Offset, name, v.SnapshotEpoch, v.StartOffset, formatBatches(v.Batches))
				if withCount {
					fmt.Fprintf(&b, " dcc=%d", v.DeliveryCompleteCount)
				}
				fmt.Fprintf(&b, " err=%v\n", err)
			}
		}
		return b.String()
	case "crash":
		s.coord.Close()
		s.logs.Each(func(_ int32, l *coordinator.MemoryLog) { l.Crash() })
		return s.load()
	}
	s.t.Fatalf("unknown command %q", cmd)
	return ""
}

func (s *script) span(v string) (int64, int64) {
	a, b, ok := strings.Cut(v, "-")
	first, err := strconv.ParseInt(a, 10, 64)
	if err != nil {
		s.t.Fatalf("span %q: %v", v, err)
	}
	if !ok {
		return first, first
	}
	last, err := strconv.ParseInt(b, 10, 64)
	if err != nil {
		s.t.Fatalf("span %q: %v", v, err)
	}
	return first, last
}

// state prints the window as runs of records of the same state, count
// and member.
func (s *script) state() string {
	snap := s.part.Snapshot()
	var b strings.Builder
	fmt.Fprintf(&b, "start=%d end=%d locks=%d\n", snap.StartOffset, snap.EndOffset, snap.Locks)
	for i := 0; i < len(snap.Records); {
		r := snap.Records[i]
		j := i
		for j+1 < len(snap.Records) {
			n := snap.Records[j+1]
			if n.State != r.State || n.Count != r.Count || n.Member != r.Member {
				break
			}
			j++
		}
		fmt.Fprintf(&b, "  %d-%d %s delivery=%d", r.Offset, snap.Records[j].Offset, r.State, r.Count)
		if r.Member != "" {
			fmt.Fprintf(&b, " member=%s", r.Member)
		}
		b.WriteString("\n")
		i = j + 1
	}
	return b.String()
}

func formatBatches(bs []StateBatch) string {
	var parts []string
	for _, b := range bs {
		parts = append(parts, fmt.Sprintf("%d-%d:%s:%d", b.FirstOffset, b.LastOffset, b.DeliveryState, b.DeliveryCount))
	}
	return "[" + strings.Join(parts, " ") + "]"
}

func formatState(st State) string {
	return fmt.Sprintf("stateEpoch=%d start=%d batches=%s\n", st.StateEpoch, st.StartOffset, formatBatches(st.Batches))
}

func coordinatorEntry(key, value []byte) coordinator.Entry {
	return coordinator.Entry{Record: coordinator.Record{Key: key, Value: value}}
}
