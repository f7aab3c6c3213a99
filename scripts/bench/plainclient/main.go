// Command plainclient produces or consumes with a franz-go client at its
// default settings, as an application would use it, so that compare.sh can
// measure both brokers with a client whose options nobody tuned for them
// (karst bench's own clients are tuned to cost the machine as little as
// franz-go allows; this one compresses with snappy, lingers 10 ms and
// allocates every record, as franz-go does unless told otherwise). It prints
// one result line in karst bench's format with client=franz-plain.
//
//	plainclient produce -brokers HOST:PORT -topic T -records N -duration D
//	plainclient consume -brokers HOST:PORT -topic T -records N -duration D
package main

import (
	"context"
	"crypto/rand"
	"errors"
	"flag"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/karst-broker/karst/internal/bench"
)

func main() {
	if len(os.Args) < 2 || (os.Args[1] != "produce" && os.Args[1] != "consume") {
		fmt.Fprintln(os.Stderr, "usage: plainclient produce|consume -brokers HOST:PORT -topic T -records N -duration D [-record-size B]")
		os.Exit(2)
	}
	mode := os.Args[1]
	fs := flag.NewFlagSet(mode, flag.ExitOnError)
	brokers := fs.String("brokers", "127.0.0.1:9092", "seed broker")
	topic := fs.String("topic", "bench-plain", "topic")
	records := fs.Int64("records", 1_000_000, "records to produce or to read, at most")
	duration := fs.Duration("duration", 10*time.Second, "stop after this long, at most")
	recordSize := fs.Int("record-size", 1024, "bytes of value per produced record")
	_ = fs.Parse(os.Args[2:])

	ctx, cancel := context.WithTimeout(context.Background(), *duration)
	defer cancel()
	var r *bench.Result
	if mode == "produce" {
		r = produce(ctx, *brokers, *topic, *records, *recordSize)
	} else {
		r = consume(ctx, *brokers, *topic, *records)
	}
	fmt.Println(r.Line())
	if r.Err() != nil {
		os.Exit(1)
	}
}

// valuePoolBytes is the random data produce cuts values from: 16 MiB, more
// than franz-go puts in a request (1 MiB batches, 6 partitions).
const valuePoolBytes = 16 << 20

// produce sends records of recordSize random bytes as fast as the client
// takes them (Produce blocks when its buffer is full) and records each
// acknowledgement's latency from the Produce call.
func produce(ctx context.Context, brokers, topic string, records int64, recordSize int) *bench.Result {
	r := bench.NewResult("produce")
	r.SetString("client", "franz-plain")
	r.SetInt("record_size", int64(recordSize))
	cl, err := kgo.NewClient(kgo.SeedBrokers(brokers), kgo.DefaultProduceTopic(topic))
	if err != nil {
		r.Fail(err)
		return r
	}
	defer cl.Close()
	// Every record gets its own random bytes, slices of a pool larger than
	// any batch: one value repeated would let snappy (franz-go's default)
	// shrink each batch many times over, and the brokers would store and
	// sync a fraction of the bytes counted.
	pool := make([]byte, max(valuePoolBytes, 4*recordSize))
	_, _ = rand.Read(pool)
	slots := len(pool) / recordSize

	var (
		mu       sync.Mutex
		hist     bench.Histogram
		acked    int64
		firstErr error
		wg       sync.WaitGroup
	)
	start := time.Now()
	for sent := int64(0); sent < records && ctx.Err() == nil; sent++ {
		wg.Add(1)
		sentAt := time.Now()
		at := int(sent%int64(slots)) * recordSize
		cl.Produce(ctx, &kgo.Record{Value: pool[at : at+recordSize]}, func(_ *kgo.Record, err error) {
			defer wg.Done()
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				if firstErr == nil && !errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, context.Canceled) {
					firstErr = err
				}
				return
			}
			acked++
			hist.RecordDuration(time.Since(sentAt))
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	r.SetThroughput(elapsed, acked, acked*int64(recordSize))
	r.SetFloat("p50_ms", float64(hist.Quantile(0.50))/1e6)
	r.SetFloat("p99_ms", float64(hist.Quantile(0.99))/1e6)
	r.SetFloat("max_ms", float64(hist.Max())/1e6)
	r.Fail(firstErr)
	return r
}

// consume reads the topic from its start until it has read records
// records, counting value bytes.
func consume(ctx context.Context, brokers, topic string, records int64) *bench.Result {
	r := bench.NewResult("consume")
	r.SetString("client", "franz-plain")
	start := time.Now()
	cl, err := kgo.NewClient(kgo.SeedBrokers(brokers), kgo.ConsumeTopics(topic),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	if err != nil {
		r.Fail(err)
		return r
	}
	defer cl.Close()
	var read, bytes int64
	for read < records && ctx.Err() == nil {
		fetches := cl.PollFetches(ctx)
		fetches.EachError(func(_ string, _ int32, err error) {
			if !errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, context.Canceled) && r.Err() == nil {
				r.Fail(err)
			}
		})
		fetches.EachRecord(func(rec *kgo.Record) {
			read++
			bytes += int64(len(rec.Value))
		})
	}
	r.SetThroughput(time.Since(start), read, bytes)
	if read < records && r.Err() == nil {
		r.Fail(fmt.Errorf("read %d of %d records before the deadline", read, records))
	}
	return r
}
