package handler

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/karst-broker/karst/internal/fetchsession"
)

// fetchParts is a request's topics: each a name and its partitions, all
// read from offset 0 unless offsets says otherwise.
type fetchParts []struct {
	topic      string
	partitions []int32
}

func (f *adminFixture) multiFetchRequest(v int16, parts fetchParts, offsets map[string]int64, minBytes int32, maxWait time.Duration) *kmsg.FetchRequest {
	req := kmsg.NewPtrFetchRequest()
	req.ReplicaID, req.MaxWaitMillis, req.MinBytes, req.MaxBytes = -1, int32(maxWait/time.Millisecond), minBytes, 1<<20
	req.SessionEpoch = -1
	for _, tp := range parts {
		rt := kmsg.NewFetchRequestTopic()
		rt.Topic = tp.topic
		if topic, ok := f.store.Image().Topic(tp.topic); ok {
			rt.TopicID = topic.ID
		}
		for _, p := range tp.partitions {
			rp := kmsg.NewFetchRequestTopicPartition()
			rp.Partition, rp.PartitionMaxBytes, rp.CurrentLeaderEpoch = p, 1<<20, -1
			rp.FetchOffset = offsets[fmt.Sprintf("%s-%d", tp.topic, p)]
			rt.Partitions = append(rt.Partitions, rp)
		}
		req.Topics = append(req.Topics, rt)
	}
	return req
}

// answered lists a response's partitions as "topic-partition:records
// bytes>0", naming topics by id from v13.
func (f *adminFixture) answered(resp *kmsg.FetchResponse, v int16) []string {
	var out []string
	for _, rt := range resp.Topics {
		name := rt.Topic
		if v >= 13 {
			for _, tp := range f.store.Image().Topics() {
				if tp.ID == rt.TopicID {
					name = tp.Name
				}
			}
		}
		for _, p := range rt.Partitions {
			if p.ErrorCode != 0 {
				f.t.Fatalf("%s-%d: error %d", name, p.Partition, p.ErrorCode)
			}
			out = append(out, fmt.Sprintf("%s-%d:%v", name, p.Partition, len(p.RecordBatches) > 0))
		}
	}
	return out
}

func sameList(a, b []string) bool { return fmt.Sprint(a) == fmt.Sprint(b) }

// TestFetchLongPollWakesOnAnyPartition parks fetches over few partitions
// (the fixed select) and many (reflect.Select), and wakes each with an
// append to its last partition.
func TestFetchLongPollWakesOnAnyPartition(t *testing.T) {
	for _, n := range []int32{1, 3, waitCases, waitCases + 1, 20} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			f := newAdminFixture(t, nil)
			f.createTopic("t", n, nil)
			all := make([]int32, n)
			for i := range all {
				all[i] = int32(i)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			parking := &parkingContext{Context: ctx, parked: make(chan struct{}, 1)}
			done := make(chan *kmsg.FetchResponse, 1)
			go func() {
				done <- f.fetchOn(parking, f.multiFetchRequest(12, fetchParts{{"t", all}}, nil, 1, 15*time.Second), 12)
			}()
			select {
			case <-parking.parked:
			case <-ctx.Done():
				t.Fatal("the fetch did not park")
			}
			f.produce("t", n-1, 1, 0)
			select {
			case r := <-done:
				got := f.answered(r, 12)
				if len(got) != int(n) || got[n-1] != fmt.Sprintf("t-%d:true", n-1) {
					t.Fatalf("answer %v", got)
				}
				for _, p := range got[:n-1] {
					if p[len(p)-4:] == "true" {
						t.Fatalf("records where none were appended: %v", got)
					}
				}
			case <-ctx.Done():
				t.Fatal("the fetch did not wake on the append")
			}
		})
	}
}

// TestFetchLongPollWaitsMaxWaitEachTime: a wait that ended on its timer
// leaves nothing behind that would cut a later wait short (the timers are
// reused).
func TestFetchLongPollWaitsMaxWaitEachTime(t *testing.T) {
	f := newAdminFixture(t, nil)
	f.createTopic("t", 2, nil)
	ctx := context.Background()
	for _, wait := range []time.Duration{20 * time.Millisecond, 150 * time.Millisecond, 20 * time.Millisecond, 150 * time.Millisecond} {
		start := time.Now()
		r := f.fetchOn(ctx, f.multiFetchRequest(12, fetchParts{{"t", []int32{0, 1}}}, nil, 1, wait), 12)
		if elapsed := time.Since(start); elapsed < wait {
			t.Fatalf("max wait %v answered after %v", wait, elapsed)
		}
		if got := f.answered(r, 12); !sameList(got, []string{"t-0:false", "t-1:false"}) {
			t.Fatalf("answer %v", got)
		}
	}
}

