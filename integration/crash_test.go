package integration

import (
	"context"
	"fmt"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// TestSIGKILLDuringProduceLosesNoAcknowledgedRecord kills the broker with
// SIGKILL again and again while several idempotent acks=all producers
// write, restarting it on the same directory each time. Afterwards every
// acknowledged record must be in the log at the offset it was acknowledged
// with, no record may appear twice, and offsets must be contiguous. Keyed
// records over 12 partitions make requests that wait on several partitions
// at once, so their fsyncs are batched into the log dir's syncfs.
func TestSIGKILLDuringProduceLosesNoAcknowledgedRecord(t *testing.T) {
	if testing.Short() {
		t.Skip("kills and restarts a broker process")
	}
	k := &karstProcess{t: t, bin: buildKarst(t), dir: filepath.Join(t.TempDir(), "data"), addr: "127.0.0.1:" + strconv.Itoa(freePort(t))}
	k.start()
	defer func() { k.kill() }()

	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	const topic, partitions, producers, kills = "crash", 12, 3, 6
	admin, err := kgo.NewClient(kgo.SeedBrokers(k.addr))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := kadm.NewClient(admin).CreateTopic(ctx, partitions, 1, nil, topic); err != nil {
		t.Fatal(err)
	}
	admin.Close()

	type ack struct {
		partition int32
		offset    int64
	}
	var mu sync.Mutex
	acked := map[string]ack{}
	var ackCount atomic.Int64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for p := range producers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cl, err := kgo.NewClient(kgo.SeedBrokers(k.addr), kgo.DefaultProduceTopic(topic),
				kgo.RequiredAcks(kgo.AllISRAcks()), kgo.RecordRetries(1<<30), kgo.RetryTimeout(2*time.Minute),
				kgo.MaxBufferedRecords(2000))
			if err != nil {
				t.Error(err)
				return
			}
			defer cl.Close()
			for i := 0; ; i++ {
				select {
				case <-stop:
					cl.Flush(ctx)
					return
				default:
				}
				value := fmt.Sprintf("p%d-%08d", p, i)
				cl.Produce(ctx, &kgo.Record{Key: []byte(value), Value: []byte(value)}, func(r *kgo.Record, err error) {
					if err != nil {
						return
					}
					mu.Lock()
					acked[value] = ack{r.Partition, r.Offset}
					mu.Unlock()
					ackCount.Add(1)
				})
			}
		}()
	}
	for range kills {
		target := ackCount.Load() + 2000
		for ackCount.Load() < target {
			if ctx.Err() != nil {
				t.Fatalf("producers stalled at %d acknowledgements", ackCount.Load())
			}
			time.Sleep(5 * time.Millisecond)
		}
		k.kill()
		k.start()
	}
	target := ackCount.Load() + 2000
	for ackCount.Load() < target && ctx.Err() == nil {
		time.Sleep(5 * time.Millisecond)
	}
	close(stop)
	wg.Wait()

	// One more crash after the last acknowledgement, then read everything.
	k.kill()
	k.start()
	consumer, err := kgo.NewClient(kgo.SeedBrokers(k.addr), kgo.ConsumeTopics(topic),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	if err != nil {
		t.Fatal(err)
	}
	defer consumer.Close()
	ends, err := kadm.NewClient(consumer).ListEndOffsets(ctx, topic)
	if err != nil {
		t.Fatal(err)
	}
	var total int64
	ends.Each(func(o kadm.ListedOffset) { total += o.Offset })
	seen := map[string]ack{}
	next := map[int32]int64{}
	for int64(len(seen)) < total {
		fetches := consumer.PollFetches(ctx)
		if ctx.Err() != nil {
			t.Fatalf("read %d of %d records", len(seen), total)
		}
		fetches.EachRecord(func(r *kgo.Record) {
			if r.Offset != next[r.Partition] {
				t.Fatalf("partition %d: offset %d where %d was expected", r.Partition, r.Offset, next[r.Partition])
			}
			next[r.Partition]++
			v := string(r.Value)
			if prev, dup := seen[v]; dup {
				t.Fatalf("record %s twice: %d/%d and %d/%d", v, prev.partition, prev.offset, r.Partition, r.Offset)
			}
			seen[v] = ack{r.Partition, r.Offset}
		})
	}
	mu.Lock()
	defer mu.Unlock()
	for v, a := range acked {
		got, ok := seen[v]
		if !ok {
			t.Errorf("acknowledged record %s (%d/%d) lost", v, a.partition, a.offset)
		} else if got != a {
			t.Errorf("record %s acknowledged at %d/%d, found at %d/%d", v, a.partition, a.offset, got.partition, got.offset)
		}
	}
	t.Logf("%d kills, %d acknowledged records, %d records in the log", kills+1, len(acked), total)
}
