package integration

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/karst-broker/karst/karsttest"
)

// The group coordinator's two figures, measured from outside so that the
// same benchmark reads the coordinator before and after a rewrite of it:
// how long a restarted broker takes to answer from a __consumer_offsets
// partition holding many commits, and how many commits per second many
// committers get through, with their p99.

const benchCommitTopic = "bench-commits"

// benchCommitTopicID is benchCommitTopic's id, which OffsetCommit and
// OffsetFetch v10 name topics by.
var benchCommitTopicID [16]byte

// commitOffsets sends one OffsetCommit of a simple (generation -1) group
// for partitions [0, partitions) of benchCommitTopic at offset.
func commitOffsets(ctx context.Context, cl *kgo.Client, group string, partitions int32, offset int64) error {
	req := kmsg.NewPtrOffsetCommitRequest()
	req.Group = group
	req.Generation = -1
	t := kmsg.NewOffsetCommitRequestTopic()
	t.Topic = benchCommitTopic
	t.TopicID = benchCommitTopicID
	for p := range partitions {
		rp := kmsg.NewOffsetCommitRequestTopicPartition()
		rp.Partition = p
		rp.Offset = offset
		t.Partitions = append(t.Partitions, rp)
	}
	req.Topics = append(req.Topics, t)
	resp, err := req.RequestWith(ctx, cl)
	if err != nil {
		return err
	}
	for _, rt := range resp.Topics {
		for _, rp := range rt.Partitions {
			if err := kerr.ErrorForCode(rp.ErrorCode); err != nil {
				return fmt.Errorf("commit %s/%d: %w", group, rp.Partition, err)
			}
		}
	}
	return nil
}

// fetchedOffset answers the committed offset of group's partition 0, or an
// error while the coordinator is still loading.
func fetchedOffset(ctx context.Context, cl *kgo.Client, group string) (int64, error) {
	req := kmsg.NewPtrOffsetFetchRequest()
	g := kmsg.NewOffsetFetchRequestGroup()
	g.Group = group
	t := kmsg.NewOffsetFetchRequestGroupTopic()
	t.Topic = benchCommitTopic
	t.TopicID = benchCommitTopicID
	t.Partitions = []int32{0}
	g.Topics = append(g.Topics, t)
	req.Groups = append(req.Groups, g)
	resp, err := req.RequestWith(ctx, cl)
	if err != nil {
		return 0, err
	}
	if len(resp.Groups) != 1 {
		return 0, fmt.Errorf("offset fetch of %s: %d groups", group, len(resp.Groups))
	}
	rg := resp.Groups[0]
	if err := kerr.ErrorForCode(rg.ErrorCode); err != nil {
		return 0, err
	}
	if len(rg.Topics) != 1 || len(rg.Topics[0].Partitions) != 1 {
		return 0, fmt.Errorf("offset fetch of %s: %d topics", group, len(rg.Topics))
	}
	p := rg.Topics[0].Partitions[0]
	return p.Offset, kerr.ErrorForCode(p.ErrorCode)
}

// benchTarget is the broker a coordinator benchmark measures: Karst in
// process, or, with KARST_BENCH_AGAINST=kafka, Apache Kafka 4.4.0 started by
// interop/kafka/start.sh (the JVM's start is then part of a restart).
type benchTarget struct {
	cl   *kgo.Client
	stop func() error
}

func startBenchTarget(b *testing.B, dir string) benchTarget {
	var addr string
	var stop func() error
	if os.Getenv("KARST_BENCH_AGAINST") == "kafka" {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			b.Fatal(err)
		}
		addr = l.Addr().String()
		l.Close()
		_, port, _ := net.SplitHostPort(addr)
		out, err := exec.Command("../interop/kafka/start.sh", dir, port, "offsets.topic.num.partitions=1").CombinedOutput()
		if err != nil {
			b.Fatalf("starting kafka: %v\n%s", err, out)
		}
		stop = func() error {
			out, err := exec.Command("../interop/kafka/stop.sh", dir).CombinedOutput()
			if err != nil {
				return fmt.Errorf("stopping kafka: %v\n%s", err, out)
			}
			return nil
		}
	} else {
		br := karsttest.Start(b, karsttest.WithConfig("log.dirs", dir),
			karsttest.WithConfig("offsets.topic.num.partitions", "1"))
		addr, stop = br.Addr(), br.Stop
	}
	cl, err := kgo.NewClient(kgo.SeedBrokers(addr), kgo.RetryTimeout(time.Minute))
	if err != nil {
		b.Fatal(err)
	}
	var once sync.Once
	t := benchTarget{cl: cl, stop: func() error {
		var err error
		once.Do(func() { cl.Close(); err = stop() })
		return err
	}}
	b.Cleanup(func() { _ = t.stop() })
	return t
}

