package integration

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/karst-broker/karst/karsttest"
)

// describeShareOffsets sends DescribeShareGroupOffsets v1 for group; nil
// partitions asks for every topic with share state.
func (h *shareHarness) describeShareOffsets(group string, topics map[string][]int32) kmsg.DescribeShareGroupOffsetsResponseGroup {
	h.t.Helper()
	req := kmsg.NewPtrDescribeShareGroupOffsetsRequest()
	rg := kmsg.NewDescribeShareGroupOffsetsRequestGroup()
	rg.GroupID = group
	for name, ps := range topics {
		rg.Topics = append(rg.Topics, kmsg.DescribeShareGroupOffsetsRequestGroupTopic{Topic: name, Partitions: ps})
	}
	req.Groups = append(req.Groups, rg)
	resp, err := req.RequestWith(h.ctx, h.cl)
	if err != nil {
		h.t.Fatal(err)
	}
	if len(resp.Groups) != 1 {
		h.t.Fatalf("described %d groups", len(resp.Groups))
	}
	return resp.Groups[0]
}

// offsetsLine renders a described group as "topic:partition=start/lag"
// entries, with a partition's error code when it has one.
func offsetsLine(g kmsg.DescribeShareGroupOffsetsResponseGroup) string {
	s := ""
	if g.ErrorCode != 0 {
		s = fmt.Sprintf("error %d ", g.ErrorCode)
	}
	for _, t := range g.Topics {
		for _, p := range t.Partitions {
			s += fmt.Sprintf("%s:%d=%d/%d", t.Topic, p.Partition, p.StartOffset, p.Lag)
			if p.ErrorCode != 0 {
				s += fmt.Sprintf("!%d", p.ErrorCode)
			}
			if t.TopicID == ([16]byte{}) {
				s += "(no id)"
			}
			s += " "
		}
	}
	return s
}

func (h *shareHarness) alterShareOffsets(group string, partition int32, start int64, topic string) *kmsg.AlterShareGroupOffsetsResponse {
	h.t.Helper()
	req := kmsg.NewPtrAlterShareGroupOffsetsRequest()
	req.GroupID = group
	req.Topics = []kmsg.AlterShareGroupOffsetsRequestTopic{{Topic: topic,
		Partitions: []kmsg.AlterShareGroupOffsetsRequestTopicPartition{{Partition: partition, StartOffset: start}}}}
	resp, err := req.RequestWith(h.ctx, h.cl)
	if err != nil {
		h.t.Fatal(err)
	}
	return resp
}

func alterLine(r *kmsg.AlterShareGroupOffsetsResponse) string {
	s := fmt.Sprintf("%d %q:", r.ErrorCode, deref(r.ErrorMessage))
	for _, t := range r.Topics {
		for _, p := range t.Partitions {
			s += fmt.Sprintf(" %s:%d=%d", t.Topic, p.Partition, p.ErrorCode)
		}
	}
	return s
}

func (h *shareHarness) deleteShareOffsets(group string, topics ...string) *kmsg.DeleteShareGroupOffsetsResponse {
	h.t.Helper()
	req := kmsg.NewPtrDeleteShareGroupOffsetsRequest()
	req.GroupID = group
	for _, name := range topics {
		req.Topics = append(req.Topics, kmsg.DeleteShareGroupOffsetsRequestTopic{Topic: name})
	}
	resp, err := req.RequestWith(h.ctx, h.cl)
	if err != nil {
		h.t.Fatal(err)
	}
	return resp
}

func deleteLine(r *kmsg.DeleteShareGroupOffsetsResponse) string {
	s := fmt.Sprintf("%d %q:", r.ErrorCode, deref(r.ErrorMessage))
	for _, t := range r.Topics {
		s += fmt.Sprintf(" %s=%d %q", t.Topic, t.ErrorCode, deref(t.ErrorMessage))
	}
	return s
}

func deref(s *string) string {
	if s == nil {
		return "<nil>"
	}
	return *s
}

