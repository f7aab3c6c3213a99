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

// TestCompactedTopicIsCleaned: franz-go produces keyed updates and
// tombstones to a cleanup.policy=compact topic; the broker's cleaner
// thread compacts it, and a consumer reading from the start sees, below
// the active segment, only the last record of each key at its original
// offset; the log dir root gets Kafka's cleaner-offset-checkpoint.
func TestCompactedTopicIsCleaned(t *testing.T) {
	b := karsttest.Start(t, karsttest.WithConfig("log.cleaner.backoff.ms", "20"))
	ctx := testContext(t)
	cl, err := kgo.NewClient(kgo.SeedBrokers(b.Addr()), kgo.ProducerLinger(0), kgo.DefaultProduceTopic("compacted"),
		kgo.ProducerBatchCompression(kgo.NoCompression()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	adm := kadm.NewClient(cl)
	if _, err := adm.CreateTopic(ctx, 1, 1, map[string]*string{
		"cleanup.policy": ptr("compact"), "segment.bytes": ptr("1048576"),
		"min.cleanable.dirty.ratio": ptr("0.01"), "delete.retention.ms": ptr("3600000"),
	}, "compacted"); err != nil {
		t.Fatal(err)
	}
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
}