func createBenchCommitTopic(b testing.TB, ctx context.Context, cl *kgo.Client, partitions int32) {
	req := kmsg.NewPtrCreateTopicsRequest()
	t := kmsg.NewCreateTopicsRequestTopic()
	t.Topic = benchCommitTopic
	t.NumPartitions = partitions
	t.ReplicationFactor = 1
	req.Topics = append(req.Topics, t)
	resp, err := req.RequestWith(ctx, cl)
	if err != nil {
		b.Fatal(err)
	}
	if err := kerr.ErrorForCode(resp.Topics[0].ErrorCode); err != nil {
		b.Fatal(err)
	}
	benchCommitTopicID = resp.Topics[0].TopicID
}

// BenchmarkCoordinatorLoad writes 10,000 groups of 100 committed partitions
// each (1,000,000 offset commits) into the one __consumer_offsets partition,
// then times, per iteration, a clean restart until the last group's offset
// is answered.
func BenchmarkCoordinatorLoad(b *testing.B) {
	const groups, partitions = 10_000, 100
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	dir := b.TempDir()
	target := startBenchTarget(b, dir)
	cl := target.cl
	createBenchCommitTopic(b, ctx, cl, partitions)
	work := make(chan int)
	var wg sync.WaitGroup
	errs := make(chan error, 1)
	for range 32 {
		wg.Go(func() {
			for g := range work {
				if err := commitOffsets(ctx, cl, fmt.Sprintf("load-%05d", g), partitions, int64(g)); err != nil {
					select {
					case errs <- err:
					default:
					}
				}
			}
		})
	}
	for g := range groups {
		work <- g
	}
	close(work)
	wg.Wait()
	select {
	case err := <-errs:
		b.Fatal(err)
	default:
	}
	if err := target.stop(); err != nil {
		b.Fatal(err)
	}
	last := fmt.Sprintf("load-%05d", groups-1)
	b.ResetTimer()
	for b.Loop() {
		start := time.Now()
		target := startBenchTarget(b, dir)
		for {
			off, err := fetchedOffset(ctx, target.cl, last)
			if err == nil && off == groups-1 {
				break
			}
			if ctx.Err() != nil {
				b.Fatalf("last group never loaded: %v", err)
			}
			time.Sleep(time.Millisecond)
		}
		b.ReportMetric(time.Since(start).Seconds(), "s/load")
		b.StopTimer()
		if err := target.stop(); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
	}
	b.ReportMetric(groups*partitions, "commits")
}

// BenchmarkOffsetCommitFrom100Members has 100 committers, each its own
// simple group, commit 4 partitions at a time, as fast as their answers
// come; it reports commit requests per second and their p99.
func BenchmarkOffsetCommitFrom100Members(b *testing.B) {
	const members, partitions = 100, 4
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	cl := startBenchTarget(b, b.TempDir()).cl
	createBenchCommitTopic(b, ctx, cl, partitions)
	var mu sync.Mutex
	var latencies []time.Duration
	var firstErr error
	next := make(chan int64)
	// Each committer's group is loaded and its first commit made before the
	// clock starts, so that neither the internal topic's creation nor a
	// JVM's warm-up is counted.
	var warm, wg sync.WaitGroup
	for m := range members {
		warm.Add(1)
		wg.Go(func() {
			group := fmt.Sprintf("member-%03d", m)
			for range 20 {
				if err := commitOffsets(ctx, cl, group, partitions, 0); err != nil {
					mu.Lock()
					firstErr = err
					mu.Unlock()
				}
			}
			warm.Done()
			var mine []time.Duration
			for off := range next {
				t0 := time.Now()
				err := commitOffsets(ctx, cl, group, partitions, off)
				mine = append(mine, time.Since(t0))
				if err != nil {
					mu.Lock()
					firstErr = err
					mu.Unlock()
				}
			}
			mu.Lock()
			latencies = append(latencies, mine...)
			mu.Unlock()
		})
	}
	warm.Wait()
	if firstErr != nil {
		b.Fatal(firstErr)
	}
	b.ResetTimer()
	start := time.Now()
	for i := range b.N {
		next <- int64(i)
	}
	close(next)
	wg.Wait()
	elapsed := time.Since(start)
	b.StopTimer()
	if firstErr != nil {
		b.Fatal(firstErr)
	}
	slices.Sort(latencies)
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "commits/s")
	b.ReportMetric(float64(latencies[len(latencies)*99/100].Microseconds())/1000, "p99-ms")
	b.ReportMetric(0, "ns/op")
}
