package integration

import (
	"context"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
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
			commitRead(cl, read, out)
		}
		cl.AllowRebalance()
	}
	cl.Close() // leaves the group
	out.left()
	return nil
}

// commitRead commits past the records read, as kgo's CommitRecords does,
// and reports each partition whose commit the coordinator acknowledged.
func commitRead(cl *kgo.Client, read []*kgo.Record, out *memberReport) {
	offsets := map[string]map[int32]kgo.EpochOffset{}
	for _, r := range read {
		if offsets[r.Topic] == nil {
			offsets[r.Topic] = map[int32]kgo.EpochOffset{}
		}
		next := kgo.EpochOffset{Epoch: r.LeaderEpoch, Offset: r.Offset + 1}
		if at, ok := offsets[r.Topic][r.Partition]; !ok || at.Less(next) {
			offsets[r.Topic][r.Partition] = next
		}
	}
	cl.CommitOffsetsSync(context.Background(), offsets, func(_ *kgo.Client, _ *kmsg.OffsetCommitRequest, resp *kmsg.OffsetCommitResponse, err error) {
		if err != nil {
			fmt.Fprintln(os.Stderr, "commit:", err)
			return
		}
		for _, t := range resp.Topics {
			for _, p := range t.Partitions {
				if err := kerr.ErrorForCode(p.ErrorCode); err != nil {
					fmt.Fprintf(os.Stderr, "commit %s/%d: %v\n", t.Topic, p.Partition, err)
					continue
				}
				out.committed(p.Partition, offsets[t.Topic][p.Partition].Offset)
			}
		}
	})
}
