package integration

// The checker of TestTxnJepsenConsumeTransformProduceUnderSIGKILL: it judges
// the history the workers, the observer and the offset sampler recorded
// against the output read back after the run, and names every anomaly with
// the ids, partitions and offsets involved.

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// jepsenInput is where each input id was written.
type jepsenInput struct {
	pos map[int]jepsenPos // id -> input partition and offset
	at  map[jepsenPos]int // input partition and offset -> id
}

type jepsenPos struct {
	partition int32
	offset    int64
}

func (p jepsenPos) String() string { return fmt.Sprintf("%d/%d", p.partition, p.offset) }

// jepsenOutputValue is how a worker writes the transform of input id read
// at in: the id and where it came from.
func jepsenOutputValue(id int, in jepsenPos) string {
	return fmt.Sprintf("out-%d@%d/%d", id, in.partition, in.offset)
}

func parseJepsenOutput(v string) (id int, in jepsenPos, ok bool) {
	rest, found := strings.CutPrefix(v, "out-")
	if !found {
		return 0, in, false
	}
	idText, posText, found := strings.Cut(rest, "@")
	partText, offText, found2 := strings.Cut(posText, "/")
	if !found || !found2 {
		return 0, in, false
	}
	id, err1 := strconv.Atoi(idText)
	part, err2 := strconv.ParseInt(partText, 10, 32)
	off, err3 := strconv.ParseInt(offText, 10, 64)
	if err1 != nil || err2 != nil || err3 != nil {
		return 0, in, false
	}
	return id, jepsenPos{int32(part), off}, true
}

// jepsenHistory is everything the clients were told during the run.
type jepsenHistory struct {
	// observed[p] is what the read_committed observer was given from
	// output partition p, offset -> value (a re-read of the same offset
	// must give the same value; conflicts lists those that did not).
	observed  map[int32]map[int64]string
	conflicts []string
	// acked is, for every transaction a worker was told committed, the
	// output values it wrote and where.
	acked []jepsenAck
	// samples are the group's committed offsets of the input topic as
	// read during the run, in the order they were read.
	samples []map[int32]int64
}

type jepsenAck struct {
	worker string
	value  string
	out    jepsenPos
}

// jepsenFinal is the output topic read back after the run.
type jepsenFinal struct {
	committed   [][]string // read_committed, per partition in offset order
	uncommitted [][]string // read_uncommitted, per partition in offset order
	offsets     map[int32]int64
}

