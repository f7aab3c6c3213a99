package handler

// DescribeAcls (key 29), versions 0–3 (v2+ flexible; v0 has no pattern
// type: its filter is LITERAL, as before KIP-290).
//
// Lists the ACLs a filter selects, grouped by resource pattern, as
// Kafka's AclApis with StandardAuthorizer.acls: ANY codes and null
// strings match everything, MATCH also the wildcard and the prefixes
// covering a name. SECURITY_DISABLED without an authorizer; a filter with
// an UNKNOWN code is a request Kafka cannot parse, so the connection is
// closed.

import (
	"context"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/karst-broker/karst/internal/metadata"
)

func init() { register(29, 0, 3, (*Broker).handleDescribeAcls) }

func (b *Broker) handleDescribeAcls(_ context.Context, r *Request) Outcome {
	req := r.Body.(*kmsg.DescribeACLsRequest)
	if unknownACLElement(int8(req.ResourceType), int8(req.ResourcePatternType), int8(req.Operation), int8(req.PermissionType)) {
		return closeConnection()
	}
	resp := kmsg.NewPtrDescribeACLsResponse()
	if !b.authorizerConfigured() {
		resp.ErrorCode = kerr.SecurityDisabled.Code
		resp.ErrorMessage = kmsg.StringPtr(noAuthorizerDescribe)
		return Ready(resp)
	}
	filter := metadata.ACLFilter{ResourceType: int8(req.ResourceType), ResourceName: req.ResourceName, PatternType: int8(req.ResourcePatternType),
		Principal: req.Principal, Host: req.Host, Operation: int8(req.Operation), PermissionType: int8(req.PermissionType)}
	// ACLs come sorted by resource first, so each resource is one run.
	for _, acl := range b.opts.Metadata.Image().ACLs(filter) {
		n := len(resp.Resources)
		if n == 0 || resp.Resources[n-1].ResourceType != kmsg.ACLResourceType(acl.ResourceType) ||
			resp.Resources[n-1].ResourceName != acl.ResourceName || resp.Resources[n-1].ResourcePatternType != kmsg.ACLResourcePatternType(acl.PatternType) {
			res := kmsg.NewDescribeACLsResponseResource()
			res.ResourceType, res.ResourceName, res.ResourcePatternType = kmsg.ACLResourceType(acl.ResourceType), acl.ResourceName, kmsg.ACLResourcePatternType(acl.PatternType)
			resp.Resources = append(resp.Resources, res)
			n++
		}
		entry := kmsg.NewDescribeACLsResponseResourceACL()
		entry.Principal, entry.Host = acl.Principal, acl.Host
		entry.Operation, entry.PermissionType = kmsg.ACLOperation(acl.Operation), kmsg.ACLPermissionType(acl.PermissionType)
		resp.Resources[n-1].ACLs = append(resp.Resources[n-1].ACLs, entry)
	}
	return Ready(resp)
}
