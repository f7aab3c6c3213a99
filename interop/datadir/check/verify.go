package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// describeConfigsKey is DescribeConfigs' API key.
const describeConfigsKey = 32

// verify checks the broker against the manifest, then appends records and
// records this broker's ListOffsets answers on the grown data in m, for the
// next broker on the same directory. broker names this broker's kind.
func verify(ctx context.Context, bootstrap, broker string, m *Manifest, r *reporter) {
	cl, err := kgo.NewClient(clientOpts(bootstrap)...)
	if !r.check("connect", err) {
		return
	}
	defer cl.Close()
	adm := kadm.NewClient(cl)

	r.check("topics_and_ids", checkTopics(ctx, adm, m))
	if supportsAPI(ctx, cl, describeConfigsKey) {
		r.check("config_overrides", checkConfigs(ctx, adm, m))
	} else {
		fmt.Printf("note %s/config_overrides: broker does not serve DescribeConfigs; only the behavioural check runs\n", r.prefix)
	}
	r.check("max_message_bytes_override_enforced", checkTooLarge(ctx, bootstrap, m))
	r.check("list_offsets_earliest_latest", checkOffsets(ctx, adm, m))
	r.check("list_offsets_by_timestamp_match", checkTimestampAnswers(ctx, cl, m, r, broker))
	r.check("list_offsets_by_timestamp_match_records", checkTimestampAnswersAgainstRecords(ctx, cl, m, broker))
	r.check("records_byte_exact", checkRecords(ctx, bootstrap, m))
	if r.check("produce_continues_offsets", checkNewProduce(ctx, bootstrap, adm, m)) {
		// Stale answers must not be compared against the grown data.
		m.TimestampAnswers = nil
		r.check("list_offsets_record_answers", recordTimestampAnswers(ctx, cl, m, broker))
	}
}

func supportsAPI(ctx context.Context, cl *kgo.Client, key int16) bool {
	resp, err := kmsg.NewPtrApiVersionsRequest().RequestWith(ctx, cl)
	if err != nil {
		return false
	}
	for _, k := range resp.ApiKeys {
		if k.ApiKey == key {
			return true
		}
	}
	return false
}

func topicNames(m *Manifest) []string {
	var names []string
	for _, t := range m.Topics {
		names = append(names, t.Name)
	}
	return names
}

func checkTopics(ctx context.Context, adm *kadm.Client, m *Manifest) error {
	var details kadm.TopicDetails
	var err error
	// A broker that just started may still be loading; retry briefly.
	for range 20 {
		details, err = adm.ListTopics(ctx, topicNames(m)...)
		if err == nil && details.Error() == nil {
			break
		}
		time.Sleep(500 * time.Millisecond)
	}
	if err != nil {
		return err
	}
	var problems []string
	for _, t := range m.Topics {
		d, ok := details[t.Name]
		switch {
		case !ok:
			problems = append(problems, t.Name+" missing")
			continue
		case d.Err != nil:
			problems = append(problems, fmt.Sprintf("%s: %v", t.Name, d.Err))
			continue
		}
		if d.ID.String() != t.ID {
			problems = append(problems, fmt.Sprintf("%s: id %s, want %s", t.Name, d.ID, t.ID))
		}
		if int32(len(d.Partitions)) != t.Partitions {
			problems = append(problems, fmt.Sprintf("%s: %d partitions, want %d", t.Name, len(d.Partitions), t.Partitions))
		}
		for _, p := range d.Partitions {
			if p.Err != nil || p.Leader < 0 {
				problems = append(problems, fmt.Sprintf("%s/%d: leader %d err %v", t.Name, p.Partition, p.Leader, p.Err))
			}
		}
	}
	return joinProblems(problems)
}

func checkConfigs(ctx context.Context, adm *kadm.Client, m *Manifest) error {
	res, err := adm.DescribeTopicConfigs(ctx, topicNames(m)...)
	if err != nil {
		return err
	}
	var problems []string
	for _, t := range m.Topics {
		rc, err := res.On(t.Name, nil)
		if err == nil {
			err = rc.Err
		}
		if err != nil {
			problems = append(problems, fmt.Sprintf("%s: %v", t.Name, err))
			continue
		}
		for k, want := range t.Configs {
			i := slices.IndexFunc(rc.Configs, func(c kadm.Config) bool { return c.Key == k })
			if i < 0 {
				problems = append(problems, fmt.Sprintf("%s: %s not described", t.Name, k))
				continue
			}
			c := rc.Configs[i]
			if c.Value == nil || *c.Value != want || c.Source != kmsg.ConfigSourceDynamicTopicConfig {
				problems = append(problems, fmt.Sprintf("%s: %s=%v (source %v), want %s as a topic override", t.Name, k, ptrString(c.Value), c.Source, want))
			}
		}
	}
	return joinProblems(problems)
}

