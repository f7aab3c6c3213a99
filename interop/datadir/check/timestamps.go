package main

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// The special ListOffsets timestamps.
const (
	tsLatest       = -1
	tsEarliest     = -2
	tsMaxTimestamp = -3
)

// OffsetAnswer is one ListOffsets answer for one partition, as the broker
// that served the data gave it.
type OffsetAnswer struct {
	Query       int64 `json:"q"`
	ErrorCode   int16 `json:"err"`
	Offset      int64 `json:"offset"`
	Timestamp   int64 `json:"ts"`
	LeaderEpoch int32 `json:"epoch"`
}

// TimestampAnswers is what one broker answered to the ListOffsets queries of
// every partition; the next broker on the same data must answer the same.
type TimestampAnswers struct {
	// By names the broker kind that answered ("kafka" or "karst" when the
	// caller knows it), for the mismatch reports.
	By string `json:"by"`
	// Version is the ListOffsets version negotiated with that broker.
	Version int16 `json:"version"`
	// Partitions maps "topic/partition" to the answers in query order.
	Partitions map[string][]OffsetAnswer `json:"partitions"`
}

// timestampQueries is, per partition, the special timestamps and every
// distinct record timestamp with its neighbours, plus one before and one
// after all records. They come from the records the manifest knows, so
// the queries are the same whichever broker is asked.
func timestampQueries(m *Manifest) map[string][]int64 {
	stamps := map[string]map[int64]bool{}
	for _, t := range m.Topics {
		for p := int32(0); p < t.Partitions; p++ {
			stamps[tpKey(t.Name, p)] = map[int64]bool{}
		}
	}
	for _, r := range m.Records {
		s := stamps[tpKey(r.Topic, r.Partition)]
		if s == nil {
			continue
		}
		s[r.Timestamp-1], s[r.Timestamp], s[r.Timestamp+1] = true, true, true
	}
	out := map[string][]int64{}
	for k, s := range stamps {
		ts := make([]int64, 0, len(s)+5)
		for t := range s {
			ts = append(ts, t)
		}
		slices.Sort(ts)
		lo, hi := baseTimestamp.UnixMilli(), baseTimestamp.UnixMilli()
		if len(ts) > 0 {
			lo, hi = ts[0], ts[len(ts)-1]
		}
		// 0 is before everything; lo-1000 and hi+1000 are just outside the
		// records, which the neighbours above do not reach from the inside.
		q := []int64{tsEarliest, tsLatest, tsMaxTimestamp, 0, lo - 1000}
		q = append(q, ts...)
		out[k] = append(q, hi+1000)
	}
	return out
}

// askTimestamps sends every query of timestampQueries to the broker and
// returns its answers. One request carries one query per partition (Kafka
// refuses a partition twice in one request), so the rounds are as many as
// the longest query list.
func askTimestamps(ctx context.Context, cl *kgo.Client, m *Manifest, by string) (*TimestampAnswers, error) {
	queries := timestampQueries(m)
	ans := &TimestampAnswers{By: by, Version: -1, Partitions: map[string][]OffsetAnswer{}}
	rounds := 0
	for _, q := range queries {
		rounds = max(rounds, len(q))
	}
	for i := 0; i < rounds; i++ {
		req := kmsg.NewPtrListOffsetsRequest()
		req.ReplicaID = -1
		for _, t := range m.Topics {
			rt := kmsg.NewListOffsetsRequestTopic()
			rt.Topic = t.Name
			for p := int32(0); p < t.Partitions; p++ {
				q := queries[tpKey(t.Name, p)]
				if i >= len(q) {
					continue
				}
				rp := kmsg.NewListOffsetsRequestTopicPartition()
				rp.Partition = p
				rp.Timestamp = q[i]
				rt.Partitions = append(rt.Partitions, rp)
			}
			if len(rt.Partitions) > 0 {
				req.Topics = append(req.Topics, rt)
			}
		}
		resp, err := listOffsetsRetrying(ctx, cl, req)
		if err != nil {
			return nil, fmt.Errorf("ListOffsets round %d: %w", i, err)
		}
		ans.Version = resp.Version
		for _, rt := range resp.Topics {
			for _, rp := range rt.Partitions {
				k := tpKey(rt.Topic, rp.Partition)
				q := queries[k]
				if i >= len(q) {
					return nil, fmt.Errorf("ListOffsets round %d: unasked partition %s in the response", i, k)
				}
				ans.Partitions[k] = append(ans.Partitions[k], OffsetAnswer{Query: q[i], ErrorCode: rp.ErrorCode,
					Offset: rp.Offset, Timestamp: rp.Timestamp, LeaderEpoch: rp.LeaderEpoch})
			}
		}
	}
	for k, q := range queries {
		if len(ans.Partitions[k]) != len(q) {
			return nil, fmt.Errorf("%s: %d answers to %d queries", k, len(ans.Partitions[k]), len(q))
		}
	}
	return ans, nil
}

