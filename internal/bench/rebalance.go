package bench

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// RebalanceConfig bounds a Rebalance run.
type RebalanceConfig struct {
	Addr       string
	Topic      string        // default "karst-bench-rebalance-<partitions>"
	Group      string        // default a fresh "karst-bench-rebalance-<unix nanos>"
	Members    int           // group members, one franz-go client each (default 10)
	Partitions int32         // partitions of Topic, created if missing (default 100)
	Protocol   string        // "classic" (default, JoinGroup/SyncGroup) or "consumer" (KIP-848)
	Timeout    time.Duration // give up if the group is not stable by then (default 60s)
	Pid        int           // broker pid whose RSS to sample, 0 for none
}

func (c *RebalanceConfig) defaults() {
	if c.Members <= 0 {
		c.Members = 10
	}
	if c.Partitions <= 0 {
		c.Partitions = 100
	}
	if c.Topic == "" {
		c.Topic = fmt.Sprintf("karst-bench-rebalance-%d", c.Partitions)
	}
	if c.Group == "" {
		c.Group = fmt.Sprintf("karst-bench-rebalance-%d", time.Now().UnixNano())
	}
	if c.Protocol == "" {
		c.Protocol = "classic"
	}
	if c.Timeout <= 0 {
		c.Timeout = 60 * time.Second
	}
}

// benchMember is one group member: a client and the partitions its
// assigned/revoked/lost callbacks say it owns.
type benchMember struct {
	cl   *kgo.Client
	mu   sync.Mutex
	owns map[int32]bool
	done chan struct{}
}

func (m *benchMember) update(topic string, ps map[string][]int32, own bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, p := range ps[topic] {
		if own {
			m.owns[p] = true
		} else {
			delete(m.owns, p)
		}
	}
}

func groupOpts(cfg RebalanceConfig, m *benchMember) ([]kgo.Opt, error) {
	opts := []kgo.Opt{
		kgo.ConsumerGroup(cfg.Group),
		kgo.ConsumeTopics(cfg.Topic),
		kgo.DisableAutoCommit(),
		kgo.HeartbeatInterval(500 * time.Millisecond),
		kgo.SessionTimeout(10 * time.Second),
		kgo.RebalanceTimeout(cfg.Timeout),
		kgo.OnPartitionsAssigned(func(_ context.Context, _ *kgo.Client, ps map[string][]int32) { m.update(cfg.Topic, ps, true) }),
		kgo.OnPartitionsRevoked(func(_ context.Context, _ *kgo.Client, ps map[string][]int32) { m.update(cfg.Topic, ps, false) }),
		kgo.OnPartitionsLost(func(_ context.Context, _ *kgo.Client, ps map[string][]int32) { m.update(cfg.Topic, ps, false) }),
	}
	switch cfg.Protocol {
	case "classic":
		opts = append(opts, kgo.Balancers(kgo.CooperativeStickyBalancer()))
	case "consumer":
		opts = append(opts, kgo.ServerSideBalancer(), kgo.Balancers(kgo.RangeBalancer()))
	default:
		return nil, fmt.Errorf("protocol %q: want classic or consumer", cfg.Protocol)
	}
	return opts, nil
}

func startBenchMember(cfg RebalanceConfig) (*benchMember, error) {
	m := &benchMember{owns: map[int32]bool{}, done: make(chan struct{})}
	opts, err := groupOpts(cfg, m)
	if err != nil {
		return nil, err
	}
	if m.cl, err = newClient(cfg.Addr, opts...); err != nil {
		return nil, err
	}
	go func() {
		defer close(m.done)
		for !m.cl.PollFetches(context.Background()).IsClientClosed() {
		}
	}()
	return m, nil
}

// closeMembers closes every member at once (each leaves the group).
func closeMembers(members []*benchMember) {
	var wg sync.WaitGroup
	for _, m := range members {
		wg.Add(1)
		go func() {
			defer wg.Done()
			m.cl.Close()
			<-m.done
		}()
	}
	wg.Wait()
}

