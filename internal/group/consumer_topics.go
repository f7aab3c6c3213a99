package group

import (
	"encoding/binary"
	"hash/fnv"
	"slices"

	"github.com/karst-broker/karst/internal/metadata"
)

// TopicIDs maps topic names to ids and back. The consumer-protocol
// records name topics by id, as Kafka does; the groups here work with
// names.
type TopicIDs interface {
	TopicID(name string) ([16]byte, bool)
	TopicName(id [16]byte) (string, bool)
}

// Topics is what the coordinator reads of the cluster's topics on its
// own (loading, timeouts): partition counts, names and ids.
type Topics interface {
	TopicView
	TopicIDs
}

// metaTopics reads the topics from the broker's metadata: the view of a
// coordinator whose Store is an OffsetsTopic.
type metaTopics struct{ meta *metadata.Store }

func (m metaTopics) Partitions(name string) int32 {
	if t, ok := m.meta.Image().Topic(name); ok {
		return int32(len(t.Partitions))
	}
	return 0
}

func (m metaTopics) Names() []string {
	var out []string
	for _, t := range m.meta.Image().Topics() {
		out = append(out, t.Name)
	}
	return out
}

func (m metaTopics) TopicID(name string) ([16]byte, bool) {
	if t, ok := m.meta.Image().Topic(name); ok {
		return [16]byte(t.ID), true
	}
	return [16]byte{}, false
}

func (m metaTopics) TopicName(id [16]byte) (string, bool) {
	if t, ok := m.meta.Image().TopicByID(metadata.UUID(id)); ok {
		return t.Name, true
	}
	return "", false
}

// topics is the coordinator's own view of the topics, or nil.
func (c *Coordinator) topics() Topics {
	if c.topicsView != nil {
		return c.topicsView
	}
	if o, ok := c.store.(*OffsetsTopic); ok && o.meta != nil {
		return metaTopics{o.meta}
	}
	return nil
}

// idsFor returns the ids to write records with: the heartbeat's view if
// it knows ids, else the coordinator's own.
func (c *Coordinator) idsFor(view TopicView) TopicIDs {
	if ids, ok := view.(TopicIDs); ok {
		return ids
	}
	if t := c.topics(); t != nil {
		return t
	}
	return nil
}

// toTopicPartitions turns an assignment into the records' form, topics
// by id in name order; topics without an id (deleted) are left out.
func toTopicPartitions(ma MemberAssignment, ids TopicIDs) []topicPartitions {
	names := make([]string, 0, len(ma))
	for name, ps := range ma {
		if len(ps) > 0 {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	out := make([]topicPartitions, 0, len(names))
	for _, name := range names {
		if ids == nil {
			continue
		}
		id, ok := ids.TopicID(name)
		if !ok {
			continue
		}
		ps := slices.Clone(ma[name])
		slices.Sort(ps)
		out = append(out, topicPartitions{TopicID: id, Partitions: ps})
	}
	return out
}

// fromTopicPartitions is the reverse; ids no longer known (the topic was
// deleted meanwhile) are dropped.
func fromTopicPartitions(tps []topicPartitions, ids TopicIDs) MemberAssignment {
	out := MemberAssignment{}
	if ids == nil {
		return out
	}
	for _, tp := range tps {
		name, ok := ids.TopicName(tp.TopicID)
		if !ok {
			continue
		}
		for _, p := range tp.Partitions {
			if p >= 0 {
				addPartition(out, TopicPartition{name, p})
			}
		}
	}
	return out
}

// metadataHash summarizes the subscribed topics' ids and partition
// counts for the MetadataHash field of ConsumerGroupMetadataValue, so a
// restarted coordinator can tell whether they changed while it was down.
// Kafka 4.1 computes the field with a hash of its own (XXH3 over topic
// ids, names, partitions and racks); a value it does not recognise only
// makes it recompute the assignment once, as 0 would.
func metadataHash(counts map[string]int32, ids TopicIDs) int64 {
	if len(counts) == 0 {
		return 0
	}
	names := make([]string, 0, len(counts))
	for n := range counts {
		names = append(names, n)
	}
	slices.Sort(names)
	h := fnv.New64a()
	var buf []byte
	for _, n := range names {
		buf = binary.AppendUvarint(buf[:0], uint64(len(n)))
		buf = append(buf, n...)
		if ids != nil {
			if id, ok := ids.TopicID(n); ok {
				buf = append(buf, id[:]...)
			}
		}
		buf = binary.BigEndian.AppendUint32(buf, uint32(counts[n]))
		h.Write(buf)
	}
	v := int64(h.Sum64())
	if v == 0 {
		v = 1
	}
	return v
}
