package check

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/IBM/sarama"
)

// pollDeadline bounds one group member's whole life: joining, reading and committing.
const pollDeadline = 30 * time.Second

type commit struct {
	offset   int64
	metadata string
}

// groupRoundTrip is a consumer group on a topic holding the test records: a first member reads
// every record and commits a different offset (with metadata) per partition; a fresh member of
// the same group, whose Offsets.Initial is OffsetNewest (so that without the commits it reads
// nothing), must read exactly from those offsets, and the offset manager reads the commits back.
type groupRoundTrip struct {
	bootstrap, topic, group string
	commits                 map[int32]commit
}

func newGroupRoundTrip(bootstrap, topic, group string) *groupRoundTrip {
	g := &groupRoundTrip{bootstrap: bootstrap, topic: topic, group: group, commits: map[int32]commit{}}
	for p := int32(0); p < Partitions; p++ {
		g.commits[p] = commit{offset: int64(4 + 2*p), metadata: fmt.Sprintf("generations-%d", p)}
	}
	return g
}

func (g *groupRoundTrip) consumeAndCommit() error {
	return g.asMember(sarama.OffsetOldest, recordsFrom(func(int32) int64 { return 0 }), func(s sarama.ConsumerGroupSession) error {
		for p, c := range g.commits {
			s.MarkOffset(g.topic, p, c.offset, c.metadata)
		}
		s.Commit()
		return nil
	})
}

func (g *groupRoundTrip) resumeFromCommits() error {
	expected := recordsFrom(func(p int32) int64 { return g.commits[p].offset })
	if err := g.asMember(sarama.OffsetNewest, expected, func(sarama.ConsumerGroupSession) error { return nil }); err != nil {
		return err
	}
	return g.readCommitsBack()
}

// readCommitsBack asks the group's coordinator for the committed offsets through sarama's
// offset manager, the consumer's own way of reading them.
func (g *groupRoundTrip) readCommitsBack() error {
	client, err := sarama.NewClient([]string{g.bootstrap}, newConfig())
	if err != nil {
		return fmt.Errorf("new client: %w", err)
	}
	defer client.Close()
	manager, err := sarama.NewOffsetManagerFromClient(g.group, client)
	if err != nil {
		return fmt.Errorf("offset manager: %w", err)
	}
	defer manager.Close()
	for p, want := range g.commits {
		pom, err := manager.ManagePartition(g.topic, p)
		if err != nil {
			return fmt.Errorf("partition %d: %w", p, err)
		}
		offset, metadata := pom.NextOffset()
		pom.AsyncClose()
		if offset != want.offset || metadata != want.metadata {
			return fmt.Errorf("partition %d committed %d %q, expected %d %q", p, offset, metadata, want.offset, want.metadata)
		}
	}
	return nil
}

// recordsFrom is "partition/offset" of every test record from firstOffset(partition) on.
func recordsFrom(firstOffset func(int32) int64) map[string]bool {
	records := map[string]bool{}
	for p := int32(0); p < Partitions; p++ {
		for o := firstOffset(p); o < perPartition; o++ {
			records[fmt.Sprintf("%d/%d", p, o)] = true
		}
	}
	return records
}

// asMember joins the group as a new member subscribed to the topic, reads until every expected
// record arrived (failing on any other record, or a key and value that are not the test
// record's), runs afterRead in the member's session and leaves the group.
func (g *groupRoundTrip) asMember(initial int64, expected map[string]bool, afterRead func(sarama.ConsumerGroupSession) error) error {
	cfg := newConfig()
	cfg.Consumer.Offsets.Initial = initial
	group, err := sarama.NewConsumerGroup([]string{g.bootstrap}, g.group, cfg)
	if err != nil {
		return fmt.Errorf("new consumer group: %w", err)
	}
	defer group.Close()
	ctx, cancel := context.WithTimeout(context.Background(), pollDeadline)
	defer cancel()
	member := &collector{records: make(chan *sarama.ConsumerMessage, 64)}
	consumed := make(chan error, 1)
	go func() {
		// Consume returns at each rebalance; the member consumes again until it is told to stop.
		for {
			if err := group.Consume(ctx, []string{g.topic}, member); err != nil || ctx.Err() != nil {
				consumed <- err
				return
			}
		}
	}()
	read := map[string]bool{}
	for len(read) < len(expected) {
		select {
		case m := <-member.records:
			at := fmt.Sprintf("%d/%d", m.Partition, m.Offset)
			if !expected[at] {
				return fmt.Errorf("unexpected record at %s", at)
			}
			if kv := string(m.Key) + "=" + string(m.Value); kv != keyValueAt(m.Partition, m.Offset) {
				return fmt.Errorf("record at %s is %s", at, kv)
			}
			read[at] = true
		case err := <-group.Errors():
			return fmt.Errorf("consumer group error after %d of %d records: %w", len(read), len(expected), err)
		case err := <-consumed:
			return fmt.Errorf("consume ended after %d of %d records: %v", len(read), len(expected), err)
		case <-ctx.Done():
			return fmt.Errorf("read %d of %d records in %s", len(read), len(expected), pollDeadline)
		}
	}
	if err := afterRead(member.current()); err != nil {
		return err
	}
	cancel()
	if err := <-consumed; err != nil && !errors.Is(err, context.Canceled) {
		return fmt.Errorf("leaving the group: %w", err)
	}
	// A fetch still in flight while the member leaves can fail in the partition consumer (EOF,
	// "broker not connected"): that is the client's own shutdown, after everything was read and
	// committed, so it is printed, not judged.
	for {
		select {
		case err := <-group.Errors():
			fmt.Printf("note: while leaving the group sarama reported: %v\n", err)
		default:
			return group.Close()
		}
	}
}

// collector is the group member's handler: it hands every record of every claim to the reader
// and keeps the current session, in which the reader marks and commits offsets.
type collector struct {
	records chan *sarama.ConsumerMessage
	mu      sync.Mutex
	session sarama.ConsumerGroupSession
}

func (c *collector) Setup(s sarama.ConsumerGroupSession) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.session = s
	return nil
}

func (c *collector) Cleanup(sarama.ConsumerGroupSession) error { return nil }

func (c *collector) ConsumeClaim(s sarama.ConsumerGroupSession, claim sarama.ConsumerGroupClaim) error {
	for {
		select {
		case m, ok := <-claim.Messages():
			if !ok {
				return nil
			}
			select {
			case c.records <- m:
			case <-s.Context().Done():
				return nil
			}
		case <-s.Context().Done():
			return nil
		}
	}
}

func (c *collector) current() sarama.ConsumerGroupSession {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.session
}