// checkJepsen returns every anomaly of the run; none means the output holds
// every input record exactly once, no read_committed reader was given an
// aborted record, and no committed offset ran ahead of its output.
func checkJepsen(in jepsenInput, h *jepsenHistory, f jepsenFinal) (anomalies []string) {
	report := func(format string, args ...any) { anomalies = append(anomalies, fmt.Sprintf(format, args...)) }

	// 1. The committed output: every input id exactly once, each carrying
	// the input position it was read from.
	finalOf := map[int][]string{} // id -> committed output values
	finalSet := map[string]bool{}
	for p, vs := range f.committed {
		for i, v := range vs {
			id, from, ok := parseJepsenOutput(v)
			if !ok {
				report("output partition %d, committed record #%d: unparsable value %q", p, i, v)
				continue
			}
			if want, known := in.pos[id]; !known || want != from {
				report("output %q claims input position %v, but input id %d was written at %v", v, from, id, want)
			}
			finalOf[id] = append(finalOf[id], v)
			finalSet[v] = true
		}
	}
	var lost []int
	var duplicated []string
	for _, id := range slices.Sorted(maps.Keys(in.pos)) {
		switch n := len(finalOf[id]); {
		case n == 0:
			lost = append(lost, id)
		case n > 1:
			duplicated = append(duplicated, fmt.Sprintf("id %d ×%d %q", id, n, finalOf[id]))
		}
	}
	for id := range finalOf {
		if _, known := in.pos[id]; !known {
			report("output holds id %d that was never input", id)
		}
	}
	if len(lost) > 0 {
		report("LOST: %d input ids have no committed output: %v", len(lost), shortInts(lost))
	}
	if len(duplicated) > 0 {
		report("DUPLICATED: %d input ids have more than one committed output: %q", len(duplicated), short(duplicated))
	}

	// 2. Every transaction a worker was told committed is in the output.
	ackedOf := map[string][]jepsenAck{}
	for _, a := range h.acked {
		ackedOf[a.value] = append(ackedOf[a.value], a)
	}
	var ackLost []string
	for _, v := range slices.Sorted(maps.Keys(ackedOf)) {
		as := ackedOf[v]
		if !finalSet[v] {
			ackLost = append(ackLost, fmt.Sprintf("%s (worker %s, at output %v)", v, as[0].worker, as[0].out))
		}
		if len(as) > 1 {
			report("acknowledged twice: %q committed by %d transactions: %+v", v, len(as), as)
		}
	}
	if len(ackLost) > 0 {
		report("ACKNOWLEDGED COMMIT LOST: %d records of transactions whose commit succeeded are not in the committed output: %q", len(ackLost), short(ackLost))
	}

	// 3. The observer: nothing aborted, nothing twice, and (since it read
	// up to the sentinels) exactly the committed output, in order.
	reportList := func(list []string, format string) {
		if len(list) > 0 {
			report(format, len(list), short(list))
		}
	}
	reportList(h.conflicts, "OBSERVER RE-READ DIFFERS: %d offsets gave different values on different reads: %q")
	var abortedSeen, seenTwice, skipped, reordered []string
	observedAt := map[string][]string{}
	for p, vs := range f.committed {
		byOffset := h.observed[int32(p)]
		offs := slices.Sorted(maps.Keys(byOffset))
		var seq []string
		for _, o := range offs {
			v := byOffset[o]
			if strings.HasPrefix(v, "end-") {
				continue
			}
			seq = append(seq, v)
			observedAt[v] = append(observedAt[v], fmt.Sprintf("%d/%d", p, o))
			if !finalSet[v] {
				abortedSeen = append(abortedSeen, fmt.Sprintf("%s at output %d/%d", v, p, o))
			}
		}
		if len(abortedSeen) == 0 && !slices.Equal(seq, vs) {
			seen := map[string]bool{}
			for _, v := range seq {
				seen[v] = true
			}
			for _, v := range vs {
				if !seen[v] {
					skipped = append(skipped, fmt.Sprintf("%s on output partition %d", v, p))
				}
			}
			if len(seq) == len(vs) {
				reordered = append(reordered, fmt.Sprintf("partition %d: observed %q, final %q", p, short(seq), short(vs)))
			}
		}
	}
	for _, v := range slices.Sorted(maps.Keys(observedAt)) {
		if at := observedAt[v]; len(at) > 1 {
			seenTwice = append(seenTwice, fmt.Sprintf("%s at output %v", v, at))
		}
	}
	reportList(abortedSeen, "ABORTED READ: the read_committed observer was given %d records that are not in the committed output: %q")
	reportList(seenTwice, "OBSERVER SAW TWICE: %d values at more than one output offset: %q")
	reportList(skipped, "OBSERVER SKIPPED: %d committed records the read_committed observer never got: %q")
	reportList(reordered, "OBSERVER ORDER: %d partitions where the observer's sequence differs from the committed output: %q")

	// 4. Committed offsets: the final ones cover the whole input; no
	// sample ever went backwards; every input record below any sample has
	// its output committed.
	ends := map[int32]int64{}
	for pos := range in.at {
		ends[pos.partition] = max(ends[pos.partition], pos.offset+1)
	}
	for p, end := range ends {
		if f.offsets[p] != end {
			report("final committed offset of input partition %d is %d, its end offset %d", p, f.offsets[p], end)
		}
	}
	samples := append(slices.Clone(h.samples), f.offsets)
	var ahead []string
	aheadSeen := map[jepsenPos]bool{}
	prev := map[int32]int64{}
	for i, s := range samples {
		for p, c := range s {
			if c < prev[p] {
				report("COMMITTED OFFSET WENT BACK: input partition %d read as %d, later as %d (sample %d of %d)", p, prev[p], c, i, len(samples))
			}
			prev[p] = max(prev[p], c)
			for o := range c {
				pos := jepsenPos{p, o}
				id, ok := in.at[pos]
				if !ok {
					if !aheadSeen[pos] {
						aheadSeen[pos] = true
						ahead = append(ahead, fmt.Sprintf("committed %d on input partition %d, past its end", c, p))
					}
					break
				}
				if len(finalOf[id]) == 0 && !aheadSeen[pos] {
					aheadSeen[pos] = true
					ahead = append(ahead, fmt.Sprintf("input %v (id %d) below committed offset %d (sample %d) has no output", pos, id, c, i))
				}
			}
		}
	}
	if len(ahead) > 0 {
		report("OFFSET AHEAD OF OUTPUT: %d input records: %q", len(ahead), short(ahead))
	}
	return anomalies
}

func shortInts(ids []int) string {
	s := make([]string, len(ids))
	for i, id := range ids {
		s[i] = strconv.Itoa(id)
	}
	return fmt.Sprint(short(s))
}

