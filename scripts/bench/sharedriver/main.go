// Command sharedriver measures a share group with franz-go's share consumer
// for scripts/bench/share.sh, the same way on Karst and on Apache Kafka:
//
//	sharedriver prepare   -brokers H:P -topic T -partitions N -records M -record-size B -groups G1,G2
//	sharedriver consume   -brokers H:P -topic T -group G -consumers N -records M -timeout D
//	sharedriver redeliver -brokers H:P -topic T -group G -signal KILL|STOP -lock-ms L
//	sharedriver hold      -brokers H:P -topic T -group G   (the child redeliver starts)
//
// prepare writes the records and sets share.auto.offset.reset=earliest (and
// share.record.lock.duration.ms when -lock-ms is set) on each group, so that
// the group reads what was written before it joined. consume acknowledges
// every record explicitly (AckAccept) and flushes the acknowledgements after
// each poll; the time FlushAcks takes is the acknowledgement latency (the
// broker has answered every acknowledgement by then). redeliver lets a child
// process acquire records and then kills (SIGKILL) or freezes (SIGSTOP) it,
// and times how long the records take to come back to another member.
// Each mode but hold prints one result line in karst bench's format.
package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/karst-broker/karst/internal/bench"
)

type flags struct {
	brokers, topic, group, groups, signal string
	partitions, consumers, recordSize     int
	records, lockMs                       int64
	timeout                               time.Duration
}

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: sharedriver prepare|consume|redeliver|hold -brokers HOST:PORT ...")
		os.Exit(2)
	}
	mode := os.Args[1]
	var f flags
	fs := flag.NewFlagSet(mode, flag.ExitOnError)
	fs.StringVar(&f.brokers, "brokers", "127.0.0.1:9092", "bootstrap broker")
	fs.StringVar(&f.topic, "topic", "karst-bench-share", "topic")
	fs.StringVar(&f.group, "group", "karst-bench-share", "share group")
	fs.StringVar(&f.groups, "groups", "", "prepare: comma-separated share groups to configure")
	fs.StringVar(&f.signal, "signal", "KILL", "redeliver: KILL (the holder dies) or STOP (it freezes)")
	fs.IntVar(&f.partitions, "partitions", 10, "prepare: partitions")
	fs.IntVar(&f.consumers, "consumers", 1, "consume: share consumers (one client each)")
	fs.IntVar(&f.recordSize, "record-size", 1024, "prepare: value bytes")
	fs.Int64Var(&f.records, "records", 100000, "records to write (prepare) or accept (consume)")
	fs.Int64Var(&f.lockMs, "lock-ms", 0, "prepare: share.record.lock.duration.ms of the groups; redeliver: reported beside the delay")
	fs.DurationVar(&f.timeout, "timeout", 60*time.Second, "give up after this long")
	_ = fs.Parse(os.Args[2:])

	ctx, cancel := context.WithTimeout(context.Background(), f.timeout)
	defer cancel()
	var res *bench.Result
	switch mode {
	case "prepare":
		res = prepare(ctx, f)
	case "consume":
		res = consume(ctx, f)
	case "redeliver":
		res = redeliver(ctx, f)
	case "hold":
		if err := hold(ctx, f); err != nil {
			fmt.Fprintln(os.Stderr, "hold:", err)
			os.Exit(1)
		}
		return
	default:
		fmt.Fprintln(os.Stderr, "unknown mode", mode)
		os.Exit(2)
	}
	fmt.Println(res.Line())
}

func prepare(ctx context.Context, f flags) *bench.Result {
	res := bench.NewResult("share-prepare")
	res.SetInt("records", f.records)
	if err := bench.EnsureTopic(ctx, f.brokers, f.topic, int32(f.partitions)); err != nil {
		res.Fail(err)
		return res
	}
	cl, err := kgo.NewClient(kgo.SeedBrokers(f.brokers), kgo.DefaultProduceTopic(f.topic),
		kgo.RecordPartitioner(kgo.RoundRobinPartitioner()), kgo.ProducerLinger(0))
	if err != nil {
		res.Fail(err)
		return res
	}
	defer cl.Close()
	if err := setGroupConfigs(ctx, cl, f); err != nil {
		res.Fail(err)
		return res
	}
	value := make([]byte, f.recordSize)
	for i := range value {
		value[i] = byte(i*131 + 7)
	}
	start := time.Now()
	var failed atomic.Pointer[error]
	var wg sync.WaitGroup
	for i := int64(0); i < f.records; i++ {
		wg.Add(1)
		cl.Produce(ctx, &kgo.Record{Value: value}, func(_ *kgo.Record, err error) {
			if err != nil {
				failed.CompareAndSwap(nil, &err)
			}
			wg.Done()
		})
	}
	wg.Wait()
	if e := failed.Load(); e != nil {
		res.Fail(*e)
		return res
	}
	res.SetThroughput(time.Since(start), f.records, f.records*int64(f.recordSize))
	return res
}

