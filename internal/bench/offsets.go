package bench

import (
	"context"
	"fmt"

	"github.com/twmb/franz-go/pkg/kadm"
)

// logEdge names one end of a partition's log and how kadm lists it.
type logEdge struct {
	name string
	list func(*kadm.Client, context.Context, ...string) (kadm.ListedOffsets, error)
}

var (
	logStart = logEdge{"start", (*kadm.Client).ListStartOffsets}
	logEnd   = logEdge{"end", (*kadm.Client).ListEndOffsets}
)

// listOffsets lists the offset at which edge of every partition of topic,
// from a client of its own. Any partition's error fails the list.
func listOffsets(ctx context.Context, addr, topic string, edge logEdge) (map[int32]int64, error) {
	cl, err := newClient(addr)
	if err != nil {
		return nil, err
	}
	defer cl.Close()
	listed, err := edge.list(kadm.NewClient(cl), ctx, topic)
	if err != nil {
		return nil, fmt.Errorf("listing %s offsets of %s: %w", edge.name, topic, err)
	}
	offsets := map[int32]int64{}
	var lerr error
	listed.Each(func(o kadm.ListedOffset) {
		if o.Err != nil && lerr == nil {
			lerr = fmt.Errorf("%s offset of %s[%d]: %w", edge.name, o.Topic, o.Partition, o.Err)
		}
		offsets[o.Partition] = o.Offset
	})
	if lerr != nil {
		return nil, lerr
	}
	if len(offsets) == 0 {
		return nil, fmt.Errorf("topic %s has no partitions", topic)
	}
	return offsets, nil
}
