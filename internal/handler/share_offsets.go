package handler

// What DescribeShareGroupOffsets (90), AlterShareGroupOffsets (91),
// DeleteShareGroupOffsets (92) and DeleteGroups of a share group ask of
// the share coordinator (__share_group_state), as Kafka's persister.

import (
	"slices"
	"sort"

	"github.com/twmb/franz-go/pkg/kerr"

	"github.com/karst-broker/karst/internal/group"
	"github.com/karst-broker/karst/internal/metadata"
	"github.com/karst-broker/karst/internal/share"
)

// deleteShareState deletes the share state of group's partitions parts
// and forgets their loaded share-partitions; the first failure's code and
// message per topic.
func (b *Broker) deleteShareState(img *metadata.Image, groupID string, parts group.MemberAssignment) map[string]shareFailure {
	failed := map[string]shareFailure{}
	names := make([]string, 0, len(parts))
	for name := range parts {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		t, ok := img.Topic(name)
		if !ok {
			// The topic is gone; its state was deleted with it or is
			// unreachable by name.
			continue
		}
		for _, p := range slices.Sorted(slices.Values(parts[name])) {
			k := share.Key{Group: groupID, TopicID: t.ID, Partition: p}
			if err := b.opts.ShareState.Delete(k); err != nil {
				if _, seen := failed[name]; !seen {
					failed[name] = shareFailure{code: shareErrorCode(err), msg: err.Error()}
				}
				continue
			}
			if b.opts.Shares != nil {
				b.opts.Shares.Forget(k)
			}
		}
	}
	return failed
}

type shareFailure struct {
	code int16
	msg  string
}

// deleteShareGroupsState deletes the share state of the empty share
// groups among ids before DeleteGroups deletes the groups, as Kafka's
// GroupCoordinatorService; a group whose state could not be deleted is
// answered with that error and kept.
func (b *Broker) deleteShareGroupsState(ids []string) map[string]int16 {
	gc := b.groups()
	if gc == nil || b.opts.ShareState == nil {
		return nil
	}
	img := b.image()
	out := map[string]int16{}
	for id, parts := range gc.ShareGroupsToDelete(ids) {
		for _, f := range b.deleteShareState(img, id, parts) {
			out[id] = f.code
			break
		}
	}
	return out
}

// shareOffsetsUnavailable is the answer when no group or share
// coordinator runs.
func (b *Broker) shareOffsetsUnavailable() bool {
	return b.groups() == nil || b.opts.ShareState == nil
}

func errMessage(err *kerr.Error) *string {
	msg := err.Description
	return &msg
}

// holdsShareGroups: whether ids name an empty share group whose share
// state DeleteGroups must delete.
func (b *Broker) holdsShareGroups(ids []string) bool {
	return b.opts.ShareState != nil && len(b.groups().ShareGroupsToDelete(ids)) > 0
}

// shareOffsetsRefusal is why AlterShareGroupOffsets (create) or
// DeleteShareGroupOffsets may not change groupID's offsets, with Kafka's
// message; nil when they may.
func (b *Broker) shareOffsetsRefusal(groupID string, create bool) (*kerr.Error, string) {
	switch {
	case b.shareOffsetsUnavailable():
		return kerr.CoordinatorNotAvailable, kerr.CoordinatorNotAvailable.Description
	case groupID == "":
		return kerr.InvalidGroupID, kerr.InvalidGroupID.Description
	}
	if e := b.groups().CheckShareOffsetsChange(groupID, create); e != nil {
		return e.Err, e.Message
	}
	return nil, ""
}
