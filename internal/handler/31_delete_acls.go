package handler

// DeleteAcls (key 31), versions 0–3 (v2+ flexible; v0 filters are
// LITERAL, as before KIP-290).
//
// Removes every ACL any filter selects with RemoveAccessControlEntryRecords
// and lists, per filter, the ACLs it matched, as Kafka's AclControlManager:
// an ACL two filters match is listed under both, and one request removes
// at most 10,000 ACLs. SECURITY_DISABLED without an authorizer; an UNKNOWN
// code closes the connection, as Kafka's parse does.

import (
	"context"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/karst-broker/karst/internal/metadata"
)

func init() { register(31, 0, 3, (*Broker).handleDeleteAcls) }

func (b *Broker) handleDeleteAcls(_ context.Context, r *Request) Outcome {
	req := r.Body.(*kmsg.DeleteACLsRequest)
	filters := make([]metadata.ACLFilter, 0, len(req.Filters))
	for _, f := range req.Filters {
		if unknownACLElement(int8(f.ResourceType), int8(f.ResourcePatternType), int8(f.Operation), int8(f.PermissionType)) {
			return closeConnection()
		}
		filters = append(filters, metadata.ACLFilter{ResourceType: int8(f.ResourceType), ResourceName: f.ResourceName, PatternType: int8(f.ResourcePatternType),
			Principal: f.Principal, Host: f.Host, Operation: int8(f.Operation), PermissionType: int8(f.PermissionType)})
	}
	resp := kmsg.NewPtrDeleteACLsResponse()
	deletions, err := b.deleteACLs(filters)
	for i := range filters {
		res := kmsg.NewDeleteACLsResponseResult()
		switch {
		case err != nil:
			res.ErrorCode, res.ErrorMessage = metadata.ErrorCode(err), metadata.ErrorMessage(err)
		case deletions[i].Err != nil:
			res.ErrorCode, res.ErrorMessage = deletions[i].Err.Code(), metadata.ErrorMessage(deletions[i].Err)
		}
		if err == nil {
			for _, acl := range deletions[i].Deleted {
				m := kmsg.NewDeleteACLsResponseResultMatchingACL()
				m.ResourceType, m.ResourceName, m.ResourcePatternType = kmsg.ACLResourceType(acl.ResourceType), acl.ResourceName, kmsg.ACLResourcePatternType(acl.PatternType)
				m.Principal, m.Host = acl.Principal, acl.Host
				m.Operation, m.PermissionType = kmsg.ACLOperation(acl.Operation), kmsg.ACLPermissionType(acl.PermissionType)
				res.MatchingACLs = append(res.MatchingACLs, m)
			}
		}
		resp.Results = append(resp.Results, res)
	}
	return Ready(resp)
}

func (b *Broker) deleteACLs(filters []metadata.ACLFilter) ([]metadata.ACLDeletion, error) {
	if !b.authorizerConfigured() {
		return nil, &metadata.Error{Err: kerr.SecurityDisabled, Message: noAuthorizer}
	}
	return b.opts.Metadata.DeleteACLs(filters)
}