// setGroupConfigs sets the share groups' configs with IncrementalAlterConfigs
// on GROUP resources (kadm has no helper for that resource type).
func setGroupConfigs(ctx context.Context, cl *kgo.Client, f flags) error {
	req := kmsg.NewPtrIncrementalAlterConfigsRequest()
	for _, g := range strings.Split(f.groups, ",") {
		if g == "" {
			continue
		}
		r := kmsg.NewIncrementalAlterConfigsRequestResource()
		r.ResourceType = kmsg.ConfigResourceTypeGroupConfig
		r.ResourceName = g
		set := map[string]string{"share.auto.offset.reset": "earliest"}
		if f.lockMs > 0 {
			set["share.record.lock.duration.ms"] = strconv.FormatInt(f.lockMs, 10)
		}
		for k, v := range set {
			c := kmsg.NewIncrementalAlterConfigsRequestResourceConfig()
			c.Name, c.Value = k, kmsg.StringPtr(v)
			r.Configs = append(r.Configs, c)
		}
		req.Resources = append(req.Resources, r)
	}
	resp, err := req.RequestWith(ctx, cl)
	if err != nil {
		return err
	}
	for _, r := range resp.Resources {
		if err := kerr.ErrorForCode(r.ErrorCode); err != nil {
			msg := ""
			if r.ErrorMessage != nil {
				msg = *r.ErrorMessage
			}
			return fmt.Errorf("group %s: %w %s", r.ResourceName, err, msg)
		}
	}
	return nil
}

func shareClient(f flags, opts ...kgo.Opt) (*kgo.Client, error) {
	return kgo.NewClient(append([]kgo.Opt{kgo.SeedBrokers(f.brokers), kgo.ConsumeTopics(f.topic), kgo.ShareGroup(f.group)}, opts...)...)
}

// consume runs f.consumers share consumers until f.records records were
// acknowledged with AckAccept and flushed (the broker answered), each
// consumer flushing what it polled before it polls again. The callback
// reports per-partition outcomes: any error there is counted in ack_errors.
func consume(ctx context.Context, f flags) *bench.Result {
	res := bench.NewResult("share-consume")
	res.SetInt("consumers", int64(f.consumers))
	var accepted, ackErrs, redelivered, size atomic.Int64
	done := make(chan struct{})
	var once sync.Once
	cb := kgo.ShareAckCallback(func(_ *kgo.Client, rs kgo.ShareAckResults) {
		for _, r := range rs {
			if r.Err != nil {
				ackErrs.Add(1)
			}
		}
	})
	hists := make([]*bench.Histogram, f.consumers)
	var wg sync.WaitGroup
	errc := make(chan error, f.consumers)
	runCtx, stop := context.WithCancel(ctx)
	defer stop()
	// Timed from the first record polled, so the group's join (a heartbeat
	// round on Kafka) is not in the rate.
	var firstOnce sync.Once
	var start time.Time
	for i := 0; i < f.consumers; i++ {
		cl, err := shareClient(f, cb)
		if err != nil {
			res.Fail(err)
			return res
		}
		hists[i] = &bench.Histogram{}
		wg.Add(1)
		go func(h *bench.Histogram) {
			defer wg.Done()
			defer cl.Close()
			for runCtx.Err() == nil {
				fs := cl.PollRecords(runCtx, 500)
				t0 := time.Now()
				if err := fs.Err0(); err != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded) {
					errc <- err
					return
				}
				n := 0
				fs.EachRecord(func(r *kgo.Record) {
					n++
					if n == 1 {
						size.Store(int64(len(r.Value)))
					}
					if r.DeliveryCount() > 1 {
						redelivered.Add(1)
					}
					r.Ack(kgo.AckAccept)
				})
				if n == 0 {
					continue
				}
				firstOnce.Do(func() { start = t0 })
				t := time.Now()
				if cl.FlushAcks(runCtx) != nil {
					continue
				}
				h.RecordDuration(time.Since(t))
				if accepted.Add(int64(n)) >= f.records {
					once.Do(func() { close(done) })
				}
			}
		}(hists[i])
	}
	select {
	case <-done:
	case <-ctx.Done():
		res.Fail(fmt.Errorf("%d of %d acknowledgements answered in %s", accepted.Load(), f.records, f.timeout))
	case err := <-errc:
		res.Fail(err)
	}
	end := time.Now()
	stop()
	wg.Wait()
	elapsed := end.Sub(start)
	all := &bench.Histogram{}
	for _, h := range hists {
		all.Merge(h)
	}
	n := accepted.Load()
	res.SetThroughput(elapsed, n, n*size.Load())
	res.SetInt("ack_errors", ackErrs.Load())
	res.SetInt("redelivered", redelivered.Load())
	res.SetInt("flushes", int64(all.Count()))
	res.SetFloat("ack_p50_ms", float64(all.Quantile(0.50))/1e6)
	res.SetFloat("ack_p99_ms", float64(all.Quantile(0.99))/1e6)
	return res
}

