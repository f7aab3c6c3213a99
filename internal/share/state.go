package share

import "sort"

// RecordState is a record's delivery state, numbered as Kafka's
// RecordState (the persisted DeliveryState uses 0, 2 and 4).
type RecordState int8

const (
	Available    RecordState = 0
	Acquired     RecordState = 1
	Acknowledged RecordState = 2
	Archived     RecordState = 4
)

func (s RecordState) String() string {
	switch s {
	case Available:
		return "available"
	case Acquired:
		return "acquired"
	case Acknowledged:
		return "acknowledged"
	case Archived:
		return "archived"
	}
	return "unknown"
}

// terminal states advance the share-partition start offset past them.
func (s RecordState) terminal() bool { return s == Acknowledged || s == Archived }

// StateBatch is a run of offsets in one persisted state: Kafka's
// PersisterStateBatch.
type StateBatch struct {
	FirstOffset   int64
	LastOffset    int64
	DeliveryState RecordState
	DeliveryCount int16
}

// State is a share-partition's durable state.
type State struct {
	StateEpoch  int32
	LeaderEpoch int32
	// StartOffset is the share-partition start offset; -1 until it is
	// initialized (Kafka's uninitialized state).
	StartOffset int64
	Batches     []StateBatch
	// DeliveryCompleteCount (KIP-1226) is how many offsets at or above
	// StartOffset are acknowledged or archived, as the share-partition
	// last wrote it: with the log end offset it gives the group's lag
	// without reading the batches. 0 for a state just initialized, as
	// Kafka 4.4 answers; -1 when unknown (state written before Kafka 4.2).
	DeliveryCompleteCount int32
}

// Update is what a Write changes: StartOffset (-1 leaves it) and the
// batches whose state changed, which replace what they overlap.
type Update struct {
	LeaderEpoch int32
	StartOffset int64
	Batches     []StateBatch
	// DeliveryCompleteCount is the writer's count after the update, -1
	// when it sends none (WriteShareGroupState v0).
	DeliveryCompleteCount int32
}

// merge overlays update's batches on batches and drops what lies below
// start, coalescing neighbours of the same state and count: the batches
// stay sorted and disjoint, as Kafka's share coordinator keeps them.
func merge(batches, update []StateBatch, start int64) []StateBatch {
	out := make([]StateBatch, 0, len(batches)+len(update))
	out = append(out, batches...)
	for _, u := range update {
		if u.LastOffset < u.FirstOffset {
			continue
		}
		next := out[:0:0]
		for _, b := range out {
			if b.LastOffset < u.FirstOffset || b.FirstOffset > u.LastOffset {
				next = append(next, b)
				continue
			}
			if b.FirstOffset < u.FirstOffset {
				l := b
				l.LastOffset = u.FirstOffset - 1
				next = append(next, l)
			}
			if b.LastOffset > u.LastOffset {
				r := b
				r.FirstOffset = u.LastOffset + 1
				next = append(next, r)
			}
		}
		out = append(next, u)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].FirstOffset < out[j].FirstOffset })
	pruned := out[:0]
	for _, b := range out {
		if start >= 0 && b.LastOffset < start {
			continue
		}
		if start >= 0 && b.FirstOffset < start {
			b.FirstOffset = start
		}
		if n := len(pruned); n > 0 {
			p := &pruned[n-1]
			if p.LastOffset+1 == b.FirstOffset && p.DeliveryState == b.DeliveryState && p.DeliveryCount == b.DeliveryCount {
				p.LastOffset = b.LastOffset
				continue
			}
		}
		pruned = append(pruned, b)
	}
	return pruned
}

// apply is s after u.
func (s State) apply(u Update) State {
	out := s
	out.LeaderEpoch = u.LeaderEpoch
	if u.StartOffset >= 0 {
		out.StartOffset = u.StartOffset
	}
	out.Batches = merge(s.Batches, u.Batches, out.StartOffset)
	out.DeliveryCompleteCount = -1
	return out
}
