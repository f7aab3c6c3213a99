package integration

import (
	"context"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// TestOffsetFetchNeverShowsAnOffsetACrashLoses commits ever larger
// offsets while another client polls OffsetFetch as fast as it can, and
// SIGKILLs the broker in the middle of it, a few times. After each
// restart the committed offset is at least every offset OffsetFetch
// answered before the kill (the coordinator shows a commit only once it
// is durable) and at least the last acknowledged commit.
func TestOffsetFetchNeverShowsAnOffsetACrashLoses(t *testing.T) {
	if testing.Short() {
		t.Skip("kills and restarts a broker process")
	}
	k := &karstProcess{t: t, bin: buildKarst(t), dir: filepath.Join(t.TempDir(), "data"), addr: "127.0.0.1:" + strconv.Itoa(freePort(t))}
	k.start()
	defer func() { k.kill() }()
	ctx := deadlineCtx(t, 3*time.Minute)
	waitGroupStorage(t, ctx, k.addr)
	createAdminTopic(t, ctx, newAdmin(t, k.addr), "visible", 1)
	const group = "crash-visibility"

	fetch := func(ctx context.Context, cl *kgo.Client) (int64, bool) {
		offs, err := kadm.NewClient(cl).FetchOffsets(ctx, group)
		if err != nil {
			return 0, false
		}
		o, ok := offs.Lookup("visible", 0)
		if !ok {
			return -1, true
		}
		return o.At, o.Err == nil
	}
	commit := func(ctx context.Context, cl *kgo.Client, offset int64) bool {
		var os kadm.Offsets
		os.Add(kadm.Offset{Topic: "visible", Partition: 0, At: offset, LeaderEpoch: -1})
		resp, err := kadm.NewClient(cl).CommitOffsets(ctx, group, os)
		return err == nil && resp.Ok()
	}

	next := int64(1)
	for cycle := range 3 {
		cl, err := kgo.NewClient(kgo.SeedBrokers(k.addr), kgo.RequestRetries(0))
		if err != nil {
			t.Fatal(err)
		}
		var seen, acked atomic.Int64
		runCtx, stop := context.WithCancel(ctx)
		var wg sync.WaitGroup
		wg.Add(2)
		go func() {
			defer wg.Done()
			for runCtx.Err() == nil {
				if o, ok := fetch(runCtx, cl); ok && o > seen.Load() {
					seen.Store(o)
				}
			}
		}()
		go func() {
			defer wg.Done()
			for o := next; runCtx.Err() == nil; o++ {
				if commit(runCtx, cl, o) {
					acked.Store(o)
				}
			}
		}()
		// Kill once a few hundred commits went through, while they go on.
		eventually(t, ctx, "commits are acknowledged", func() bool { return acked.Load() > next+200 })
		k.kill()
		stop()
		wg.Wait()
		cl.Close()
		k.start()
		cl2, err := kgo.NewClient(kgo.SeedBrokers(k.addr))
		if err != nil {
			t.Fatal(err)
		}
		var recovered int64
		eventually(t, ctx, "the committed offset can be fetched after the restart", func() bool {
			o, ok := fetch(ctx, cl2)
			recovered = o
			return ok
		})
		cl2.Close()
		t.Logf("cycle %d: last acknowledged %d, largest fetched %d, recovered %d", cycle, acked.Load(), seen.Load(), recovered)
		if recovered < seen.Load() {
			t.Fatalf("cycle %d: OffsetFetch answered %d before the kill, the restarted broker has %d", cycle, seen.Load(), recovered)
		}
		if recovered < acked.Load() {
			t.Fatalf("cycle %d: commit of %d was acknowledged, the restarted broker has %d", cycle, acked.Load(), recovered)
		}
		next = recovered + 1000
	}
}
