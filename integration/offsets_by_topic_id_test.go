package integration

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/karst-broker/karst/karsttest"
)

// requestVersionLog records the "wrote <API> v<N>" lines franz-go logs
// at debug level, to see which versions it negotiated.
type requestVersionLog struct {
	mu    sync.Mutex
	wrote map[string]bool
}

func (l *requestVersionLog) Level() kgo.LogLevel { return kgo.LogLevelDebug }

func (l *requestVersionLog) Log(_ kgo.LogLevel, msg string, _ ...any) {
	if name, ok := strings.CutPrefix(msg, "wrote "); ok {
		l.mu.Lock()
		l.wrote[name] = true
		l.mu.Unlock()
	}
}

func (l *requestVersionLog) sent(request string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.wrote[request]
}

// TestFranzGoGroupCommitsByTopicID: at its defaults franz-go negotiates
// OffsetCommit v10 and OffsetFetch v10, which name topics by id
// (KIP-848); a group that consumes, commits and resumes must see its
// offsets through them.
func TestFranzGoGroupCommitsByTopicID(t *testing.T) {
	b := karsttest.Start(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	const topic, group, total = "by-id", "by-id-group", 20
	adm := newAdmin(t, b.Addr())
	if _, err := adm.CreateTopic(ctx, 2, 1, nil, topic); err != nil {
		t.Fatal(err)
	}
	produceValues(t, ctx, b.Addr(), topic, total)

	versions := &requestVersionLog{wrote: map[string]bool{}}
	cl, err := kgo.NewClient(kgo.SeedBrokers(b.Addr()), kgo.ConsumerGroup(group), kgo.ConsumeTopics(topic),
		kgo.DisableAutoCommit(), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()), kgo.WithLogger(versions))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	read := 0
	for read < total {
		fs := cl.PollRecords(ctx, total-read)
		if ctx.Err() != nil {
			t.Fatalf("read %d of %d records", read, total)
		}
		var recs []*kgo.Record
		fs.EachRecord(func(r *kgo.Record) { recs = append(recs, r) })
		if err := cl.CommitRecords(ctx, recs...); err != nil {
			t.Fatalf("commit: %v", err)
		}
		read += len(recs)
	}
	for _, request := range []string{"OffsetFetch v10", "OffsetCommit v10"} {
		if !versions.sent(request) {
			t.Errorf("franz-go never sent %s", request)
		}
	}

	committed, err := adm.FetchOffsets(ctx, group)
	if err != nil {
		t.Fatal(err)
	}
	var sum int64
	for _, o := range committed.Offsets()[topic] {
		sum += o.At
	}
	if sum != total {
		t.Fatalf("committed offsets %v sum to %d, want %d", committed.Offsets()[topic], sum, total)
	}
}
