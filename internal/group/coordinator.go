package group

import (
	"crypto/rand"
	"fmt"
	"log/slog"
	"sync"

	"github.com/karst-broker/karst/internal/coordinator"
)

// Coordinator owns every group this broker coordinates (with a single
// node: all of them).
type Coordinator struct {
	cfg    Config
	clock  Clock
	store  Store
	logger *slog.Logger
	// topicsView is Options.Topics (consumer_topics.go).
	topicsView Topics
	// newUUID makes the random part of member ids.
	newUUID func() string

	mu sync.RWMutex
	// shards are the groups of each __consumer_offsets partition, which
	// group ids hash to over shardsOf partitions (group_shard.go).
	shards   map[int32]*groupShard
	shardsOf int32
	// consumer holds the KIP-848 groups' settings (consumer_coordinator.go).
	consumer consumerGroups
	// share holds the share groups' settings (share_group.go).
	share shareGroups
	// offsetState is the open transactions' index and the expiry
	// schedule (txn_offsets.go, expiry.go).
	offsetState offsetState
	// offline are the partitions whose load failed (offline.go); nil
	// when every partition loaded.
	offline *OfflinePartitions
	// unloaded are the partitions resigned by an unload and not loaded
	// again (partition_load.go), of unloadedOf partitions.
	unloaded   map[int32]bool
	unloadedOf int32
	// local keeps the timers no partition's shard keeps (shard_timers.go).
	local *coordinator.Runtime[*localShard]
}

// Options are a coordinator's collaborators; zero values pick the wall
// clock, no persistence and slog's default logger.
type Options struct {
	Clock  Clock
	Store  Store
	Logger *slog.Logger
	// Topics is the cluster's topics, which consumer-protocol groups read
	// when loading and on timeouts; nil reads them from the metadata of an
	// OffsetsTopic Store.
	Topics Topics
}

// New returns a coordinator with no groups; Load fills it from a Store.
func New(cfg Config, opts Options) *Coordinator {
	c := &Coordinator{cfg: cfg, clock: opts.Clock, store: opts.Store, logger: opts.Logger,
		topicsView: opts.Topics, newUUID: randomUUID, shards: map[int32]*groupShard{}}
	if c.clock == nil {
		c.clock = SystemClock{}
	}
	if c.logger == nil {
		c.logger = slog.Default()
	}
	c.local = localTimers(c.clock, c.logger)
	if c.cfg.NewMemberJoinTimeout <= 0 {
		c.cfg.NewMemberJoinTimeout = DefaultConfig().NewMemberJoinTimeout
	}
	if c.cfg.MaxSize <= 0 {
		c.cfg.MaxSize = DefaultConfig().MaxSize
	}
	if o, ok := c.store.(*OffsetsTopic); ok {
		o.attach(c)
	}
	return c
}

// Config returns the coordinator's settings.
func (c *Coordinator) Config() Config { return c.cfg }

// group returns a group, creating it (Empty) when create is set.
func (c *Coordinator) group(id string, create bool) *classicGroup {
	g, _ := c.groupCreated(id, create)
	return g
}

// groupCreated is group, and reports whether this call created it.
func (c *Coordinator) groupCreated(id string, create bool) (g *classicGroup, created bool) {
	return c.shardGroup(nil, id, create)
}

// snapshot lists the groups of every shard, ordered by id.
func (c *Coordinator) snapshot() []*classicGroup {
	c.mu.RLock()
	var out []*classicGroup
	for _, s := range c.shards {
		for _, g := range s.groups {
			out = append(out, g)
		}
	}
	c.mu.RUnlock()
	sortGroups(out)
	return out
}

// drop removes a Dead group from its shard; the caller holds g.mu.
func (c *Coordinator) drop(g *classicGroup) {
	c.mu.Lock()
	if s := g.shard; s != nil && s.groups[g.id] == g {
		delete(s.groups, g.id)
	}
	c.mu.Unlock()
}

func randomUUID() string {
	var b [16]byte
	rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:])
}
