package handler

// CreateAcls (key 30), versions 0–3 (v2+ flexible; v0 creates LITERAL
// patterns only, as before KIP-290).
//
// Adds ACLs to __cluster_metadata as AccessControlEntryRecords, each
// checked as Kafka's AclApis and AclControlManager check them (one result
// per creation, INVALID_REQUEST with Kafka's message; a CIDR host before
// metadata.version 4.4-IV1 UNSUPPORTED_VERSION). An ACL that exists
// already succeeds without a new record. SECURITY_DISABLED without an
// authorizer; an UNKNOWN code closes the connection, as Kafka's parse does.

import (
	"context"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/karst-broker/karst/internal/metadata"
)

func init() { register(30, 0, 3, (*Broker).handleCreateAcls) }

func (b *Broker) handleCreateAcls(_ context.Context, r *Request) Outcome {
	req := r.Body.(*kmsg.CreateACLsRequest)
	acls := make([]metadata.ACL, 0, len(req.Creations))
	for _, c := range req.Creations {
		if unknownACLElement(int8(c.ResourceType), int8(c.ResourcePatternType), int8(c.Operation), int8(c.PermissionType)) {
			return closeConnection()
		}
		acls = append(acls, metadata.ACL{ResourceType: int8(c.ResourceType), ResourceName: c.ResourceName, PatternType: int8(c.ResourcePatternType),
			Principal: c.Principal, Host: c.Host, Operation: int8(c.Operation), PermissionType: int8(c.PermissionType)})
	}
	resp := kmsg.NewPtrCreateACLsResponse()
	results, err := b.createACLs(acls)
	for i := range acls {
		res := kmsg.NewCreateACLsResponseResult()
		switch {
		case err != nil:
			res.ErrorCode, res.ErrorMessage = metadata.ErrorCode(err), metadata.ErrorMessage(err)
		case results[i] != nil:
			res.ErrorCode, res.ErrorMessage = results[i].Code(), metadata.ErrorMessage(results[i])
		}
		resp.Results = append(resp.Results, res)
	}
	if err == nil {
		b.logger.Info("created ACLs", "count", len(acls), "principal", r.Conn.Principal().String())
	}
	return Ready(resp)
}

func (b *Broker) createACLs(acls []metadata.ACL) ([]*metadata.Error, error) {
	if !b.authorizerConfigured() {
		return nil, &metadata.Error{Err: kerr.SecurityDisabled, Message: noAuthorizer}
	}
	return b.opts.Metadata.CreateACLs(acls)
}
