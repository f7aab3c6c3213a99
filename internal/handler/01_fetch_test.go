package handler

import (
	"context"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"

	klog "github.com/karst-broker/karst/internal/log"
	"github.com/karst-broker/karst/internal/record"
)

// fetchOn runs a Fetch as the connection writer would (Later), joins the
// body parts, file regions included, and decodes them with kmsg, so the
// test sees exactly what a client would.
func (f *adminFixture) fetchOn(ctx context.Context, req *kmsg.FetchRequest, v int16) *kmsg.FetchResponse {
	f.t.Helper()
	req.SetVersion(v)
	out := f.b.Handle(ctx, Lookup(1), &Request{Header: wireHeader(1, v), Body: req, Conn: &Conn{ListenerName: "PLAINTEXT"}})
	if out.Later == nil {
		f.t.Fatal("fetch answered at once")
	}
	pr, ok := out.Later(ctx).(*PartsResponse)
	if !ok {
		f.t.Fatal("fetch did not answer with parts")
	}
	var body []byte
	for _, p := range pr.Parts {
		if p.Stream != nil {
			n := len(body)
			for chunk := p.Stream.Next(body); len(chunk) > len(body); chunk = p.Stream.Next(body) {
				body = chunk
			}
			if int64(len(body)-n) != p.Length {
				f.t.Fatalf("stream made %d bytes of %d", len(body)-n, p.Length)
			}
			continue
		}
		if p.File == nil {
			body = append(body, p.Bytes...)
			continue
		}
		buf := make([]byte, p.Length)
		if _, err := p.File.ReadAt(buf, p.Offset); err != nil {
			f.t.Fatal(err)
		}
		body = append(body, buf...)
	}
	resp := kmsg.NewPtrFetchResponse()
	resp.SetVersion(v)
	if err := resp.ReadFrom(body); err != nil {
		f.t.Fatalf("decoding the fetch body: %v", err)
	}
	return resp
}

func fetchRequest(topic string, offset int64, isolation int8, minBytes int32, maxWait time.Duration) *kmsg.FetchRequest {
	req := kmsg.NewPtrFetchRequest()
	req.ReplicaID, req.MaxWaitMillis, req.MinBytes, req.MaxBytes = -1, int32(maxWait/time.Millisecond), minBytes, 1<<20
	req.IsolationLevel, req.SessionEpoch = isolation, -1
	rt := kmsg.NewFetchRequestTopic()
	rt.Topic = topic
	rp := kmsg.NewFetchRequestTopicPartition()
	rp.FetchOffset, rp.PartitionMaxBytes, rp.CurrentLeaderEpoch = offset, 1<<20, -1
	rt.Partitions = append(rt.Partitions, rp)
	req.Topics = append(req.Topics, rt)
	return req
}

func (f *adminFixture) appendTxnForFetch(topic string, pid int64, epoch int16, n int) {
	f.t.Helper()
	rs := make([]record.Record, n)
	for i := range rs {
		rs[i] = record.Record{OffsetDelta: int32(i), Value: []byte("txn")}
	}
	b, _ := record.Build(nil, record.BatchHeader{BaseTimestamp: 1_700_000_000_000, ProducerID: pid, ProducerEpoch: epoch,
		BaseSequence: 0, Attributes: record.TransactionalBit}, rs)
	if _, err := f.log(topic, 0).Append(b, klog.AppendOptions{Origin: klog.FromClient, LeaderEpoch: 0}); err != nil {
		f.t.Fatal(err)
	}
}

func (f *adminFixture) appendMarkerForFetch(topic string, pid int64, epoch int16, typ record.ControlType) {
	f.t.Helper()
	m := record.Marker{ProducerID: pid, ProducerEpoch: epoch, CoordinatorEpoch: 3, Type: typ, Timestamp: 1_700_000_000_001}
	if _, err := f.log(topic, 0).Append(record.BuildMarker(nil, m), klog.AppendOptions{Origin: klog.FromCoordinator, LeaderEpoch: 0}); err != nil {
		f.t.Fatal(err)
	}
}

func batchOffsets(t *testing.T, data []byte) [][2]int64 {
	t.Helper()
	var out [][2]int64
	sp := record.NewSplitter(data, 0)
	for {
		b, err := sp.Next()
		if err != nil {
			t.Fatal(err)
		}
		if b == nil {
			return out
		}
		out = append(out, [2]int64{b.BaseOffset(), b.LastOffset()})
	}
}

// lsoFixture: plain 0-1, producer 11's transaction 2-3, producer 12's 4-5,
// abort of 11 at 6; 12 still open, so the LSO is 4 and the HW 7.
func lsoFixture(t *testing.T) *adminFixture {
	f := newAdminFixture(t, nil)
	f.createTopic("t", 1, nil)
	f.produce("t", 0, 2, 0)
	f.appendTxnForFetch("t", 11, 0, 2)
	f.appendTxnForFetch("t", 12, 0, 2)
	f.appendMarkerForFetch("t", 11, 0, record.ControlAbort)
	return f
}

