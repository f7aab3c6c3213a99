package handler

import (
	"testing"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// TestDeleteGroupsV3ErrorMessage: v3 carries a message when the
// coordinator failed the deletion, none for a group's own error, as
// Kafka's GroupCoordinatorService.
func TestDeleteGroupsV3ErrorMessage(t *testing.T) {
	noCoordinator := newAdminFixture(t, nil)
	req := kmsg.NewPtrDeleteGroupsRequest()
	req.Groups = []string{"g"}
	got := noCoordinator.call(req, 3).(*kmsg.DeleteGroupsResponse).Groups[0]
	if got.ErrorCode != kerr.CoordinatorNotAvailable.Code || got.ErrorMessage == nil || *got.ErrorMessage != kerr.CoordinatorNotAvailable.Description {
		t.Fatalf("without a coordinator: %+v, want COORDINATOR_NOT_AVAILABLE with its description", got)
	}
	if got := noCoordinator.call(req, 2).(*kmsg.DeleteGroupsResponse).Groups[0]; got.ErrorMessage != nil {
		t.Fatalf("v2 has no message field, answered %q", *got.ErrorMessage)
	}

	f := newGroupFixture(t)
	req.Groups = []string{"missing"}
	got = f.do(req, 3).(*kmsg.DeleteGroupsResponse).Groups[0]
	if got.ErrorCode != kerr.GroupIDNotFound.Code || got.ErrorMessage != nil {
		t.Fatalf("unknown group: %+v, want GROUP_ID_NOT_FOUND and no message", got)
	}
}