// splitsExactly reports whether the members' own views give every partition
// in [0, n) exactly one owner.
func splitsExactly(members []*benchMember, n int32) bool {
	owners := make([]int, n)
	total := 0
	for _, m := range members {
		m.mu.Lock()
		for p := range m.owns {
			if p >= 0 && p < n {
				owners[p]++
				total++
			}
		}
		m.mu.Unlock()
	}
	if total != int(n) {
		return false
	}
	for _, c := range owners {
		if c != 1 {
			return false
		}
	}
	return true
}

// coordinatorStable reports whether the coordinator describes the group as
// Stable with exactly `members` members: through DescribeGroups for a
// classic group, through ConsumerGroupDescribe for a consumer (KIP-848)
// group, where Stable also means every member reached the target assignment.
func coordinatorStable(ctx context.Context, cl *kgo.Client, protocol, group string, members int) bool {
	dctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if protocol == "consumer" {
		req := kmsg.NewPtrConsumerGroupDescribeRequest()
		req.Groups = []string{group}
		resp, err := req.RequestWith(dctx, cl)
		if err != nil || len(resp.Groups) != 1 {
			return false
		}
		g := resp.Groups[0]
		return g.ErrorCode == 0 && g.State == "Stable" && len(g.Members) == members
	}
	described, err := kadm.NewClient(cl).DescribeGroups(dctx, group)
	if err != nil {
		return false
	}
	g := described[group]
	return g.Err == nil && g.State == "Stable" && len(g.Members) == members
}

// Rebalance starts Members group members at once on a topic of Partitions
// partitions and reports rebalance_ms: the time from the first member
// starting until every partition is owned by exactly one member (by the
// members' own callbacks) and the coordinator describes the group as
// Stable with all of them (DescribeGroups for classic, ConsumerGroupDescribe
// for consumer).
func Rebalance(ctx context.Context, cfg RebalanceConfig) *Result {
	cfg.defaults()
	res := NewResult("rebalance")
	res.SetString("protocol", cfg.Protocol)
	res.SetInt("members", int64(cfg.Members))
	res.SetInt("partitions", int64(cfg.Partitions))
	runCtx, cancel := context.WithTimeout(ctx, cfg.Timeout)
	defer cancel()
	if err := EnsureTopic(runCtx, cfg.Addr, cfg.Topic, cfg.Partitions); err != nil {
		res.Fail(err)
		return res
	}
	admCl, err := newClient(cfg.Addr)
	if err != nil {
		res.Fail(err)
		return res
	}
	defer admCl.Close()
	if cfg.Protocol == "consumer" {
		// franz-go silently falls back to the classic protocol when the broker
		// lacks ConsumerGroupHeartbeat; that would time the wrong thing.
		if err := requireConsumerGroupHeartbeat(runCtx, admCl); err != nil {
			res.Fail(err)
			return res
		}
	}
	rss := startRSSSampler(cfg.Pid)

	start := time.Now()
	members := make([]*benchMember, 0, cfg.Members)
	defer func() {
		closeMembers(members)
		rss.finish(res)
	}()
	for range cfg.Members {
		m, err := startBenchMember(cfg)
		if err != nil {
			res.Fail(err)
			return res
		}
		members = append(members, m)
	}
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for {
		if splitsExactly(members, cfg.Partitions) && coordinatorStable(runCtx, admCl, cfg.Protocol, cfg.Group, cfg.Members) {
			res.SetFloat("rebalance_ms", float64(time.Since(start).Microseconds())/1000)
			return res
		}
		select {
		case <-runCtx.Done():
			res.Fail(fmt.Errorf("group %s not stable with %d members after %v", cfg.Group, cfg.Members, cfg.Timeout))
			return res
		case <-tick.C:
		}
	}
}

// CommitsConfig bounds a Commits run.
type CommitsConfig struct {
	Addr       string
	Topic      string        // default "karst-bench-commits"
	Group      string        // default a fresh "karst-bench-commits-<unix nanos>"
	Partitions int32         // partitions of Topic, created if missing; each commit covers all (default 1)
	Duration   time.Duration // commit for this long (default 10s)
	Pid        int           // broker pid whose RSS to sample, 0 for none
}

