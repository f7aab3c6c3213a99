package handler

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/karst-broker/karst/internal/fetchsession"
	klog "github.com/karst-broker/karst/internal/log"
	"github.com/karst-broker/karst/internal/metadata"
	"github.com/karst-broker/karst/internal/metrics"
	"github.com/karst-broker/karst/internal/record"
	"github.com/karst-broker/karst/internal/storage"
)

// The fetch benchmarks model the end-to-end latency benchmark's consumer:
// one topic of benchPartitions partitions, records of 1 KiB, one batch per
// record, a consumer fetching them as they arrive. They drive the handler
// as the connection writer does (Handle, then Later) and so count every
// allocation a Fetch costs the handler, the log's reads included.
const benchPartitions = 6

// fetchBench is a broker over real partition logs in a temporary
// directory, with metrics and fetch sessions on as in a running node.
type fetchBench struct {
	b      *Broker
	mgr    *storage.Manager
	logs   []*klog.Log
	topic  string
	id     [16]byte
	header *Request
	req    *kmsg.FetchRequest
}

func newFetchBench(tb testing.TB, version int16) *fetchBench {
	tb.Helper()
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	mgr, err := storage.Open(tb.TempDir(), func(string) klog.Config { return klog.DefaultConfig() }, logger)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { mgr.Close() })
	store, err := metadata.OpenStore(&metadata.MemoryLog{}, metadata.StoreOptions{
		Node: metadata.Node{ID: 1, DefaultPartitions: 1, DefaultReplicationFactor: 1},
		OnCommit: func(_, next *metadata.Image, _ []metadata.Record) {
			var specs []storage.Spec
			for _, tp := range next.Topics() {
				for _, p := range tp.Partitions {
					specs = append(specs, storage.Spec{TopicPartition: klog.TopicPartition{Topic: tp.Name, Partition: p.ID}, TopicID: klog.TopicID(tp.ID)})
				}
			}
			if err := mgr.Reconcile(specs); err != nil {
				tb.Errorf("reconcile: %v", err)
			}
		},
	})
	if err != nil {
		tb.Fatal(err)
	}
	f := &fetchBench{mgr: mgr, topic: "latency"}
	f.b = NewBroker(Options{ClusterID: "bench", NodeID: 1, Logger: logger, Metadata: store, Storage: mgr,
		FetchSessions: fetchsession.NewCache(1000), Metrics: metrics.New()})
	if _, err := store.CreateTopic(metadata.CreateTopicRequest{Name: f.topic, NumPartitions: benchPartitions, ReplicationFactor: 1}); err != nil {
		tb.Fatal(err)
	}
	tp, _ := store.Image().Topic(f.topic)
	f.id = tp.ID
	for p := range int32(benchPartitions) {
		part, ok := mgr.Get(f.topic, p)
		if !ok {
			tb.Fatalf("partition %d is not open", p)
		}
		f.logs = append(f.logs, part.Log)
	}
	f.header = &Request{Header: wireHeader(1, version), Conn: &Conn{ListenerName: "PLAINTEXT"}}
	return f
}

// benchBatch is one batch of one 1 KiB record, as the latency benchmark's
// producer sends.
func benchBatch(tb testing.TB) []byte {
	tb.Helper()
	value := make([]byte, 1024)
	batch, err := record.Build(nil, record.BatchHeader{BaseTimestamp: 1_700_000_000_000, ProducerID: -1, ProducerEpoch: -1, BaseSequence: -1},
		[]record.Record{{Value: value}})
	if err != nil {
		tb.Fatal(err)
	}
	return batch
}

func (f *fetchBench) append(tb testing.TB, partition int, batch []byte) {
	if _, err := f.logs[partition].Append(batch, klog.AppendOptions{Origin: klog.FromClient, LeaderEpoch: 0}); err != nil {
		tb.Error(err)
	}
}

// request sets f.req to a fetch of the given partitions at the given
// offsets, each returning at most partMax bytes, in the session state
// given (sessionless when epoch is -1).
func (f *fetchBench) request(version int16, sessionID, epoch int32, partitions []int32, offsets []int64, partMax, minBytes int32, maxWait time.Duration) {
	req := f.req
	if req == nil {
		req = kmsg.NewPtrFetchRequest()
		req.Topics = []kmsg.FetchRequestTopic{kmsg.NewFetchRequestTopic()}
		f.req = req
	}
	req.SetVersion(version)
	req.ReplicaID, req.MaxWaitMillis, req.MinBytes, req.MaxBytes = -1, int32(maxWait/time.Millisecond), minBytes, 50<<20
	req.SessionID, req.SessionEpoch = sessionID, epoch
	rt := &req.Topics[0]
	rt.Topic, rt.TopicID = f.topic, f.id
	rt.Partitions = rt.Partitions[:0]
	for _, p := range partitions {
		rp := kmsg.NewFetchRequestTopicPartition()
		rp.Partition, rp.FetchOffset, rp.PartitionMaxBytes, rp.CurrentLeaderEpoch = p, offsets[p], partMax, 0
		rt.Partitions = append(rt.Partitions, rp)
	}
	if len(partitions) == 0 {
		req.Topics = req.Topics[:0]
	} else {
		req.Topics = req.Topics[:1]
	}
	f.header.Body = req
}

