package admincli

import (
	"context"
	"fmt"

	"github.com/twmb/franz-go/pkg/kgo"
)

// shareConflicts are consume's flags a share group decides for itself:
// the broker hands out the records, from the group's share-partition start
// offsets, and a partition's end means nothing to a member.
var shareConflicts = []string{"offset", "from-beginning", "partition", "group", "exit", "read-committed"}

// consumeShare prints topic's records as a member of share group group,
// accepting each printed record (kafka-console-share-consumer's default),
// until count records were printed (0: until ctx ends).
func consumeShare(ctx context.Context, conn *connection, s Streams, topic, group string, count int, out recordWriter) error {
	cl, err := conn.client(ctx, s, kgo.ShareGroup(group), kgo.ConsumeTopics(topic))
	if err != nil {
		return err
	}
	// Close releases what is held and not yet acknowledged, so that
	// records fetched past --count go to another member.
	defer cl.Close()
	printed := 0
	for {
		fetches, done, err := poll(ctx, cl, "share-fetching")
		if done || err != nil {
			return err
		}
		var accepted, released []*kgo.Record
		fetches.EachRecord(func(r *kgo.Record) {
			if count > 0 && printed >= count {
				released = append(released, r)
				return
			}
			if err == nil {
				err = out.write(r)
			}
			accepted = append(accepted, r)
			printed++
		})
		if err != nil {
			return err
		}
		cl.MarkAcks(kgo.AckAccept, accepted...)
		cl.MarkAcks(kgo.AckRelease, released...)
		ackCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), conn.timeout)
		err = cl.FlushAcks(ackCtx)
		cancel()
		if err != nil {
			return fmt.Errorf("acknowledging to share group %s: %w", group, err)
		}
		if count > 0 && printed >= count {
			return nil
		}
	}
}
