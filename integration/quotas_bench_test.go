package integration

import (
	"context"
	"os"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/karst-broker/karst/karsttest"
)

// Quota and authorizer figures (issue 17), benchmarks rather than tests:
// they report what they measure and assert nothing on speed.
//
//	go test -run '^$' -bench 'QuotaByteRate|AuthorizerThroughput' -benchtime 1x -timeout 10m ./integration/
//
// BenchmarkQuotaByteRate holds a producer and a consumer (client-id
// quotas, Kafka's default windows of 11 × 1 s) to producer_byte_rate and
// consumer_byte_rate for KARST_QUOTA_BENCH_SECONDS (default 20) and reports
// the configured and the measured rate of record bytes. The measured rate
// is of values only (the protocol's own bytes, which the quota also
// counts, put it a little lower), and it includes the burst Kafka's rate
// allows a new client: measured over at least Num-1 windows, the first
// ~10 s of bytes pass before the first throttle, so over 20 s a client
// gets up to about 1.5 times its quota, as on Kafka.
// KARST_QUOTA_BENCH_WINDOWS sets quota.window.num (default Kafka's 11).

// benchQuotaRate is the quota both halves run at, bytes per second.
const benchQuotaRate = 1 << 20

func benchSeconds() time.Duration {
	if s, err := strconv.Atoi(os.Getenv("KARST_QUOTA_BENCH_SECONDS")); err == nil && s > 0 {
		return time.Duration(s) * time.Second
	}
	return 20 * time.Second
}

func benchAdmin(b *testing.B, opts ...karsttest.Option) (*karsttest.Broker, *kadm.Client) {
	b.Helper()
	if w := os.Getenv("KARST_QUOTA_BENCH_WINDOWS"); w != "" {
		opts = append(opts, karsttest.WithConfig("quota.window.num", w))
	}
	br := karsttest.Start(b, opts...)
	cl, err := kgo.NewClient(kgo.SeedBrokers(br.Addr()))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(cl.Close)
	return br, kadm.NewClient(cl)
}