// TestFetchAnswerKeepsTopicOrder: topics are grouped as the request runs,
// a topic named twice apart answered twice.
func TestFetchAnswerKeepsTopicOrder(t *testing.T) {
	f := newAdminFixture(t, nil)
	f.createTopic("a", 2, nil)
	f.createTopic("b", 1, nil)
	f.produce("a", 1, 1, 0)
	f.produce("b", 0, 1, 0)
	for _, v := range []int16{4, 12, 13, 17} {
		req := f.multiFetchRequest(v, fetchParts{{"a", []int32{0}}, {"b", []int32{0}}, {"a", []int32{1}}}, nil, 0, 0)
		resp := f.fetchOn(context.Background(), req, v)
		if len(resp.Topics) != 3 {
			t.Fatalf("v%d: %d topics", v, len(resp.Topics))
		}
		if got := f.answered(resp, v); !sameList(got, []string{"a-0:false", "b-0:true", "a-1:true"}) {
			t.Fatalf("v%d: answer %v", v, got)
		}
	}
}

// TestFetchSessionAnswersOnlyChanges: a session's incremental answers
// carry only partitions with records or moved offsets, grouped by topic.
func TestFetchSessionAnswersOnlyChanges(t *testing.T) {
	for _, v := range []int16{12, 17} {
		t.Run(fmt.Sprint("v", v), func(t *testing.T) {
			f := newAdminFixture(t, nil)
			f.b.opts.FetchSessions = fetchsession.NewCache(10)
			f.createTopic("a", 2, nil)
			f.createTopic("b", 1, nil)
			f.produce("a", 0, 1, 0)
			ctx := context.Background()
			offsets := map[string]int64{}
			req := f.multiFetchRequest(v, fetchParts{{"a", []int32{0, 1}}, {"b", []int32{0}}}, offsets, 0, 0)
			req.SessionID, req.SessionEpoch = 0, 0
			resp := f.fetchOn(ctx, req, v)
			if resp.SessionID == 0 {
				t.Fatal("no session")
			}
			if got := f.answered(resp, v); !sameList(got, []string{"a-0:true", "a-1:false", "b-0:false"}) {
				t.Fatalf("full answer %v", got)
			}
			steps := []struct {
				produce []string
				moved   fetchParts // partitions whose fetch offset moved
				want    []string
			}{
				{nil, fetchParts{{"a", []int32{0}}}, nil},
				{[]string{"b-0"}, nil, []string{"b-0:true"}},
				{nil, fetchParts{{"b", []int32{0}}}, nil},
				{[]string{"b-0", "a-1", "a-0"}, nil, []string{"a-0:true", "a-1:true", "b-0:true"}},
			}
			for i, s := range steps {
				for _, p := range s.produce {
					var topic string
					var partition int32
					fmt.Sscanf(p, "%1s-%d", &topic, &partition)
					f.produce(topic, partition, 1, 0)
				}
				for _, tp := range s.moved {
					for _, p := range tp.partitions {
						offsets[fmt.Sprintf("%s-%d", tp.topic, p)]++
					}
				}
				req := f.multiFetchRequest(v, s.moved, offsets, 0, 0)
				req.SessionID, req.SessionEpoch = resp.SessionID, int32(i+1)
				r := f.fetchOn(ctx, req, v)
				if r.ErrorCode != 0 {
					t.Fatalf("step %d: error %d", i, r.ErrorCode)
				}
				if got := f.answered(r, v); !sameList(got, s.want) {
					t.Fatalf("step %d: answer %v, want %v", i, got, s.want)
				}
			}
		})
	}
}

// TestFetchOfNoPartitionsIsAnsweredAtOnce: as Kafka, a fetch naming no
// partitions does not wait out max_wait (a 30 s wait here would outlive
// the test's deadline).
func TestFetchOfNoPartitionsIsAnsweredAtOnce(t *testing.T) {
	f := newAdminFixture(t, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	done := make(chan *kmsg.FetchResponse, 1)
	go func() { done <- f.fetchOn(ctx, f.multiFetchRequest(12, nil, nil, 1, 30*time.Second), 12) }()
	select {
	case r := <-done:
		if r.ErrorCode != 0 || len(r.Topics) != 0 {
			t.Fatalf("answer: error %d, %d topics", r.ErrorCode, len(r.Topics))
		}
	case <-ctx.Done():
		t.Fatal("a fetch of no partitions waited for max_wait")
	}
}

// TestFetchOutOfRangeCarriesNoOffsets: a partition answered with
// OFFSET_OUT_OF_RANGE has -1 for its high watermark, last stable offset
// and log start offset, as Kafka answers.
func TestFetchOutOfRangeCarriesNoOffsets(t *testing.T) {
	f := newAdminFixture(t, nil)
	f.createTopic("t", 1, nil)
	f.produce("t", 0, 3, 0)
	r := f.fetchOn(context.Background(), f.multiFetchRequest(12, fetchParts{{"t", []int32{0}}}, map[string]int64{"t-0": 99}, 0, 0), 12)
	p := r.Topics[0].Partitions[0]
	if p.ErrorCode != 1 || p.HighWatermark != -1 || p.LastStableOffset != -1 || p.LogStartOffset != -1 {
		t.Fatalf("error %d, high watermark %d, last stable %d, log start %d; want 1 (OFFSET_OUT_OF_RANGE) and -1s",
			p.ErrorCode, p.HighWatermark, p.LastStableOffset, p.LogStartOffset)
	}
}