// listOffsetsRetrying retries while any partition has a retriable error: a
// broker that just started may not lead its partitions yet. Other errors
// are answers and are compared like offsets.
func listOffsetsRetrying(ctx context.Context, cl *kgo.Client, req *kmsg.ListOffsetsRequest) (*kmsg.ListOffsetsResponse, error) {
	deadline := time.Now().Add(20 * time.Second)
	for {
		rctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		resp, err := req.RequestWith(rctx, cl)
		cancel()
		if err == nil {
			err = firstRetriable(resp)
		}
		if err == nil || time.Now().After(deadline) || ctx.Err() != nil {
			return resp, err
		}
		select {
		case <-ctx.Done():
			return resp, ctx.Err()
		case <-time.After(250 * time.Millisecond):
		}
	}
}

func firstRetriable(resp *kmsg.ListOffsetsResponse) error {
	for _, t := range resp.Topics {
		for _, p := range t.Partitions {
			if err := kerr.ErrorForCode(p.ErrorCode); err != nil && kerr.IsRetriable(err) {
				return fmt.Errorf("%s/%d: %w", t.Topic, p.Partition, err)
			}
		}
	}
	return nil
}

// recordTimestampAnswers stores this broker's answers in the manifest.
func recordTimestampAnswers(ctx context.Context, cl *kgo.Client, m *Manifest, by string) error {
	ans, err := askTimestamps(ctx, cl, m, by)
	if err != nil {
		return err
	}
	m.TimestampAnswers = ans
	return nil
}

// checkTimestampAnswers asks this broker the recorded queries and requires
// the same error, offset and timestamp for each. A different leader epoch
// is printed as a note only: the epochs a broker reports depend on its own
// elections, not on the data.
func checkTimestampAnswers(ctx context.Context, cl *kgo.Client, m *Manifest, r *reporter, by string) error {
	want := m.TimestampAnswers
	if want == nil || len(want.Partitions) == 0 {
		return errors.New("the manifest holds no recorded ListOffsets answers")
	}
	got, err := askTimestamps(ctx, cl, m, by)
	if err != nil {
		return err
	}
	var problems, epochNotes []string
	asked := 0
	for k, ws := range want.Partitions {
		gs := got.Partitions[k]
		if len(gs) != len(ws) {
			problems = append(problems, fmt.Sprintf("%s: %d queries now, %d recorded (the data changed?)", k, len(gs), len(ws)))
			continue
		}
		for i, w := range ws {
			g := gs[i]
			asked++
			if g.Query != w.Query {
				problems = append(problems, fmt.Sprintf("%s: query %d is %d now, %d recorded", k, i, g.Query, w.Query))
				break
			}
			if g.ErrorCode != w.ErrorCode || g.Offset != w.Offset || g.Timestamp != w.Timestamp {
				problems = append(problems, fmt.Sprintf("%s timestamp %s: %s %s, %s %s",
					k, queryName(w.Query), orUnknown(want.By), answerString(w), orUnknown(by), answerString(g)))
			} else if g.LeaderEpoch != w.LeaderEpoch {
				epochNotes = append(epochNotes, fmt.Sprintf("%s timestamp %s: %s epoch %d, %s epoch %d",
					k, queryName(w.Query), orUnknown(want.By), w.LeaderEpoch, orUnknown(by), g.LeaderEpoch))
			}
		}
	}
	if len(epochNotes) > 0 {
		fmt.Printf("note %s/list_offsets_by_timestamp_match: %d answers with the same offset and timestamp but another leader epoch (v%d recorded, v%d now), e.g. %s\n",
			r.prefix, len(epochNotes), want.Version, got.Version, strings.Join(epochExamples(epochNotes), "; "))
	}
	if len(problems) > 0 {
		return fmt.Errorf("%d of %d answers differ (ListOffsets v%d recorded, v%d now): %w",
			len(problems), asked, want.Version, got.Version, joinProblems(problems))
	}
	fmt.Printf("note %s/list_offsets_by_timestamp_match: %d answers in %d partitions identical to %s's\n",
		r.prefix, asked, len(want.Partitions), orUnknown(want.By))
	return nil
}

