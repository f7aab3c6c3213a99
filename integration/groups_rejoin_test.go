package integration

import (
	"context"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// TestClassicMemberJoiningAgainWithItsIDEndsStable: a classic group's
// only member sending JoinGroup and SyncGroup again with its member id (a
// client re-running its join, as the ACL differential's cases did) starts
// a generation that its SyncGroup completes. Between the two,
// DescribeGroups shows the group CompletingRebalance with the assignment
// the member holds from the generation before, and after the SyncGroup
// Stable with its new one, as Kafka 4.4.0 answered the same requests
// (Karst described no assignment outside Stable).
func TestClassicMemberJoiningAgainWithItsIDEndsStable(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	b := startGroupBroker(t)
	cl, err := kgo.NewClient(kgo.SeedBrokers(b.Addr()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	const group = "rejoin"
	join := func(member string) *kmsg.JoinGroupResponse {
		t.Helper()
		req := kmsg.NewPtrJoinGroupRequest()
		req.Group, req.MemberID, req.ProtocolType = group, member, "consumer"
		req.SessionTimeoutMillis, req.RebalanceTimeoutMillis = 30000, 30000
		p := kmsg.NewJoinGroupRequestProtocol()
		p.Name, p.Metadata = "range", []byte{0, 1, 0, 0, 0, 0}
		req.Protocols = append(req.Protocols, p)
		resp, err := req.RequestWith(ctx, cl)
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
	r := join("")
	if r.ErrorCode != 79 { // MEMBER_ID_REQUIRED
		t.Fatalf("first JoinGroup: error %d, want MEMBER_ID_REQUIRED", r.ErrorCode)
	}
	member := r.MemberID
	describe := func() kmsg.DescribeGroupsResponseGroup {
		t.Helper()
		d := kmsg.NewPtrDescribeGroupsRequest()
		d.Groups = []string{group}
		dr, err := d.RequestWith(ctx, cl)
		if err != nil {
			t.Fatal(err)
		}
		return dr.Groups[0]
	}
	var held []byte
	for round := range 3 {
		j := join(member)
		if j.ErrorCode != 0 || j.MemberID != member || j.LeaderID != member {
			t.Fatalf("round %d: JoinGroup %+v", round, j)
		}
		if g := describe(); g.State != "CompletingRebalance" || len(g.Members) != 1 ||
			string(g.Members[0].MemberAssignment) != string(held) || len(g.Members[0].ProtocolMetadata) != 0 {
			t.Fatalf("round %d (generation %d) before SyncGroup: DescribeGroups %+v, want CompletingRebalance with the assignment held (%v) and no metadata",
				round, j.Generation, g, held)
		}
		assignment := []byte{0, 1, 0, 0, 0, 0, 0, 0, 0, byte(round)}
		s := kmsg.NewPtrSyncGroupRequest()
		s.Group, s.MemberID, s.Generation = group, member, j.Generation
		s.ProtocolType, s.Protocol = kmsg.StringPtr("consumer"), kmsg.StringPtr("range")
		a := kmsg.NewSyncGroupRequestGroupAssignment()
		a.MemberID, a.MemberAssignment = member, assignment
		s.GroupAssignment = append(s.GroupAssignment, a)
		sr, err := s.RequestWith(ctx, cl)
		if err != nil || sr.ErrorCode != 0 || string(sr.MemberAssignment) != string(assignment) {
			t.Fatalf("round %d: SyncGroup %+v, %v", round, sr, err)
		}
		held = assignment
		if g := describe(); g.State != "Stable" || len(g.Members) != 1 || g.Members[0].MemberID != member ||
			string(g.Members[0].MemberAssignment) != string(assignment) {
			t.Fatalf("round %d (generation %d): DescribeGroups %+v, want Stable with the member's assignment", round, j.Generation, g)
		}
	}
}
