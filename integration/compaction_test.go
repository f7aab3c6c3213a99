package integration

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/karst-broker/karst/karsttest"
)

// createCompacted creates a one-partition compacted topic of 1 MiB
// segments that the cleaner takes at any dirty ratio, tombstones kept for
// deleteRetentionMs.
func createCompacted(t *testing.T, ctx context.Context, adm *kadm.Client, topic, deleteRetentionMs string) {
	t.Helper()
	resp, err := adm.CreateTopic(ctx, 1, 1, map[string]*string{
		"cleanup.policy": ptr("compact"), "segment.bytes": ptr("1048576"),
		"min.cleanable.dirty.ratio": ptr("0.01"), "delete.retention.ms": ptr(deleteRetentionMs),
	}, topic)
	if err == nil {
		err = resp.Err
	}
	if err != nil {
		t.Fatal(err)
	}
}

// TestCompactedTopicIsCleaned: franz-go produces keyed updates and
// tombstones to a cleanup.policy=compact topic; the broker's cleaner
// thread compacts it, and a consumer reading from the start sees, below
// the active segment, only the last record of each key at its original
// offset; the log dir root gets Kafka's cleaner-offset-checkpoint, and
// the Prometheus endpoint Kafka's cleaner gauges.
func TestCompactedTopicIsCleaned(t *testing.T) {
	b := karsttest.Start(t, karsttest.WithConfig("log.cleaner.backoff.ms", "20"),
		karsttest.WithConfig("karst.metrics.listener", "127.0.0.1:0"))
	ctx := testContext(t)
	cl, err := kgo.NewClient(kgo.SeedBrokers(b.Addr()), kgo.ProducerLinger(0), kgo.DefaultProduceTopic("compacted"),
		kgo.ProducerBatchCompression(kgo.NoCompression()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	adm := kadm.NewClient(cl)
	createCompacted(t, ctx, adm, "compacted", "3600000")
	// 4 KB values: the 600 writes fill two 1 MiB segments and part of a third.
	const keys, writes = 20, 600
	pad := strings.Repeat("p", 4000)
	last := map[string]int64{}      // key -> offset of its last record
	history := map[string][]int64{} // key -> offsets of its records, in order
	for i := 0; i < writes; i++ {
		k := fmt.Sprintf("key-%02d", i%keys)
		r := &kgo.Record{Key: []byte(k), Value: []byte(fmt.Sprintf("value-%d-%s", i, pad))}
		if i%keys == 3 && i > writes/2 {
			r.Value = nil // a tombstone for key-03 late on
		}
		res, err := cl.ProduceSync(ctx, r).First()
		if err != nil {
			t.Fatal(err)
		}
		last[k] = res.Offset
		history[k] = append(history[k], res.Offset)
	}
	checkpoint := filepath.Join(b.DataDir(), "cleaner-offset-checkpoint")
	// Wait until the cleaner has passed most of the log.
	for {
		data, _ := os.ReadFile(checkpoint)
		var off int64
		if lines := strings.Fields(string(data)); len(lines) == 5 && lines[2] == "compacted" {
			fmt.Sscan(lines[4], &off)
		}
		if off > writes/2 {
			break
		}
		if ctx.Err() != nil {
			t.Fatalf("the cleaner never checkpointed past offset %d: %q", writes/2, data)
		}
		time.Sleep(20 * time.Millisecond)
	}
	data, _ := os.ReadFile(checkpoint)
	var cleanedTo int64
	fmt.Sscan(strings.Fields(string(data))[4], &cleanedTo)

	consumer, err := kgo.NewClient(kgo.SeedBrokers(b.Addr()), kgo.ConsumeTopics("compacted"),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	if err != nil {
		t.Fatal(err)
	}
	defer consumer.Close()
	seen := 0
	prev := int64(-1)
	read := map[string]int64{} // key -> offset of the last record read
	for seen < writes {
		fctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		fs := consumer.PollFetches(fctx)
		cancel()
		if ctx.Err() != nil {
			t.Fatal("timed out reading the compacted topic")
		}
		done := false
		fs.EachRecord(func(r *kgo.Record) {
			if r.Offset <= prev {
				t.Fatalf("offsets out of order: %d after %d", r.Offset, prev)
			}
			prev = r.Offset
			read[string(r.Key)] = r.Offset
			// Below the cleaned offset a record survives only if no later
			// record of its key lies below that offset too.
			if r.Offset < cleanedTo {
				for _, o := range history[string(r.Key)] {
					if o > r.Offset && o < cleanedTo {
						t.Fatalf("a record of %s at offset %d survived though %d replaced it below the cleaned offset %d",
							r.Key, r.Offset, o, cleanedTo)
					}
				}
			}
			if r.Offset == writes-1 {
				done = true
			}
			seen++
		})
		if done {
			break
		}
	}
	if seen >= writes/2 {
		t.Fatalf("read %d of %d records: the topic was not compacted", seen, writes)
	}
	// Every key's last record, the tombstone too (delete.retention.ms has
	// not passed), is still read.
	for k, off := range last {
		if read[k] != off {
			t.Fatalf("key %s: the last record read is at %d, the last written at %d", k, read[k], off)
		}
	}
	t.Logf("cleaned to offset %d; a consumer read %d of %d records", cleanedTo, seen, writes)

	// The cleaner's gauges after its passes: each of 20 keys kept of
	// about 130 records per segment, so a small recopy; the offset map
	// (128 MiB by default) barely used; the threads looked for work within
	// the last seconds (backoff 20 ms); nothing uncleanable.
	body := scrapeMetrics(t, ctx, b.MetricsURL())
	gauges := map[string]float64{}
	for _, name := range []string{"kafka_log_logcleaner_max_buffer_utilization_percent", "kafka_log_logcleaner_cleaner_recopy_percent",
		"kafka_log_logcleaner_max_clean_time_secs", "kafka_log_logcleaner_max_compaction_delay_secs", "kafka_log_logcleaner_deadthreadcount",
		"kafka_log_logcleanermanager_max_dirty_percent", "kafka_log_logcleanermanager_time_since_last_run_ms"} {
		gauges[name] = unlabelledValue(body, name)
		if gauges[name] < 0 {
			t.Fatalf("%s missing from the scrape:\n%s", name, grep(body, "cleaner"))
		}
	}
	if r := gauges["kafka_log_logcleaner_cleaner_recopy_percent"]; r <= 0 || r >= 50 {
		t.Fatalf("cleaner-recopy-percent %v: the passes rewrote 20 of some 130 records a segment", r)
	}
	if ms := gauges["kafka_log_logcleanermanager_time_since_last_run_ms"]; ms > 10000 {
		t.Fatalf("time-since-last-run-ms %v with a 20 ms backoff", ms)
	}
	if d := gauges["kafka_log_logcleaner_deadthreadcount"]; d != 0 {
		t.Fatalf("DeadThreadCount %v", d)
	}
	for _, name := range []string{"kafka_log_logcleanermanager_uncleanable_partitions_count", "kafka_log_logcleanermanager_uncleanable_bytes"} {
		if v := metricValue(body, name, `logdirectory="`+b.DataDir()+`"`); v != 0 {
			t.Fatalf("%s{logdirectory=%q} = %v, want 0:\n%s", name, b.DataDir(), v, grep(body, "uncleanable"))
		}
	}
	t.Logf("cleaner gauges: %v", gauges)
}