// checkTooLarge produces a batch above the topic's max.message.bytes
// override (but below the broker default); it must be refused.
func checkTooLarge(ctx context.Context, bootstrap string, m *Manifest) error {
	for _, t := range m.Topics {
		if t.TooLarge == 0 {
			continue
		}
		cl, err := kgo.NewClient(clientOpts(bootstrap, kgo.DisableIdempotentWrite(), kgo.RequiredAcks(kgo.LeaderAck()),
			kgo.ProducerBatchCompression(kgo.NoCompression()), kgo.RecordRetries(0))...)
		if err != nil {
			return err
		}
		v := bytes.Repeat([]byte{'x'}, t.TooLarge)
		err = cl.ProduceSync(ctx, &kgo.Record{Topic: t.Name, Partition: 0, Value: v}).FirstErr()
		cl.Close()
		if !errors.Is(err, kerr.MessageTooLarge) {
			return fmt.Errorf("%s: a %d-byte record gave %v, want MESSAGE_TOO_LARGE", t.Name, t.TooLarge, err)
		}
	}
	return nil
}

func checkOffsets(ctx context.Context, adm *kadm.Client, m *Manifest) error {
	starts, err := adm.ListStartOffsets(ctx, topicNames(m)...)
	if err == nil {
		err = starts.Error()
	}
	if err != nil {
		return err
	}
	ends, err := adm.ListEndOffsets(ctx, topicNames(m)...)
	if err == nil {
		err = ends.Error()
	}
	if err != nil {
		return err
	}
	var problems []string
	for _, t := range m.Topics {
		for p := int32(0); p < t.Partitions; p++ {
			want := m.Offsets[tpKey(t.Name, p)]
			s, _ := starts.Lookup(t.Name, p)
			e, _ := ends.Lookup(t.Name, p)
			if s.Offset != want[0] || e.Offset != want[1] {
				problems = append(problems, fmt.Sprintf("%s/%d: earliest %d latest %d, want %d %d", t.Name, p, s.Offset, e.Offset, want[0], want[1]))
			}
		}
	}
	return joinProblems(problems)
}

// consumeRange reads [from, to) of every partition in want.
func consumeRange(ctx context.Context, bootstrap string, from, to map[string]map[int32]int64) (map[string][]Rec, error) {
	parts := map[string]map[int32]kgo.Offset{}
	remaining := 0
	for t, ps := range from {
		parts[t] = map[int32]kgo.Offset{}
		for p, o := range ps {
			parts[t][p] = kgo.NewOffset().At(o)
			remaining += int(to[t][p] - o)
		}
	}
	cl, err := kgo.NewClient(clientOpts(bootstrap, kgo.ConsumePartitions(parts), kgo.FetchMaxWait(500*time.Millisecond))...)
	if err != nil {
		return nil, err
	}
	defer cl.Close()
	got := map[string][]Rec{}
	ctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	for remaining > 0 {
		fetches := cl.PollFetches(ctx)
		if ctx.Err() != nil {
			return got, fmt.Errorf("%d records not fetched: %w", remaining, ctx.Err())
		}
		for _, fe := range fetches.Errors() {
			return got, fmt.Errorf("fetching %s/%d: %w", fe.Topic, fe.Partition, fe.Err)
		}
		fetches.EachRecord(func(rec *kgo.Record) {
			if rec.Offset >= to[rec.Topic][rec.Partition] {
				return
			}
			k := tpKey(rec.Topic, rec.Partition)
			got[k] = append(got[k], fromKgo(rec, ""))
			remaining--
		})
	}
	return got, nil
}

func checkRecords(ctx context.Context, bootstrap string, m *Manifest) error {
	from, to := map[string]map[int32]int64{}, map[string]map[int32]int64{}
	for _, t := range m.Topics {
		from[t.Name], to[t.Name] = map[int32]int64{}, map[int32]int64{}
		for p := int32(0); p < t.Partitions; p++ {
			o := m.Offsets[tpKey(t.Name, p)]
			from[t.Name][p], to[t.Name][p] = o[0], o[1]
		}
	}
	got, err := consumeRange(ctx, bootstrap, from, to)
	if err != nil {
		return err
	}
	want := map[string][]Rec{}
	for _, rec := range m.Records {
		k := tpKey(rec.Topic, rec.Partition)
		want[k] = append(want[k], rec)
	}
	var problems []string
	for k, ws := range want {
		slices.SortFunc(ws, func(a, b Rec) int { return int(a.Offset - b.Offset) })
		gs := got[k]
		if len(gs) != len(ws) {
			problems = append(problems, fmt.Sprintf("%s: %d records, want %d", k, len(gs), len(ws)))
			continue
		}
		for i := range ws {
			if d := diffRec(ws[i], gs[i]); d != "" {
				problems = append(problems, fmt.Sprintf("%s offset %d (%s): %s", k, ws[i].Offset, ws[i].Codec, d))
				break
			}
		}
	}
	return joinProblems(problems)
}