func answerString(a OffsetAnswer) string {
	if a.ErrorCode != 0 {
		return fmt.Sprintf("(error %v)", kerr.ErrorForCode(a.ErrorCode))
	}
	return fmt.Sprintf("(offset %d, ts %d)", a.Offset, a.Timestamp)
}

func queryName(q int64) string {
	switch q {
	case tsLatest:
		return "-1 (latest)"
	case tsEarliest:
		return "-2 (earliest)"
	case tsMaxTimestamp:
		return "-3 (max timestamp)"
	}
	return fmt.Sprint(q)
}

func orUnknown(by string) string {
	if by == "" {
		return "the recording broker"
	}
	return by
}

// expectedAnswers derives from the manifest's records what any broker must
// answer: earliest and latest offsets (timestamp -1), the first record with
// the largest timestamp, and for T >= 0 the first record whose timestamp is
// >= T, or (-1, -1) when none is.
func expectedAnswers(m *Manifest, key string, queries []int64) []OffsetAnswer {
	var recs []Rec
	for _, r := range m.Records {
		if tpKey(r.Topic, r.Partition) == key {
			recs = append(recs, r)
		}
	}
	slices.SortFunc(recs, func(a, b Rec) int { return cmpInt64(a.Offset, b.Offset) })
	bounds := m.Offsets[key]
	out := make([]OffsetAnswer, len(queries))
	for i, q := range queries {
		a := OffsetAnswer{Query: q, Offset: -1, Timestamp: -1}
		switch {
		case q == tsEarliest:
			a.Offset = bounds[0]
		case q == tsLatest:
			a.Offset = bounds[1]
		case q == tsMaxTimestamp:
			for _, r := range recs {
				if a.Offset < 0 || r.Timestamp > a.Timestamp {
					a.Offset, a.Timestamp = r.Offset, r.Timestamp
				}
			}
		default:
			for _, r := range recs {
				if r.Timestamp >= q {
					a.Offset, a.Timestamp = r.Offset, r.Timestamp
					break
				}
			}
		}
		out[i] = a
	}
	return out
}

func cmpInt64(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// checkTimestampAnswersAgainstRecords asks the broker the queries and
// requires the answers the records themselves imply. When a broker differs
// from the recorded answers, this tells which of the two is wrong.
func checkTimestampAnswersAgainstRecords(ctx context.Context, cl *kgo.Client, m *Manifest, by string) error {
	got, err := askTimestamps(ctx, cl, m, by)
	if err != nil {
		return err
	}
	var problems []string
	asked := 0
	for k, gs := range got.Partitions {
		queries := make([]int64, len(gs))
		for i, g := range gs {
			queries[i] = g.Query
		}
		for i, w := range expectedAnswers(m, k, queries) {
			g := gs[i]
			asked++
			if g.ErrorCode != 0 || g.Offset != w.Offset || g.Timestamp != w.Timestamp {
				problems = append(problems, fmt.Sprintf("%s timestamp %s: %s %s, the records say %s",
					k, queryName(w.Query), orUnknown(by), answerString(g), answerString(w)))
			}
		}
	}
	if len(problems) > 0 {
		return fmt.Errorf("%d of %d answers differ from the records: %w", len(problems), asked, joinProblems(problems))
	}
	return nil
}

// epochExamples picks one note per kind of query (earliest, latest, max
// timestamp, lookup), so a report shows each way the epochs differ.
func epochExamples(notes []string) []string {
	slices.Sort(notes)
	seen := map[string]bool{}
	var out []string
	for _, n := range notes {
		kind := "lookup"
		for _, special := range []string{"(earliest)", "(latest)", "(max timestamp)"} {
			if strings.Contains(n, special) {
				kind = special
			}
		}
		if !seen[kind] {
			seen[kind] = true
			out = append(out, n)
		}
	}
	return out
}
