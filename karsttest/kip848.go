package karsttest

import (
	"context"
	"testing"

	"github.com/twmb/franz-go/pkg/kgo"
)

// KIP848Member joins group with the KIP-848 consumer protocol (the
// broker's assignor: franz-go's ServerSideBalancer) as client clientID,
// subscribed to topic from its start, and returns it once it has read n
// records and committed those of partition commit only, so that the
// group has committed and uncommitted partitions. The test closes it.
func KIP848Member(ctx context.Context, t testing.TB, addr, group, clientID, topic string, n int, commit int32) *kgo.Client {
	t.Helper()
	member, err := kgo.NewClient(kgo.SeedBrokers(addr), kgo.ConsumerGroup(group), kgo.ConsumeTopics(topic),
		kgo.ServerSideBalancer(), kgo.DisableAutoCommit(), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()), kgo.ClientID(clientID))
	if err != nil {
		t.Fatal(err)
	}
	var read []*kgo.Record
	for len(read) < n {
		fetches := member.PollFetches(ctx)
		if ctx.Err() != nil {
			member.Close()
			t.Fatalf("%s read %d of %d records: %v", clientID, len(read), n, ctx.Err())
		}
		read = append(read, fetches.Records()...)
	}
	var committed []*kgo.Record
	for _, r := range read {
		if r.Partition == commit {
			committed = append(committed, r)
		}
	}
	if err := member.CommitRecords(ctx, committed...); err != nil {
		member.Close()
		t.Fatal(err)
	}
	return member
}
