package handler

import (
	"net"
	"sync"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/karst-broker/karst/internal/metadata"
	"github.com/karst-broker/karst/internal/security/authorizer"
)

// clusterCheck is an operation on the CLUSTER resource that a whole
// request needs, as Kafka's authorizeClusterOperation, and the answer
// Kafka gives when it is refused (its getErrorResponse).
type clusterCheck struct {
	operation int8
	refuse    func(req kmsg.Request, code int16) kmsg.Response
}

// clusterChecks are the APIs checked before their handler runs. APIs not
// listed are not yet checked (README "Security: ACLs").
var clusterChecks = map[int16]clusterCheck{
	29: {metadata.OpDescribe, func(req kmsg.Request, code int16) kmsg.Response {
		return ErrorResponse(req.Key(), req.GetVersion(), code)
	}},
	30: {metadata.OpAlter, func(req kmsg.Request, code int16) kmsg.Response {
		resp := kmsg.NewPtrCreateACLsResponse()
		for range req.(*kmsg.CreateACLsRequest).Creations {
			res := kmsg.NewCreateACLsResponseResult()
			res.ErrorCode = code
			resp.Results = append(resp.Results, res)
		}
		return resp
	}},
	31: {metadata.OpAlter, func(req kmsg.Request, code int16) kmsg.Response {
		resp := kmsg.NewPtrDeleteACLsResponse()
		for range req.(*kmsg.DeleteACLsRequest).Filters {
			res := kmsg.NewDeleteACLsResponseResult()
			res.ErrorCode = code
			resp.Results = append(resp.Results, res)
		}
		return resp
	}},
}

// authorization keeps the authorizer of the newest metadata image, built
// again only when the image changes.
type authorization struct {
	mu    sync.Mutex
	image *metadata.Image
	authz *authorizer.Authorizer
}

func (b *Broker) currentAuthorizer() *authorizer.Authorizer {
	img := b.opts.Metadata.Image()
	b.authorization.mu.Lock()
	defer b.authorization.mu.Unlock()
	if b.authorization.image != img {
		everything := metadata.ACLFilter{ResourceType: metadata.ResourceAny, PatternType: metadata.PatternAny,
			Operation: metadata.OpAny, PermissionType: metadata.PermissionAny}
		b.authorization.authz = authorizer.New(authorizer.Settings{
			SuperUsers:   authorizer.ParseSuperUsers(b.opts.Settings.String("super.users")),
			AllowIfNoACL: b.opts.Settings.Bool("allow.everyone.if.no.acl.found"),
		}, img.ACLs(everything))
		b.authorization.image = img
	}
	return b.authorization.authz
}

// refused answers a request its principal may not make, before its
// handler runs; ok is false when the request may go on.
func (b *Broker) refused(api *API, r *Request) (Outcome, bool) {
	check, listed := clusterChecks[api.Key]
	if !listed || !b.authorizerConfigured() {
		return Outcome{}, false
	}
	act := authorizer.Action{Operation: check.operation, ResourceType: metadata.ResourceCluster, ResourceName: metadata.ClusterResourceName}
	if b.currentAuthorizer().Authorize(r.Conn.Principal().String(), remoteHost(r.Conn), act) {
		return Outcome{}, false
	}
	resp := check.refuse(r.Body, kerr.ClusterAuthorizationFailed.Code)
	resp.SetVersion(r.Body.GetVersion())
	return Ready(resp), true
}

// remoteHost is a connection's peer address without its port, the host
// ACLs are matched against.
func remoteHost(c *Conn) string {
	if c == nil {
		return ""
	}
	host, _, err := net.SplitHostPort(c.RemoteAddr)
	if err != nil {
		return c.RemoteAddr
	}
	return host
}