// TestCheckJepsenFindsEachAnomaly feeds the checker a clean history and
// then one broken in each way it must catch, so that a passing run of the
// SIGKILL test means something.
func TestCheckJepsenFindsEachAnomaly(t *testing.T) {
	// Six input ids over two partitions; the clean run commits each once.
	in := jepsenInput{pos: map[int]jepsenPos{}, at: map[jepsenPos]int{}}
	for id := range 6 {
		pos := jepsenPos{int32(id % 2), int64(id / 2)}
		in.pos[id], in.at[pos] = pos, id
	}
	out := func(id int) string { return jepsenOutputValue(id, in.pos[id]) }
	clean := func() (*jepsenHistory, jepsenFinal) {
		h := &jepsenHistory{observed: map[int32]map[int64]string{}}
		f := jepsenFinal{committed: make([][]string, 2), offsets: map[int32]int64{0: 3, 1: 3}}
		for p := range int32(2) {
			h.observed[p] = map[int64]string{}
			for i, id := range []int{int(p), int(p) + 2, int(p) + 4} {
				f.committed[p] = append(f.committed[p], out(id))
				// Offsets 2i: a commit marker follows each record.
				h.observed[p][int64(2*i)] = out(id)
				h.acked = append(h.acked, jepsenAck{worker: "w", value: out(id), out: jepsenPos{p, int64(2 * i)}})
			}
			h.observed[p][6] = "end-final"
		}
		h.samples = []map[int32]int64{{0: 1}, {0: 2, 1: 1}, {0: 3, 1: 3}}
		return h, f
	}
	if h, f := clean(); len(checkJepsen(in, h, f)) > 0 {
		t.Fatalf("clean history: %q", checkJepsen(in, h, f))
	}
	for _, c := range []struct {
		want   string
		mutate func(h *jepsenHistory, f *jepsenFinal)
	}{
		{"LOST: 1 input ids have no committed output: [4]", func(h *jepsenHistory, f *jepsenFinal) {
			f.committed[0] = f.committed[0][:2]
			delete(h.observed[0], 4)
			h.acked = slices.DeleteFunc(h.acked, func(a jepsenAck) bool { return a.value == out(4) })
		}},
		{"DUPLICATED: 1 input ids", func(h *jepsenHistory, f *jepsenFinal) {
			f.committed[1] = append(f.committed[1], out(3))
			h.observed[1][7] = out(3)
		}},
		{"ABORTED READ", func(h *jepsenHistory, f *jepsenFinal) {
			h.observed[1][8] = "out-99@1/9"
		}},
		{"ACKNOWLEDGED COMMIT LOST", func(h *jepsenHistory, f *jepsenFinal) {
			h.acked = append(h.acked, jepsenAck{worker: "w", value: "out-1@0/9", out: jepsenPos{1, 9}})
		}},
		{"OBSERVER SAW TWICE", func(h *jepsenHistory, f *jepsenFinal) {
			h.observed[0][5] = out(0)
		}},
		{"OBSERVER SKIPPED", func(h *jepsenHistory, f *jepsenFinal) {
			delete(h.observed[1], 2)
		}},
		{"OBSERVER RE-READ DIFFERS", func(h *jepsenHistory, f *jepsenFinal) {
			h.conflicts = append(h.conflicts, "0/0: a then b")
		}},
		{"COMMITTED OFFSET WENT BACK: input partition 0 read as 2, later as 1", func(h *jepsenHistory, f *jepsenFinal) {
			h.samples = append(h.samples[:2], map[int32]int64{0: 1})
		}},
		{"OFFSET AHEAD OF OUTPUT: 1 input records: [\"input 0/2 (id 4) below committed offset 3 (sample 2)", func(h *jepsenHistory, f *jepsenFinal) {
			f.committed[0] = f.committed[0][:2]
			delete(h.observed[0], 4)
			h.acked = slices.DeleteFunc(h.acked, func(a jepsenAck) bool { return a.value == out(4) })
		}},
		{"committed 4 on input partition 1, past its end", func(h *jepsenHistory, f *jepsenFinal) {
			h.samples = append(h.samples, map[int32]int64{1: 4})
		}},
		{"claims input position", func(h *jepsenHistory, f *jepsenFinal) {
			f.committed[0][0] = "out-0@1/0"
			h.observed[0][0] = "out-0@1/0"
		}},
	} {
		h, f := clean()
		c.mutate(h, &f)
		anomalies := checkJepsen(in, h, f)
		t.Logf("%s: %q", c.want, anomalies)
		if !slices.ContainsFunc(anomalies, func(a string) bool { return strings.Contains(a, c.want) }) {
			t.Errorf("want an anomaly containing %q; got %q", c.want, anomalies)
		}
	}
}
