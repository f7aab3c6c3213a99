package integration

import (
	"context"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// runFranzMember is a franz-go member: classic with the range or the
// cooperative-sticky balancer, or KIP-848 with the broker's assignor. It
// blocks rebalances while it handles a poll and commits what the poll
// returned before allowing them again, so it never gives up a partition
// with records read but not committed.
func runFranzMember(spec memberSpec, closing <-chan struct{}, out *memberReport) error {
	var mu sync.Mutex
	owns := map[int32]bool{}
	update := func(ps map[string][]int32, own bool) {
		mu.Lock()
		defer mu.Unlock()
		for _, p := range ps[spec.Topic] {
			if own {
				owns[p] = true
			} else {
				delete(owns, p)
			}
		}
		var now []int32
		for p := range owns {
			now = append(now, p)
		}
		out.owns(now)
	}
	opts := []kgo.Opt{kgo.SeedBrokers(spec.Bootstrap), kgo.ConsumerGroup(spec.Group), kgo.ConsumeTopics(spec.Topic),
		kgo.DisableAutoCommit(), kgo.BlockRebalanceOnPoll(), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
		kgo.FetchMaxWait(200 * time.Millisecond),
		kgo.OnPartitionsAssigned(func(_ context.Context, _ *kgo.Client, ps map[string][]int32) { update(ps, true) }),
		kgo.OnPartitionsRevoked(func(_ context.Context, _ *kgo.Client, ps map[string][]int32) { update(ps, false) }),
		kgo.OnPartitionsLost(func(_ context.Context, _ *kgo.Client, ps map[string][]int32) { update(ps, false) })}
	switch {
	case spec.Protocol == "consumer":
		opts = append(opts, kgo.ServerSideBalancer(), kgo.Balancers(kgo.CooperativeStickyBalancer()))
	case spec.Strategy == "range":
		opts = append(opts, kgo.Balancers(kgo.RangeBalancer()))
	case spec.Strategy == "cooperative-sticky":
		opts = append(opts, kgo.Balancers(kgo.CooperativeStickyBalancer()))
	default:
		return fmt.Errorf("no franz-go balancer for %q", spec.Strategy)
	}
	if spec.SessionTimeoutMs > 0 {
		opts = append(opts, kgo.SessionTimeout(time.Duration(spec.SessionTimeoutMs)*time.Millisecond),
			kgo.HeartbeatInterval(time.Duration(spec.SessionTimeoutMs/10)*time.Millisecond))
	}
	cl, err := kgo.NewClient(opts...)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-closing
		cancel()
	}()
	for ctx.Err() == nil {
		var read []*kgo.Record
		fs := cl.PollFetches(ctx)
		fs.EachError(func(topic string, p int32, err error) {
			if ctx.Err() == nil {
				fmt.Fprintf(os.Stderr, "fetch %s/%d: %v\n", topic, p, err)
			}
		})
		fs.EachRecord(func(r *kgo.Record) {
			out.consumed(r.Partition, r.Offset, r.Value)
			read = append(read, r)
		})
		// A failed commit is not retried after the rebalance it may have
		// met: the records go to the partition's next owner again, which
		// the test then reports.
		if len(read) > 0 {
			if err := cl.CommitRecords(context.Background(), read...); err != nil {
				fmt.Fprintln(os.Stderr, "commit:", err)
			}
		}
		cl.AllowRebalance()
	}
	cl.Close() // leaves the group
	out.left()
	return nil
}