// TestShareGroupOffsetsAdmin: DescribeShareGroupOffsets reports the
// share-partition start offset and lag, AlterShareGroupOffsets moves the
// start offset of an empty group (the next fetch acquires from there),
// DeleteShareGroupOffsets deletes the share state, and each answers
// Kafka 4.4's errors for a group with members, an unknown group, a group
// of another type and an unknown topic.
func TestShareGroupOffsetsAdmin(t *testing.T) {
	b := karsttest.Start(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	h := newShareHarness(t, ctx, b.Addr(), "share-admin", 1, 10)
	m := &shareMember{id: "member-admin"}
	h.beatMember(m, h.topic)
	if got := acquired(t, h.fetch("m1", 0, 5*time.Second)); !sameStrings(got, []string{"0-9:1"}) {
		t.Fatalf("first fetch acquired %v", got)
	}
	if codes := ackCodes(h.ack("m1", 1, ackBatch(0, 3, ackAccept))); fmt.Sprint(codes) != "[0]" {
		t.Fatalf("acknowledge: %v", codes)
	}
	// Start offset 4: end offset 10 - 4 - 0 complete past it = lag 6.
	one := map[string][]int32{h.topic: {0}}
	if got, want := offsetsLine(h.describeShareOffsets(h.group, one)), "share-admin:0=4/6 "; got != want {
		t.Fatalf("described %q, want %q", got, want)
	}
	if got, want := offsetsLine(h.describeShareOffsets(h.group, nil)), "share-admin:0=4/6 "; got != want {
		t.Fatalf("described all topics %q, want %q", got, want)
	}
	// An unknown topic or group is absent data, not an error.
	if got, want := offsetsLine(h.describeShareOffsets(h.group, map[string][]int32{"no-such-topic": {0}})), "no-such-topic:0=-1/-1(no id) "; got != want {
		t.Fatalf("described an unknown topic %q, want %q", got, want)
	}
	if got, want := offsetsLine(h.describeShareOffsets("no-such-group", one)), "share-admin:0=-1/-1 "; got != want {
		t.Fatalf("described an unknown group %q, want %q", got, want)
	}
	if got := offsetsLine(h.describeShareOffsets("no-such-group", nil)); got != "" {
		t.Fatalf("described all topics of an unknown group: %q", got)
	}

	// A group with members cannot change.
	if got, want := alterLine(h.alterShareOffsets(h.group, 0, 7, h.topic)), `68 "The group is not empty.":`; got != want {
		t.Fatalf("alter with a member: %s, want %s", got, want)
	}
	if got, want := deleteLine(h.deleteShareOffsets(h.group, h.topic)), `68 "The group is not empty.":`; got != want {
		t.Fatalf("delete with a member: %s, want %s", got, want)
	}

	m.epoch = -1
	h.beatMember(m)
	if got, want := alterLine(h.alterShareOffsets(h.group, 0, 7, h.topic)), `0 "<nil>": share-admin:0=0`; got != want {
		t.Fatalf("alter: %s, want %s", got, want)
	}
	if got, want := offsetsLine(h.describeShareOffsets(h.group, one)), "share-admin:0=7/3 "; got != want {
		t.Fatalf("described after alter %q, want %q", got, want)
	}
	// The records m1 held before are gone with the old state; the next
	// fetch acquires from the new start offset, delivered for the first time.
	if got := acquired(t, h.fetch("m2", 0, 5*time.Second)); !sameStrings(got, []string{"7-9:1"}) {
		t.Fatalf("fetch after alter acquired %v", got)
	}
	if got, want := alterLine(h.alterShareOffsets(h.group, 5, 0, h.topic)), `0 "<nil>": share-admin:5=3`; got != want {
		t.Fatalf("alter of a partition that does not exist: %s, want %s", got, want)
	}
	if got, want := alterLine(h.alterShareOffsets(h.group, 0, 0, "no-such-topic")), `0 "<nil>": no-such-topic:0=3`; got != want {
		t.Fatalf("alter of an unknown topic: %s, want %s", got, want)
	}

	// A consumer group's id is not a share group's.
	commit := kmsg.NewPtrOffsetCommitRequest()
	commit.Group, commit.Generation = "classic-admin", -1
	commit.Topics = []kmsg.OffsetCommitRequestTopic{{Topic: h.topic, TopicID: h.id, Partitions: []kmsg.OffsetCommitRequestTopicPartition{{Partition: 0, Offset: 1}}}}
	if cr, err := commit.RequestWith(ctx, h.cl); err != nil || cr.Topics[0].Partitions[0].ErrorCode != 0 {
		t.Fatalf("OffsetCommit: %+v %v", cr, err)
	}
	if got, want := alterLine(h.alterShareOffsets("classic-admin", 0, 0, h.topic)), `69 "Group classic-admin is not a share group.":`; got != want {
		t.Fatalf("alter of a consumer group: %s, want %s", got, want)
	}
	if got, want := deleteLine(h.deleteShareOffsets("classic-admin", h.topic)), `69 "Group classic-admin is not a share group.":`; got != want {
		t.Fatalf("delete of a consumer group: %s, want %s", got, want)
	}
	if got, want := deleteLine(h.deleteShareOffsets("no-such-group", h.topic)), `69 "Group no-such-group not found.":`; got != want {
		t.Fatalf("delete of an unknown group: %s, want %s", got, want)
	}

	// Alter creates a share group that does not exist yet.
	if got, want := alterLine(h.alterShareOffsets("fresh-admin", 0, 2, h.topic)), `0 "<nil>": share-admin:0=0`; got != want {
		t.Fatalf("alter of a new group: %s, want %s", got, want)
	}
	if got, want := offsetsLine(h.describeShareOffsets("fresh-admin", nil)), "share-admin:0=2/8 "; got != want {
		t.Fatalf("described the new group %q, want %q", got, want)
	}
	describe := kmsg.NewPtrShareGroupDescribeRequest()
	describe.GroupIDs = []string{"fresh-admin"}
	if dr, err := describe.RequestWith(ctx, h.cl); err != nil || dr.Groups[0].ErrorCode != 0 || dr.Groups[0].GroupState != "Empty" {
		t.Fatalf("ShareGroupDescribe of the new group: %+v %v", dr, err)
	}

	// Delete: the deleted topic first, then the refused one.
	if got, want := deleteLine(h.deleteShareOffsets(h.group, "no-such-topic", h.topic)),
		`0 "<nil>": share-admin=0 "<nil>" no-such-topic=3 "This server does not host this topic-partition."`; got != want {
		t.Fatalf("delete: %s, want %s", got, want)
	}
	if got, want := offsetsLine(h.describeShareOffsets(h.group, one)), "share-admin:0=-1/-1 "; got != want {
		t.Fatalf("described after delete %q, want %q", got, want)
	}
	if got := offsetsLine(h.describeShareOffsets(h.group, nil)); got != "" {
		t.Fatalf("described all topics after delete: %q", got)
	}

	// DeleteGroups of an empty share group deletes its share state.
	del := kmsg.NewPtrDeleteGroupsRequest()
	del.Groups = []string{"fresh-admin"}
	if dr, err := del.RequestWith(ctx, h.cl); err != nil || dr.Groups[0].ErrorCode != 0 {
		t.Fatalf("DeleteGroups: %+v %v", dr, err)
	}
	if got, want := offsetsLine(h.describeShareOffsets("fresh-admin", one)), "share-admin:0=-1/-1 "; got != want {
		t.Fatalf("described the deleted group %q, want %q", got, want)
	}
	if dr, err := describe.RequestWith(ctx, h.cl); err != nil || dr.Groups[0].ErrorCode != kerr.GroupIDNotFound.Code {
		t.Fatalf("ShareGroupDescribe of the deleted group: %+v %v", dr, err)
	}
}