// hold acquires a poll's records, prints "held PARTITION OFFSET" for each and
// "ready", and then holds them without acknowledging until it is killed.
func hold(ctx context.Context, f flags) error {
	cl, err := shareClient(f)
	if err != nil {
		return err
	}
	for ctx.Err() == nil {
		fs := cl.PollRecords(ctx, 500)
		if fs.NumRecords() == 0 {
			continue
		}
		w := bufio.NewWriter(os.Stdout)
		fs.EachRecord(func(r *kgo.Record) { fmt.Fprintf(w, "held %d %d\n", r.Partition, r.Offset) })
		fmt.Fprintln(w, "ready")
		if err := w.Flush(); err != nil {
			return err
		}
		<-ctx.Done()
	}
	return ctx.Err()
}

// redeliver starts a holder, lets a second member join while the holder has
// the records (it must get none of them), then signals the holder and times
// the first of the held records to come back to the second member with a
// delivery count above 1: from the signal (SIGKILL: the broker releases a
// closed connection's records) and from the moment the holder reported them
// (SIGSTOP: they come back when their acquisition locks expire).
func redeliver(ctx context.Context, f flags) *bench.Result {
	res := bench.NewResult("share-redeliver")
	res.SetString("signal", f.signal)
	res.SetInt("lock_ms", f.lockMs)
	sig := syscall.SIGKILL
	if f.signal == "STOP" {
		sig = syscall.SIGSTOP
	}
	holder := exec.Command(os.Args[0], "hold", "-brokers", f.brokers, "-topic", f.topic, "-group", f.group, "-timeout", f.timeout.String())
	holder.Stderr = os.Stderr
	out, err := holder.StdoutPipe()
	if err != nil {
		res.Fail(err)
		return res
	}
	if err := holder.Start(); err != nil {
		res.Fail(err)
		return res
	}
	defer func() { _ = holder.Process.Kill(); _ = holder.Wait() }()
	held := map[[2]int64]bool{}
	sc := bufio.NewScanner(out)
	for sc.Scan() && sc.Text() != "ready" {
		var p, o int64
		if _, err := fmt.Sscanf(sc.Text(), "held %d %d", &p, &o); err == nil {
			held[[2]int64{p, o}] = true
		}
	}
	acquired := time.Now()
	if len(held) == 0 {
		res.Fail(errors.New("the holder reported no records"))
		return res
	}
	res.SetInt("held", int64(len(held)))
	taker, err := shareClient(f)
	if err != nil {
		res.Fail(err)
		return res
	}
	defer taker.Close()
	// Joined and fetching before the signal, so that its join is not timed.
	warm, cancel := context.WithTimeout(ctx, 3*time.Second)
	for warm.Err() == nil {
		fs := taker.PollRecords(warm, 500)
		fs.EachRecord(func(r *kgo.Record) {
			if held[[2]int64{int64(r.Partition), r.Offset}] {
				err = fmt.Errorf("record %d/%d held by the holder was delivered to another member", r.Partition, r.Offset)
			}
			r.Ack(kgo.AckAccept)
		})
	}
	cancel()
	if err != nil {
		res.Fail(err)
		return res
	}
	signalled := time.Now()
	if err := holder.Process.Signal(sig); err != nil {
		res.Fail(err)
		return res
	}
	for ctx.Err() == nil {
		fs := taker.PollRecords(ctx, 500)
		back := false
		fs.EachRecord(func(r *kgo.Record) {
			if held[[2]int64{int64(r.Partition), r.Offset}] && r.DeliveryCount() > 1 {
				back = true
			}
			r.Ack(kgo.AckAccept)
		})
		if back {
			now := time.Now()
			res.SetFloat("after_signal_ms", float64(now.Sub(signalled))/1e6)
			res.SetFloat("after_acquired_ms", float64(now.Sub(acquired))/1e6)
			return res
		}
	}
	res.Fail(fmt.Errorf("no held record came back within %s", f.timeout))
	return res
}