func diffRec(want, got Rec) string {
	switch {
	case want.Offset != got.Offset:
		return fmt.Sprintf("offset %d", got.Offset)
	case !sameBytes(want.Key, got.Key):
		return fmt.Sprintf("key %q, want %q", got.Key, want.Key)
	case !sameBytes(want.Value, got.Value):
		return fmt.Sprintf("value differs (%d bytes, want %d)", len(got.Value), len(want.Value))
	case want.Timestamp != got.Timestamp:
		return fmt.Sprintf("timestamp %d, want %d", got.Timestamp, want.Timestamp)
	case len(want.Headers) != len(got.Headers):
		return fmt.Sprintf("%d headers, want %d", len(got.Headers), len(want.Headers))
	}
	for i := range want.Headers {
		if want.Headers[i].Key != got.Headers[i].Key || !sameBytes(want.Headers[i].Value, got.Headers[i].Value) {
			return fmt.Sprintf("header %d differs", i)
		}
	}
	return ""
}

// sameBytes tells null from empty, as the wire format does.
func sameBytes(a, b []byte) bool { return (a == nil) == (b == nil) && bytes.Equal(a, b) }

// checkNewProduce appends to every partition and expects the new records
// right after the old latest offset, then reads them back.
func checkNewProduce(ctx context.Context, bootstrap string, adm *kadm.Client, m *Manifest) error {
	cl, err := kgo.NewClient(clientOpts(bootstrap)...)
	if err != nil {
		return err
	}
	defer cl.Close()
	var recs []*kgo.Record
	from, to := map[string]map[int32]int64{}, map[string]map[int32]int64{}
	for _, t := range m.Topics {
		from[t.Name], to[t.Name] = map[int32]int64{}, map[int32]int64{}
		for p := int32(0); p < t.Partitions; p++ {
			after := makeRecords(t.Name, p, "after", 3)
			// A new largest timestamp in the middle of the appended batch:
			// the next broker must find it in the segment this one wrote.
			after[1].Timestamp = time.UnixMilli(maxTimestamp(m, tpKey(t.Name, p)) + 1 + int64(p))
			recs = append(recs, after...)
			latest := m.Offsets[tpKey(t.Name, p)][1]
			from[t.Name][p], to[t.Name][p] = latest, latest+3
		}
	}
	if err := cl.ProduceSync(ctx, recs...).FirstErr(); err != nil {
		return fmt.Errorf("producing: %w", err)
	}
	var problems []string
	next := map[string]int64{}
	for _, r := range recs {
		k := tpKey(r.Topic, r.Partition)
		if _, ok := next[k]; !ok {
			next[k] = m.Offsets[k][1]
		}
		if r.Offset != next[k] {
			problems = append(problems, fmt.Sprintf("%s: new record at offset %d, want %d", k, r.Offset, next[k]))
		}
		next[k]++
	}
	if len(problems) > 0 {
		return joinProblems(problems)
	}
	got, err := consumeRange(ctx, bootstrap, from, to)
	if err != nil {
		return err
	}
	for _, r := range recs {
		k := tpKey(r.Topic, r.Partition)
		i := int(r.Offset - from[r.Topic][r.Partition])
		if i >= len(got[k]) {
			problems = append(problems, fmt.Sprintf("%s: offset %d not read back", k, r.Offset))
			continue
		}
		if d := diffRec(fromKgo(r, ""), got[k][i]); d != "" {
			problems = append(problems, fmt.Sprintf("%s offset %d: %s", k, r.Offset, d))
		}
	}
	if len(problems) == 0 {
		for _, r := range recs {
			m.Records = append(m.Records, fromKgo(r, "after"))
		}
		for k, n := range next {
			m.Offsets[k] = [2]int64{m.Offsets[k][0], n}
		}
	}
	return joinProblems(problems)
}

// maxTimestamp is the largest record timestamp of one partition.
func maxTimestamp(m *Manifest, key string) int64 {
	top := baseTimestamp.UnixMilli()
	for _, r := range m.Records {
		if tpKey(r.Topic, r.Partition) == key {
			top = max(top, r.Timestamp)
		}
	}
	return top
}

func ptrString(s *string) string {
	if s == nil {
		return "<null>"
	}
	return *s
}

func joinProblems(ps []string) error {
	if len(ps) == 0 {
		return nil
	}
	slices.Sort(ps)
	if len(ps) > 8 {
		ps = append(ps[:8], fmt.Sprintf("... and %d more", len(ps)-8))
	}
	return errors.New(strings.Join(ps, "; "))
}