// Commits joins one classic group member that owns every partition of Topic
// and then commits offsets synchronously in a loop (each commit one higher
// than the last, for every partition) for Duration; it reports commits,
// commits_per_s and the commit latency.
func Commits(ctx context.Context, cfg CommitsConfig) *Result {
	if cfg.Topic == "" {
		cfg.Topic = "karst-bench-commits"
	}
	if cfg.Group == "" {
		cfg.Group = fmt.Sprintf("karst-bench-commits-%d", time.Now().UnixNano())
	}
	if cfg.Partitions <= 0 {
		cfg.Partitions = 1
	}
	if cfg.Duration <= 0 {
		cfg.Duration = 10 * time.Second
	}
	res := NewResult("commits")
	res.SetInt("partitions", int64(cfg.Partitions))
	joinCtx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	if err := EnsureTopic(joinCtx, cfg.Addr, cfg.Topic, cfg.Partitions); err != nil {
		res.Fail(err)
		return res
	}
	rcfg := RebalanceConfig{Addr: cfg.Addr, Topic: cfg.Topic, Group: cfg.Group, Members: 1, Partitions: cfg.Partitions, Timeout: 60 * time.Second}
	rcfg.defaults()
	m, err := startBenchMember(rcfg)
	if err != nil {
		res.Fail(err)
		return res
	}
	defer closeMembers([]*benchMember{m})
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for !splitsExactly([]*benchMember{m}, cfg.Partitions) {
		select {
		case <-joinCtx.Done():
			res.Fail(fmt.Errorf("member of %s got no assignment within 60s", cfg.Group))
			return res
		case <-tick.C:
		}
	}

	rss := startRSSSampler(cfg.Pid)
	var h Histogram
	var commits int64
	var commitErr error
	runCtx, stop := context.WithTimeout(ctx, cfg.Duration)
	defer stop()
	start := time.Now()
	for runCtx.Err() == nil {
		offsets := map[string]map[int32]kgo.EpochOffset{cfg.Topic: {}}
		for p := range cfg.Partitions {
			offsets[cfg.Topic][p] = kgo.EpochOffset{Epoch: -1, Offset: commits + 1}
		}
		t0 := time.Now()
		m.cl.CommitOffsetsSync(runCtx, offsets, func(_ *kgo.Client, _ *kmsg.OffsetCommitRequest, resp *kmsg.OffsetCommitResponse, err error) {
			if err == nil {
				err = firstCommitError(resp)
			}
			if err != nil && commitErr == nil && !errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, context.Canceled) {
				commitErr = err
			}
		})
		if commitErr != nil {
			break
		}
		if runCtx.Err() == nil {
			h.RecordDuration(time.Since(t0))
			commits++
		}
	}
	elapsed := time.Since(start)
	rss.finish(res)
	res.SetFloat("secs", elapsed.Seconds())
	res.SetInt("commits", commits)
	res.SetFloat("commits_per_s", float64(commits)/elapsed.Seconds())
	res.setLatency(&h)
	if commitErr != nil {
		res.Fail(commitErr)
	}
	return res
}

// firstCommitError is the first partition error an OffsetCommit answered.
func firstCommitError(resp *kmsg.OffsetCommitResponse) error {
	if resp == nil {
		return nil
	}
	for _, t := range resp.Topics {
		for _, p := range t.Partitions {
			if err := kerr.ErrorForCode(p.ErrorCode); err != nil {
				return fmt.Errorf("commit %s[%d]: %w", t.Topic, p.Partition, err)
			}
		}
	}
	return nil
}

// requireConsumerGroupHeartbeat fails unless the broker advertises
// ConsumerGroupHeartbeat (KIP-848) in its ApiVersions.
func requireConsumerGroupHeartbeat(ctx context.Context, cl *kgo.Client) error {
	req := kmsg.NewPtrApiVersionsRequest()
	req.ClientSoftwareName, req.ClientSoftwareVersion = "karst-bench", "0"
	resp, err := req.RequestWith(ctx, cl)
	if err != nil {
		return fmt.Errorf("ApiVersions: %w", err)
	}
	want := kmsg.NewPtrConsumerGroupHeartbeatRequest().Key()
	for _, k := range resp.ApiKeys {
		if k.ApiKey == want {
			return nil
		}
	}
	return errors.New("broker does not offer ConsumerGroupHeartbeat (KIP-848); -protocol consumer needs it")
}
