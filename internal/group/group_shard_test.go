package group

import (
	"context"
	"fmt"
	"testing"
)

// TestReloadReplacesOnlyItsShard: reloading one partition serves a new
// shard replayed from its log, holding its groups with their offsets,
// while the other partitions keep their shards and groups as they were.
func TestReloadReplacesOnlyItsShard(t *testing.T) {
	c, _ := newRuntimeCoordinator(t, 4)
	byPartition := map[int32]string{}
	for i := 0; len(byPartition) < 4; i++ {
		id := fmt.Sprintf("g%d", i)
		if p := PartitionFor(id, 4); byPartition[p] == "" {
			byPartition[p] = id
			_, _, wait := c.CommitOffsets(commit(id, "", -1, int64(100+p)))
			if err := wait(context.Background()); err != nil {
				t.Fatal(err)
			}
		}
	}
	shardOf := func(id string) *groupShard {
		c.mu.RLock()
		defer c.mu.RUnlock()
		return c.shardOf(id)
	}
	before := map[int32]*groupShard{}
	groups := map[int32]*classicGroup{}
	for p, id := range byPartition {
		before[p], groups[p] = shardOf(id), c.group(id, false)
	}
	if err := c.ReloadPartition(2); err != nil {
		t.Fatal(err)
	}
	for p, id := range byPartition {
		s, g := shardOf(id), c.group(id, false)
		if s == nil || g == nil {
			t.Fatalf("partition %d: group %s not served after the reload", p, id)
		}
		if s.partition != p || g.shard != s {
			t.Fatalf("partition %d: group %s is in the shard of partition %d", p, id, s.partition)
		}
		if reloaded := p == 2; (s != before[p]) != reloaded || (g != groups[p]) != reloaded {
			t.Fatalf("partition %d: new shard %v, new group %v, want both %v", p, s != before[p], g != groups[p], reloaded)
		}
		if !groups[p].resigned.Load() != (p != 2) {
			t.Fatalf("partition %d: old group resigned %v", p, groups[p].resigned.Load())
		}
		wantOffsets(t, c, id, int64(100+p))
	}
}