func BenchmarkQuotaByteRate(b *testing.B) {
	span := benchSeconds()
	// Distinct random values, uncompressed: the quotas count the bytes on
	// the wire (and in the log), and a batch of one repeated value
	// compresses to a tenth of it (first run: "14 times the quota").
	pool := incompressible(16 << 20)
	const size = 10_000
	value := func(i int) []byte {
		off := (i * size) % (len(pool) - size)
		return pool[off : off+size]
	}
	b.Run("producer", func(b *testing.B) {
		br, adm := benchAdmin(b)
		ctx, cancel := context.WithTimeout(context.Background(), span+2*time.Minute)
		defer cancel()
		createAdminTopic(b, ctx, adm, "quota-bench-produce", 3)
		setClientQuota(b, ctx, adm, "bench-producer", "producer_byte_rate", benchQuotaRate)
		var hook throttleHook
		cl, err := kgo.NewClient(kgo.SeedBrokers(br.Addr()), kgo.ClientID("bench-producer"), kgo.WithHooks(&hook),
			kgo.DefaultProduceTopic("quota-bench-produce"), kgo.MaxBufferedRecords(100), kgo.ProducerBatchCompression(kgo.NoCompression()))
		if err != nil {
			b.Fatal(err)
		}
		defer cl.Close()
		var acked atomic.Int64
		for b.Loop() {
			start := time.Now()
			deadline := start.Add(span)
			for i := 0; time.Now().Before(deadline); i++ {
				cl.Produce(ctx, &kgo.Record{Value: value(i)}, func(r *kgo.Record, err error) {
					if err == nil && time.Now().Before(deadline) {
						acked.Add(int64(len(r.Value)))
					}
				})
			}
			measured := float64(acked.Load()) / time.Since(start).Seconds()
			n, total := hook.get()
			b.ReportMetric(float64(n), "throttles")
			b.ReportMetric(total.Seconds(), "throttled_s")
			b.ReportMetric(benchQuotaRate, "configured_B/s")
			b.ReportMetric(measured, "measured_B/s")
			b.ReportMetric(measured/benchQuotaRate, "measured/configured")
		}
	})
	b.Run("consumer", func(b *testing.B) {
		br, adm := benchAdmin(b)
		ctx, cancel := context.WithTimeout(context.Background(), span+2*time.Minute)
		defer cancel()
		createAdminTopic(b, ctx, adm, "quota-bench-fetch", 1)
		// More than the consumer may read in the span, the first windows'
		// burst included, so that it is the quota, not the end of the log,
		// that holds it back.
		producer, err := kgo.NewClient(kgo.SeedBrokers(br.Addr()), kgo.DefaultProduceTopic("quota-bench-fetch"),
			kgo.ProducerBatchCompression(kgo.NoCompression()))
		if err != nil {
			b.Fatal(err)
		}
		defer producer.Close()
		total := int(1.5*(span.Seconds()+12)*benchQuotaRate) / size
		for i := range total {
			producer.Produce(ctx, &kgo.Record{Value: value(i)}, nil)
		}
		if err := producer.Flush(ctx); err != nil {
			b.Fatal(err)
		}
		setClientQuota(b, ctx, adm, "bench-consumer", "consumer_byte_rate", benchQuotaRate)
		for b.Loop() {
			consumer, err := kgo.NewClient(kgo.SeedBrokers(br.Addr()), kgo.ClientID("bench-consumer"),
				kgo.ConsumeTopics("quota-bench-fetch"), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
			if err != nil {
				b.Fatal(err)
			}
			var read int64
			start := time.Now()
			pollCtx, stop := context.WithDeadline(ctx, start.Add(span))
			for pollCtx.Err() == nil {
				consumer.PollFetches(pollCtx).EachRecord(func(r *kgo.Record) { read += int64(len(r.Value)) })
			}
			stop()
			measured := float64(read) / time.Since(start).Seconds()
			consumer.Close()
			if read >= int64(total*size) {
				b.Fatalf("read the whole log (%d bytes): the quota did not hold the consumer back", read)
			}
			b.ReportMetric(benchQuotaRate, "configured_B/s")
			b.ReportMetric(measured, "measured_B/s")
			b.ReportMetric(measured/benchQuotaRate, "measured/configured")
		}
	})
}

// BenchmarkAuthorizerThroughput: produce (acks=1) and consume 1 KiB records
// with no authorizer and with the StandardAuthorizer, its ACLs 1,000 of
// other principals plus the literal ALLOWs the client needs (WRITE and READ
// on the topic), so that each request goes through the ACL lookup rather
// than the super-user shortcut.
func BenchmarkAuthorizerThroughput(b *testing.B) {
	const records = 100_000
	value := incompressible(1024)
	for _, mode := range []string{"off", "on"} {
		b.Run(mode, func(b *testing.B) {
			var opts []karsttest.Option
			if mode == "on" {
				// allow.everyone.if.no.acl.found lets the unauthenticated
				// client make the ACLs below (the cluster has none); the topic's
				// own ACLs are then what decide.
				opts = append(opts, karsttest.WithConfig("authorizer.class.name", "org.apache.kafka.metadata.authorizer.StandardAuthorizer"),
					karsttest.WithConfig("allow.everyone.if.no.acl.found", "true"))
			}
			br, adm := benchAdmin(b, opts...)
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
			defer cancel()
			const topic = "authz-bench"
			createAdminTopic(b, ctx, adm, topic, 3)
			if mode == "on" {
				var acls []*kadm.ACLBuilder
				for i := range 1000 {
					acls = append(acls, kadm.NewACLs().Topics("other-"+strconv.Itoa(i)).Allow("User:other-"+strconv.Itoa(i)).
						Operations(kadm.OpRead).ResourcePatternType(kadm.ACLPatternLiteral))
				}
				acls = append(acls, kadm.NewACLs().Topics(topic).Allow("User:ANONYMOUS").
					Operations(kadm.OpWrite, kadm.OpRead).ResourcePatternType(kadm.ACLPatternLiteral))
				for _, a := range acls {
					results, err := adm.CreateACLs(ctx, a)
					if err == nil {
						for _, r := range results {
							if r.Err != nil {
								err = r.Err
							}
						}
					}
					if err != nil {
						b.Fatal(err)
					}
				}
			}
			for b.Loop() {
				producer, err := kgo.NewClient(kgo.SeedBrokers(br.Addr()), kgo.DefaultProduceTopic(topic),
					kgo.RequiredAcks(kgo.LeaderAck()), kgo.DisableIdempotentWrite())
				if err != nil {
					b.Fatal(err)
				}
				start := time.Now()
				var failed atomic.Int64
				for range records {
					producer.Produce(ctx, &kgo.Record{Value: value}, func(_ *kgo.Record, err error) {
						if err != nil {
							failed.Add(1)
						}
					})
				}
				if err := producer.Flush(ctx); err != nil || failed.Load() > 0 {
					b.Fatalf("produce: %v, %d records failed", err, failed.Load())
				}
				produced := time.Since(start)
				producer.Close()
				consumer, err := kgo.NewClient(kgo.SeedBrokers(br.Addr()), kgo.ConsumeTopics(topic),
					kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
				if err != nil {
					b.Fatal(err)
				}
				start = time.Now()
				read := 0
				for read < records {
					fetches := consumer.PollFetches(ctx)
					if err := ctx.Err(); err != nil {
						b.Fatalf("consumed %d of %d: %v", read, records, err)
					}
					fetches.EachError(func(t string, p int32, err error) { b.Fatalf("fetch %s-%d: %v", t, p, err) })
					read += fetches.NumRecords()
				}
				consumed := time.Since(start)
				consumer.Close()
				mb := float64(records*len(value)) / 1e6
				b.ReportMetric(mb/produced.Seconds(), "produce_MB/s")
				b.ReportMetric(mb/consumed.Seconds(), "consume_MB/s")
			}
		})
	}
}
