package group

import (
	"errors"
	"testing"

	"github.com/twmb/franz-go/pkg/kerr"
)

func commit(group, member string, gen int32, offsets ...int64) CommitRequest {
	req := CommitRequest{GroupID: group, MemberID: member, Generation: gen}
	for i, o := range offsets {
		req.Offsets = append(req.Offsets, OffsetToCommit{TopicPartition: TopicPartition{"t", int32(i)}, Offset: o, LeaderEpoch: -1})
	}
	return req
}

func TestSimpleCommitCreatesEmptyGroup(t *testing.T) {
	h := newHarness(t, testConfig())
	top, errs, _ := h.c.CommitOffsets(commit("simple", "", -1, 10, 20))
	if top != nil || errs[0] != nil || errs[1] != nil {
		t.Fatalf("%v %v", top, errs)
	}
	if h.state("simple") != Empty {
		t.Fatalf("state %v", h.state("simple"))
	}
	top, got := h.c.FetchOffsets("simple", []TopicPartition{{"t", 1}, {"t", 5}})
	if top != nil || got[0].Offset != 20 || got[1].Offset != -1 {
		t.Fatalf("%+v", got)
	}
	_, all := h.c.FetchOffsets("simple", nil)
	if len(all) != 2 || all[0].Offset != 10 {
		t.Fatalf("%+v", all)
	}
	_, none := h.c.FetchOffsets("unknown", []TopicPartition{{"t", 0}})
	if none[0].Offset != -1 {
		t.Fatalf("%+v", none)
	}
}

func TestCommitChecksGenerationAndMember(t *testing.T) {
	h := newHarness(t, testConfig())
	top, _, _ := h.c.CommitOffsets(commit("g", "m", 3, 1))
	wantErr(t, top, kerr.IllegalGeneration)
	req := commit("g", "m", 3, 1)
	req.UnknownGroupNotFound = true
	top, _, _ = h.c.CommitOffsets(req)
	wantErr(t, top, kerr.GroupIDNotFound)

	ids, gen := h.stableGroup("g", 2)
	top, _, _ = h.c.CommitOffsets(commit("g", ids[1], gen, 5))
	wantErr(t, top, nil)
	top, _, _ = h.c.CommitOffsets(commit("g", ids[1], gen+1, 5))
	wantErr(t, top, kerr.IllegalGeneration)
	top, _, _ = h.c.CommitOffsets(commit("g", "ghost", gen, 5))
	wantErr(t, top, kerr.UnknownMemberID)
	top, _, _ = h.c.CommitOffsets(commit("g", "", -1, 5))
	wantErr(t, top, kerr.UnknownMemberID) // simple commits only to empty groups

	big := make([]byte, 5000)
	req = commit("g", ids[0], gen, 1)
	md := string(big)
	req.Offsets[0].Metadata = &md
	_, errs, _ := h.c.CommitOffsets(req)
	wantErr(t, errs[0], kerr.OffsetMetadataTooLarge)
}

func TestCommitDuringCompletingRebalance(t *testing.T) {
	h := newHarness(t, testConfig())
	id, ch := h.joinNew("g")
	r := settle(h, ch)
	top, _, _ := h.c.CommitOffsets(commit("g", id, r.Generation, 1))
	wantErr(t, top, kerr.RebalanceInProgress)
}

func TestCommitStoreFailure(t *testing.T) {
	h := newHarness(t, testConfig())
	h.store.fail = errors.New("disk gone")
	_, errs, _ := h.c.CommitOffsets(commit("g", "", -1, 1))
	wantErr(t, errs[0], kerr.CoordinatorNotAvailable)
	_, got := h.c.FetchOffsets("g", []TopicPartition{{"t", 0}})
	if got[0].Offset != -1 {
		t.Fatal("a failed commit must not be visible")
	}
}

func TestDeleteGroupsAndOffsets(t *testing.T) {
	h := newHarness(t, testConfig())
	ids, gen := h.stableGroup("g", 1)
	h.c.CommitOffsets(commit("g", ids[0], gen, 1, 2))
	errs, _ := h.c.DeleteGroups([]string{"g", "nope"})
	wantErr(t, errs[0], kerr.NonEmptyGroup)
	wantErr(t, errs[1], kerr.GroupIDNotFound)

	// Offsets of a topic the members subscribe to stay; others go.
	h.c.CommitOffsets(CommitRequest{GroupID: "g", MemberID: ids[0], Generation: gen,
		Offsets: []OffsetToCommit{{TopicPartition: TopicPartition{"other", 0}, Offset: 9}}})
	top, perr, _ := h.c.DeleteOffsets("g", []TopicPartition{{"t", 0}, {"other", 0}})
	wantErr(t, top, nil)
	wantErr(t, perr[0], kerr.GroupSubscribedToTopic)
	wantErr(t, perr[1], nil)
	_, got := h.c.FetchOffsets("g", nil)
	if len(got) != 2 {
		t.Fatalf("%+v", got)
	}

	h.c.Leave("g", []MemberIdentity{{MemberID: ids[0]}})
	h.advance(0)
	if h.state("g") != Empty {
		t.Fatalf("state %v", h.state("g"))
	}
	errs, _ = h.c.DeleteGroups([]string{"g"})
	wantErr(t, errs[0], nil)
	if h.state("g") != Dead {
		t.Fatal("group still there")
	}
	_, got = h.c.FetchOffsets("g", nil)
	if len(got) != 0 {
		t.Fatalf("%+v", got)
	}
	top, _, _ = h.c.DeleteOffsets("g", []TopicPartition{{"t", 0}})
	wantErr(t, top, kerr.GroupIDNotFound)
}

func TestDeleteOffsetsNonConsumerGroup(t *testing.T) {
	h := newHarness(t, testConfig())
	req := joinReq("c", "")
	req.ProtocolType = "connect"
	req.RequireKnownMemberID = false
	ch := h.c.Join(req)
	settle(h, ch)
	top, _, _ := h.c.DeleteOffsets("c", []TopicPartition{{"t", 0}})
	wantErr(t, top, kerr.NonEmptyGroup)
}

func TestDescribeAndList(t *testing.T) {
	h := newHarness(t, testConfig())
	h.stableGroup("a", 2)
	h.c.CommitOffsets(commit("b", "", -1, 1))
	d := h.c.Describe([]string{"a", "zz"})
	if d[0].State != "Stable" || d[0].Protocol != "range" || len(d[0].Members) != 2 || len(d[0].Members[0].Assignment) == 0 {
		t.Fatalf("%+v", d[0])
	}
	if d[1].State != "Dead" || d[1].Err != kerr.GroupIDNotFound {
		t.Fatalf("%+v", d[1])
	}
	if l := h.c.List(nil, nil); len(l) != 2 || l[0].GroupID != "a" || l[1].State != "Empty" {
		t.Fatalf("%+v", l)
	}
	if l := h.c.List([]string{"stable"}, nil); len(l) != 1 || l[0].GroupID != "a" {
		t.Fatalf("%+v", l)
	}
	if l := h.c.List(nil, []string{"consumer"}); len(l) != 0 {
		t.Fatalf("%+v", l)
	}
}
