package integration

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// TestGarbageTailIsCutAndTopicsSurviveRestart writes records, kills the
// broker, appends garbage to the partition's active segment, and restarts:
// every record must still be there, the garbage gone, new writes accepted,
// and the topic's id and configs unchanged.
func TestGarbageTailIsCutAndTopicsSurviveRestart(t *testing.T) {
	if testing.Short() {
		t.Skip("kills and restarts a broker process")
	}
	k := &karstProcess{t: t, bin: buildKarst(t), dir: filepath.Join(t.TempDir(), "data"), addr: "127.0.0.1:" + strconv.Itoa(freePort(t))}
	k.start()
	defer func() { k.kill() }()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	const topic = "garbage"
	cl, err := kgo.NewClient(kgo.SeedBrokers(k.addr), kgo.DefaultProduceTopic(topic))
	if err != nil {
		t.Fatal(err)
	}
	adm := kadm.NewClient(cl)
	retention := "123456789"
	created, err := adm.CreateTopic(ctx, 1, 1, map[string]*string{"retention.ms": &retention}, topic)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 100 {
		if err := cl.ProduceSync(ctx, &kgo.Record{Value: []byte(strconv.Itoa(i))}).FirstErr(); err != nil {
			t.Fatal(err)
		}
	}
	cl.Close()
	k.kill()

	segment := filepath.Join(k.dir, topic+"-0", "00000000000000000000.log")
	f, err := os.OpenFile(segment, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	garbage := []byte("\x00\x00\x00\x00\x00\x00\x00\x64\x00\x00\x01\x00this is not a record batch, it is garbage left by a crash")
	if _, err := f.Write(garbage); err != nil {
		t.Fatal(err)
	}
	f.Close()

	k.start()
	cl, err = kgo.NewClient(kgo.SeedBrokers(k.addr), kgo.DefaultProduceTopic(topic),
		kgo.ConsumeTopics(topic), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	adm = kadm.NewClient(cl)
	topics, err := adm.ListTopics(ctx, topic)
	if err != nil {
		t.Fatal(err)
	}
	if got := topics[topic].ID; got != created.ID {
		t.Fatalf("topic id %v after restart, was %v", got, created.ID)
	}
	if err := cl.ProduceSync(ctx, &kgo.Record{Value: []byte("100")}).FirstErr(); err != nil {
		t.Fatalf("write after recovery: %v", err)
	}
	for want := 0; want <= 100; {
		fetches := cl.PollFetches(ctx)
		if ctx.Err() != nil {
			t.Fatalf("read %d of 101 records", want)
		}
		fetches.EachError(func(_ string, _ int32, err error) { t.Fatal(err) })
		fetches.EachRecord(func(r *kgo.Record) {
			if string(r.Value) != strconv.Itoa(want) || r.Offset != int64(want) {
				t.Fatalf("offset %d holds %q, want %d", r.Offset, r.Value, want)
			}
			want++
		})
	}
	configs, err := adm.DescribeTopicConfigs(ctx, topic)
	if err != nil {
		t.Fatal(err)
	}
	{
		c, err := configs.On(topic, nil)
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, kv := range c.Configs {
			if kv.Key == "retention.ms" && kv.MaybeValue() == retention {
				found = true
			}
		}
		if !found {
			t.Fatal("retention.ms override lost across the restart")
		}
	}
}