func TestFetchReadCommittedStopsAtTheLSOAndListsAborts(t *testing.T) {
	f := lsoFixture(t)
	ctx := context.Background()
	for _, v := range []int16{4, 11, 12} {
		committed := f.fetchOn(ctx, fetchRequest("t", 0, 1, 0, 0), v).Topics[0].Partitions[0]
		if committed.ErrorCode != 0 || committed.HighWatermark != 7 || committed.LastStableOffset != 4 {
			t.Fatalf("v%d read_committed: %+v", v, committed)
		}
		if got := batchOffsets(t, committed.RecordBatches); len(got) != 2 || got[1] != [2]int64{2, 3} {
			t.Fatalf("v%d read_committed batches %v", v, got)
		}
		if a := committed.AbortedTransactions; len(a) != 1 || a[0].ProducerID != 11 || a[0].FirstOffset != 2 {
			t.Fatalf("v%d aborted %+v", v, a)
		}

		uncommitted := f.fetchOn(ctx, fetchRequest("t", 0, 0, 0, 0), v).Topics[0].Partitions[0]
		if uncommitted.LastStableOffset != 4 || uncommitted.AbortedTransactions != nil {
			t.Fatalf("v%d read_uncommitted: LSO %d aborted %v", v, uncommitted.LastStableOffset, uncommitted.AbortedTransactions)
		}
		if got := batchOffsets(t, uncommitted.RecordBatches); len(got) != 4 {
			t.Fatalf("v%d read_uncommitted batches %v", v, got)
		}

		// At the LSO: nothing, and an empty (not null) list.
		atLSO := f.fetchOn(ctx, fetchRequest("t", 4, 1, 0, 0), v).Topics[0].Partitions[0]
		if len(atLSO.RecordBatches) != 0 || atLSO.AbortedTransactions == nil || len(atLSO.AbortedTransactions) != 0 {
			t.Fatalf("v%d at the LSO: %d bytes, aborted %#v", v, len(atLSO.RecordBatches), atLSO.AbortedTransactions)
		}
	}
}

func TestFetchReadCommittedWakesWhenTheLSOMoves(t *testing.T) {
	f := lsoFixture(t)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	done := make(chan *kmsg.FetchResponse, 1)
	go func() { done <- f.fetchOn(ctx, fetchRequest("t", 4, 1, 1, 15*time.Second), 12) }()

	// Bytes past the LSO do not satisfy MinBytes.
	f.produce("t", 0, 1, 0)
	select {
	case r := <-done:
		t.Fatalf("fetch answered before the commit: %+v", r.Topics[0].Partitions[0])
	default:
	}
	f.appendMarkerForFetch("t", 12, 0, record.ControlCommit)
	select {
	case r := <-done:
		p := r.Topics[0].Partitions[0]
		if p.LastStableOffset != 9 || len(p.RecordBatches) == 0 {
			t.Fatalf("after commit: LSO %d, %d bytes", p.LastStableOffset, len(p.RecordBatches))
		}
		if got := batchOffsets(t, p.RecordBatches); got[0] != [2]int64{4, 5} {
			t.Fatalf("batches %v", got)
		}
	case <-ctx.Done():
		t.Fatal("read_committed fetch did not wake on the commit marker")
	}
}

func TestListOffsetsReadCommittedAnswersTheLSO(t *testing.T) {
	f := lsoFixture(t)
	for _, c := range []struct {
		isolation int8
		ts, want  int64
	}{{0, latestTimestamp, 7}, {1, latestTimestamp, 4}, {1, earliestTimestamp, 0}, {1, 1_700_000_000_000, 0}} {
		req := kmsg.NewPtrListOffsetsRequest()
		req.ReplicaID, req.IsolationLevel = -1, c.isolation
		rt := kmsg.NewListOffsetsRequestTopic()
		rt.Topic = "t"
		rp := kmsg.NewListOffsetsRequestTopicPartition()
		rp.Timestamp, rp.CurrentLeaderEpoch = c.ts, -1
		rt.Partitions = append(rt.Partitions, rp)
		req.Topics = append(req.Topics, rt)
		p := f.call(req, 7).(*kmsg.ListOffsetsResponse).Topics[0].Partitions[0]
		if p.ErrorCode != 0 || p.Offset != c.want {
			t.Errorf("isolation %d timestamp %d: offset %d (error %d), want %d", c.isolation, c.ts, p.Offset, p.ErrorCode, c.want)
		}
	}
}
