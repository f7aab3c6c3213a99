package group

import (
	"fmt"
	"maps"
	"slices"

	"github.com/twmb/franz-go/pkg/kerr"
)

// The share group side of the share-offsets admin APIs
// (DescribeShareGroupOffsets, AlterShareGroupOffsets,
// DeleteShareGroupOffsets) and of DeleteGroups' share-state deletion, as
// Kafka's GroupMetadataManager: the group's share-partitions with state
// are those of its ShareGroupStatePartitionMetadata record (initialized),
// which the handler reads here before it asks the share coordinator for
// their state, and which changes here once the share coordinator has
// written or deleted that state.

// ShareOffsetsError is a share-offsets request's answer for the whole
// group, with Kafka's message.
type ShareOffsetsError struct {
	Err     *kerr.Error
	Message string
}

// ShareStatePartitions returns the topic-partitions whose share state the
// share group id holds (DescribeShareGroupOffsets with no topics): none
// for an unknown group or a group of another type, as Kafka's
// initializedShareGroupPartitions.
func (c *Coordinator) ShareStatePartitions(id string) (MemberAssignment, *kerr.Error) {
	if err := c.unavailable(id); err != nil {
		return nil, err
	}
	holder := c.group(id, false)
	if holder == nil {
		return MemberAssignment{}, nil
	}
	holder.mu.Lock()
	defer holder.mu.Unlock()
	g := holder.committedShareGroup()
	if g == nil {
		return MemberAssignment{}, nil
	}
	return cloneAssignment(g.initialized), nil
}

// CheckShareOffsetsChange answers whether the share offsets of id may
// change: only those of an empty share group. A group that does not
// exist is GROUP_ID_NOT_FOUND unless create (AlterShareGroupOffsets makes
// the group, as Kafka's getOrMaybeCreateShareGroup); a group of another
// type is GROUP_ID_NOT_FOUND, one with members NON_EMPTY_GROUP.
func (c *Coordinator) CheckShareOffsetsChange(id string, create bool) *ShareOffsetsError {
	if err := c.unavailable(id); err != nil {
		return &ShareOffsetsError{Err: err, Message: err.Description}
	}
	holder := c.group(id, false)
	if holder == nil {
		if create {
			return nil
		}
		return &ShareOffsetsError{Err: kerr.GroupIDNotFound, Message: fmt.Sprintf("Group %s not found.", id)}
	}
	holder.mu.Lock()
	defer holder.mu.Unlock()
	holder.catchUp()
	g := c.shareGroupOf(holder, false)
	switch {
	case g == nil && c.blankHolder(holder) && create:
		return nil
	case g == nil && c.blankHolder(holder):
		return &ShareOffsetsError{Err: kerr.GroupIDNotFound, Message: fmt.Sprintf("Group %s not found.", id)}
	case g == nil:
		return &ShareOffsetsError{Err: kerr.GroupIDNotFound, Message: fmt.Sprintf("Group %s is not a share group.", id)}
	case len(g.members) > 0:
		return &ShareOffsetsError{Err: kerr.NonEmptyGroup, Message: kerr.NonEmptyGroup.Description}
	}
	return nil
}

// ShareGroupsToDelete returns, for each of ids that is an empty share
// group, the topic-partitions whose share state goes with it
// (DeleteGroups deletes that state first, as Kafka's
// sharePartitionDeleteRequests); the other ids are not listed.
func (c *Coordinator) ShareGroupsToDelete(ids []string) map[string]MemberAssignment {
	out := map[string]MemberAssignment{}
	for _, id := range ids {
		if c.unavailable(id) != nil {
			continue
		}
		holder := c.group(id, false)
		if holder == nil {
			continue
		}
		holder.mu.Lock()
		holder.catchUp()
		if g := c.shareGroupOf(holder, false); g != nil && len(g.members) == 0 {
			all := cloneAssignment(g.initialized)
			for _, a := range g.target {
				for _, tp := range partitionsOf(a) {
					addPartition(all, tp)
				}
			}
			out[id] = all
		}
		holder.mu.Unlock()
	}
	return out
}

// SetShareStatePartitions changes which topic-partitions of share group
// id hold share state: add's join them (AlterShareGroupOffsets, once the
// state is written), remove's topics leave (DeleteShareGroupOffsets, once
// deleted). It writes the group's ShareGroupStatePartitionMetadata record,
// creating the share group when it does not exist yet; the group must
// not have members (NON_EMPTY_GROUP), as checked before the state changed.
func (c *Coordinator) SetShareStatePartitions(id string, add MemberAssignment, remove []string, view TopicView) (Durable, *ShareOffsetsError) {
	if err := c.unavailable(id); err != nil {
		return nil, &ShareOffsetsError{Err: err, Message: err.Description}
	}
	holder := c.group(id, true)
	holder.mu.Lock()
	defer holder.mu.Unlock()
	holder.catchUp()
	g := c.shareGroupOf(holder, false)
	if g == nil {
		if !c.blankHolder(holder) {
			return nil, &ShareOffsetsError{Err: kerr.GroupIDNotFound, Message: fmt.Sprintf("Group %s is not a share group.", id)}
		}
		g = c.shareGroupOf(holder, true)
		if holder.state == Dead {
			holder.transition(Empty, c.clock.Now())
		}
	}
	if len(g.members) > 0 {
		return nil, &ShareOffsetsError{Err: kerr.NonEmptyGroup, Message: kerr.NonEmptyGroup.Description}
	}
	all := cloneAssignment(g.initialized)
	for _, t := range remove {
		delete(all, t)
	}
	for _, tp := range partitionsOf(add) {
		addPartition(all, tp)
	}
	ids := c.idsFor(view)
	v := &shareStateValue{Initializing: []shareStateTopic{}, Initialized: []shareStateTopic{}, Deleting: []shareStateTopic{}}
	for _, name := range slices.Sorted(maps.Keys(all)) {
		if tid, ok := ids.TopicID(name); ok && len(all[name]) > 0 {
			v.Initialized = append(v.Initialized, shareStateTopic{TopicID: tid, TopicName: name, Partitions: all[name]})
		}
	}
	recs := []Record{{Key: consumerKey(keyShareGroupStatePartitionMetadata, id), Value: v.encode()}}
	wait, err := holder.appendWrite(recs, ids, nil)
	if err != nil {
		if len(g.members) == 0 && !g.epochWritten && len(g.initialized) == 0 {
			c.dropShareGroup(holder)
		}
		return nil, &ShareOffsetsError{Err: kerr.CoordinatorNotAvailable, Message: kerr.CoordinatorNotAvailable.Description}
	}
	cfg, _ := c.shareConfig(id)
	now := c.clock.Now()
	for _, r := range recs {
		if rec, ok, err := decodeShareRecord(r.Key, r.Value); ok && err == nil {
			g.replay(rec, ids, cfg, now)
		}
	}
	return wait, nil
}

// blankHolder: holder is no group of any type yet (or any more), so a
// share group may take its id; the caller holds holder.mu.
func (c *Coordinator) blankHolder(holder *classicGroup) bool {
	if holder.state == Dead {
		return true
	}
	// As shareHeartbeat: any group of another type holds the id, an empty
	// classic group with committed offsets included.
	return c.consumerGroupOf(holder, false) == nil && len(holder.members) == 0 && holder.protocolType == "" &&
		holder.generation == 0 && len(holder.offsets) == 0 && len(holder.txn.pending) == 0
}