// fetch runs f.req to its answer and returns the answer's file regions.
func (f *fetchBench) fetch(tb testing.TB, ctx context.Context) *PartsResponse {
	out := f.b.Handle(ctx, Lookup(1), f.header)
	pr, ok := out.Later(ctx).(*PartsResponse)
	if !ok {
		tb.Fatal("fetch did not answer with parts")
	}
	return pr
}

func regionsIn(pr *PartsResponse) int {
	n := 0
	for _, p := range pr.Parts {
		if p.File != nil {
			n++
		}
	}
	return n
}

var benchModes = []struct {
	name    string
	version int16
	session bool
}{
	{"v12-sessionless", 12, false},
	{"v17-session", 17, true},
}

// openSession opens a fetch session over every partition and returns its
// id and the next epoch (sessionless: 0 and -1).
func (f *fetchBench) openSession(tb testing.TB, version int16, session bool, offsets []int64) (int32, int32) {
	if !session {
		return 0, -1
	}
	f.request(version, 0, 0, allBenchPartitions, offsets, 1<<20, 0, 0)
	pr := f.fetch(tb, context.Background())
	id := pr.Response.(*kmsg.FetchResponse).SessionID
	if id == 0 {
		tb.Fatal("no session opened")
	}
	return id, 1
}

var allBenchPartitions = []int32{0, 1, 2, 3, 4, 5}

// BenchmarkFetchReady: every partition has one new batch; one fetch
// returns all of them without waiting.
func BenchmarkFetchReady(b *testing.B) {
	for _, m := range benchModes {
		b.Run(m.name, func(b *testing.B) {
			f := newFetchBench(b, m.version)
			batch := benchBatch(b)
			// Every batch is on disk before timing starts; fetch i reads
			// batch i of every partition, capped to one batch, as a
			// consumer at the log end would find it.
			for range b.N {
				for p := range benchPartitions {
					f.append(b, p, append([]byte(nil), batch...))
				}
			}
			offsets := make([]int64, benchPartitions)
			id, epoch := f.openSession(b, m.version, m.session, offsets)
			ctx := context.Background()
			b.ReportAllocs()
			b.ResetTimer()
			for i := range b.N {
				for p := range offsets {
					offsets[p] = int64(i)
				}
				f.request(m.version, id, epoch, allBenchPartitions, offsets, int32(len(batch)), 1, 500*time.Millisecond)
				pr := f.fetch(b, ctx)
				if n := regionsIn(pr); n != benchPartitions {
					b.Fatalf("fetch %d returned %d partitions with records", i, n)
				}
				if m.session {
					epoch++
				}
			}
		})
	}
}

// parkingContext tells the appender when the fetch parks: the handler
// asks for Done only to wait on it.
type parkingContext struct {
	context.Context
	parked chan struct{}
}

func (c *parkingContext) Done() <-chan struct{} {
	select {
	case c.parked <- struct{}{}:
	default:
	}
	return c.Context.Done()
}

// BenchmarkFetchLongPoll: the fetch finds nothing, parks on all
// partitions, and is woken by an append to one of them. The append's own
// allocations (the log's) are counted too.
func BenchmarkFetchLongPoll(b *testing.B) {
	for _, m := range benchModes {
		b.Run(m.name, func(b *testing.B) {
			f := newFetchBench(b, m.version)
			batches := make([][]byte, b.N)
			batch := benchBatch(b)
			for i := range batches {
				batches[i] = append([]byte(nil), batch...)
			}
			offsets := make([]int64, benchPartitions)
			id, epoch := f.openSession(b, m.version, m.session, offsets)
			ctx := &parkingContext{Context: context.Background(), parked: make(chan struct{}, 1)}
			stop := make(chan struct{})
			appended := make(chan struct{})
			go func() {
				defer close(appended)
				for i := range b.N {
					select {
					case <-ctx.parked:
					case <-stop:
						return
					}
					f.append(b, i%benchPartitions, batches[i])
				}
			}()
			partitions := allBenchPartitions
			one := make([]int32, 1)
			b.ReportAllocs()
			b.ResetTimer()
			for i := range b.N {
				f.request(m.version, id, epoch, partitions, offsets, 1<<20, 1, 10*time.Second)
				pr := f.fetch(b, ctx)
				if n := regionsIn(pr); n != 1 {
					close(stop)
					b.Fatalf("fetch %d returned %d partitions with records", i, n)
				}
				p := i % benchPartitions
				offsets[p]++
				if m.session {
					// Incremental: only the partition that moved.
					epoch++
					one[0] = int32(p)
					partitions = one
				}
			}
			b.StopTimer()
			<-appended
		})
	}
}
