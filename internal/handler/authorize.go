package handler

import (
	"context"
	"net"
	"sync"
	"sync/atomic"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/karst-broker/karst/internal/metadata"
	"github.com/karst-broker/karst/internal/security/authorizer"
)

// A gate is one API's authorization, Kafka's checks in KafkaApis (and the
// controller's in ControllerApis), run before the API's handler. It may
// answer the whole request itself (a refusal), or take out of the request
// the parts the principal may not touch and complete the handler's answer
// with their errors, or filter what the handler answers.
type gate func(g *gatekeeper) verdict

// verdict is what a gate decided.
type verdict struct {
	// refusal answers the request instead of its handler.
	refusal kmsg.Response
	// complete, when set, amends the handler's response: it adds the
	// refused parts and filters out what the principal may not see.
	complete func(kmsg.Response)
	// closeSilently: an acks=0 produce that had refused partitions; Kafka
	// closes the connection instead of answering nothing.
	closeSilently bool
	// closeNow closes the connection instead of running the handler (an
	// acks=0 produce refused as a whole).
	closeNow bool
}

// refuse is a verdict answering the whole request with resp.
func refuse(resp kmsg.Response) verdict { return verdict{refusal: resp} }

// gatekeeper answers one request's authorization questions.
type gatekeeper struct {
	b         *Broker
	r         *Request
	img       *metadata.Image
	authz     *authorizer.Authorizer
	principal string
	host      string
	api       string // the request's name, for the audit
}

// may reports whether the request's principal may perform op on the
// resource.
func (g *gatekeeper) may(op, resourceType int8, name string) bool {
	return g.decide(op, resourceType, name, true, true)
}

// probe is may for a check whose denial is no refusal, which Kafka asks
// with logIfDenied false (cluster CREATE before the per-topic CREATE): a
// denial is logged only at TRACE.
func (g *gatekeeper) probe(op, resourceType int8, name string) bool {
	return g.decide(op, resourceType, name, true, false)
}

// decide is the one place a gate's question is answered: the authorizer
// decides and the audit (authorize_audit.go) counts and logs the decision,
// at TRACE only where Kafka's logIfAllowed or logIfDenied is false for
// its result (authorized_operations asks with both false).
func (g *gatekeeper) decide(op, resourceType int8, name string, logIfAllowed, logIfDenied bool) bool {
	act := authorizer.Action{Operation: op, ResourceType: resourceType, ResourceName: name}
	d := g.authz.Decide(g.principal, g.host, act)
	g.audited(act, d, logIfAllowed, logIfDenied)
	return d.Allowed
}

// audited hands a decision to the audit, logged as Kafka's logIfAllowed
// and logIfDenied say.
func (g *gatekeeper) audited(act authorizer.Action, d authorizer.Decision, logIfAllowed, logIfDenied bool) {
	logged := logIfDenied
	if d.Allowed {
		logged = logIfAllowed
	}
	g.b.authorization.audit.decided(g.principal, g.host, g.api, act, d, !logged)
}

// byResourceType is Kafka's default Authorizer.authorizeByResourceType:
// whether the principal may perform op on some resource of the type. Of
// its questions only the first, op on the resource named "hardcode", goes
// through the authorizer's audit, asked with logIfAllowed true and
// logIfDenied false and a resourceRefCount of 0; its scan of the ACLs is
// not audited.
func (g *gatekeeper) byResourceType(op, resourceType int8) bool {
	act := authorizer.Action{Operation: op, ResourceType: resourceType, ResourceName: authorizer.HardcodedName}
	d := g.authz.Decide(g.principal, g.host, act)
	g.b.authorization.audit.decidedUnreferenced(g.principal, g.host, g.api, act, d)
	return d.Allowed || g.authz.AuthorizeByResourceType(g.principal, g.host, op, resourceType)
}

func (g *gatekeeper) cluster(op int8) bool {
	return g.may(op, metadata.ResourceCluster, metadata.ClusterResourceName)
}
func (g *gatekeeper) topic(op int8, name string) bool { return g.may(op, metadata.ResourceTopic, name) }
func (g *gatekeeper) group(op int8, name string) bool { return g.may(op, metadata.ResourceGroup, name) }
func (g *gatekeeper) txn(op int8, id string) bool {
	return g.may(op, metadata.ResourceTransactionalID, id)
}

// topicName names a topic given by name or, when name is empty, by id;
// ok is false for an id no topic has, or none (the handler answers it).
func (g *gatekeeper) topicName(name string, id [16]byte) (string, bool) {
	if name != "" {
		return name, true
	}
	if id == [16]byte{} {
		return "", false
	}
	t, ok := g.img.TopicByID(metadata.UUID(id))
	if !ok {
		return "", false
	}
	return t.Name, true
}

// Operations each resource type supports (AclEntry.supportedOperations),
// whose authorized subset the authorized_operations fields carry.
var (
	clusterOperations = []int8{metadata.OpCreate, metadata.OpAlter, metadata.OpDescribe, metadata.OpClusterAction,
		metadata.OpDescribeConfigs, metadata.OpAlterConfigs, metadata.OpIdempotentWrite}
	topicOperations = []int8{metadata.OpRead, metadata.OpWrite, metadata.OpCreate, metadata.OpDelete, metadata.OpAlter,
		metadata.OpDescribe, metadata.OpDescribeConfigs, metadata.OpAlterConfigs}
	groupOperations = []int8{metadata.OpRead, metadata.OpDelete, metadata.OpDescribe, metadata.OpDescribeConfigs,
		metadata.OpAlterConfigs}
)

// operations is the authorized_operations bitfield of one resource: a bit
// for each supported operation the principal may perform
// (AuthHelper.authorizedOperations).
func (g *gatekeeper) operations(resourceType int8, name string, supported []int8) int32 {
	var bits int32
	for _, op := range supported {
		if g.decide(op, resourceType, name, false, false) {
			bits |= 1 << op
		}
	}
	return bits
}

// split divides s into the elements ok keeps and the rest.
func split[T any](s []T, ok func(T) bool) (kept, refused []T) {
	for _, e := range s {
		if ok(e) {
			kept = append(kept, e)
		} else {
			refused = append(refused, e)
		}
	}
	return kept, refused
}

// clusterGate refuses a request whose principal may not perform op on the
// cluster, answered by refusal with CLUSTER_AUTHORIZATION_FAILED.
func clusterGate(op int8, refusal func(req kmsg.Request, code int16) kmsg.Response) gate {
	return func(g *gatekeeper) verdict {
		if g.cluster(op) {
			return verdict{}
		}
		return refuse(refusal(g.r.Body, kerr.ClusterAuthorizationFailed.Code))
	}
}

// errorOnly answers with the response's top-level error code, as Kafka's
// getErrorResponse for APIs with one.
func errorOnly(req kmsg.Request, code int16) kmsg.Response {
	return ErrorResponse(req.Key(), req.GetVersion(), code)
}

// gates are the APIs checked before their handler runs, by key. APIs not
// listed need no authorization (ApiVersions, SaslHandshake,
// SaslAuthenticate, the telemetry APIs) or check it in their handler
// (renewing and expiring a delegation token check its owner and renewers).
var gates = map[int16]gate{}

func init() {
	for key, g := range map[int16]gate{
		0: gateProduce, 1: gateFetch, 2: gateListOffsets, 3: gateMetadata,
		8: gateOffsetCommit, 9: gateOffsetFetch, 10: gateFindCoordinator,
		11: groupReadGate, 12: groupReadGate, 13: groupReadGate, 14: groupReadGate, 68: gateConsumerGroupHeartbeat,
		15: gateDescribeGroups, 16: gateListGroups,
		19: gateCreateTopics, 20: gateDeleteTopics, 21: gateDeleteRecords,
		22: gateInitProducerID, 23: gateOffsetForLeaderEpoch, 24: gateAddPartitionsToTxn,
		25: gateAddOffsetsToTxn, 26: gateEndTxn,
		27: clusterGate(metadata.OpClusterAction, writeTxnMarkersRefusal),
		28: gateTxnOffsetCommit,
		29: clusterGate(metadata.OpDescribe, errorOnly),
		30: clusterGate(metadata.OpAlter, createACLsRefusal),
		31: clusterGate(metadata.OpAlter, deleteACLsRefusal),
		32: gateDescribeConfigs, 33: gateAlterConfigs, 44: gateIncrementalAlterConfigs,
		34: clusterGate(metadata.OpAlter, alterReplicaLogDirsRefusal),
		35: clusterGate(metadata.OpDescribe, errorOnly),
		37: gateCreatePartitions, 42: gateDeleteGroups,
		43: clusterGate(metadata.OpAlter, electLeadersRefusal),
		45: clusterGate(metadata.OpAlter, alterPartitionAssignmentsRefusal),
		46: clusterGate(metadata.OpDescribe, errorOnly),
		47: gateOffsetDelete,
		48: clusterGate(metadata.OpDescribeConfigs, errorOnly),
		49: clusterGate(metadata.OpAlterConfigs, alterClientQuotasRefusal),
		50: clusterGate(metadata.OpDescribe, errorOnly),
		51: clusterGate(metadata.OpAlter, alterUserSCRAMRefusal),
		55: clusterGate(metadata.OpDescribe, errorOnly),
		57: clusterGate(metadata.OpAlter, errorOnly), // Kafka lists no per-feature results on a refusal
		60: gateDescribeCluster, 61: gateDescribeProducers,
		64: clusterGate(metadata.OpAlter, errorOnly),
		65: gateDescribeTransactions, 66: gateListTransactions,
		69: gateConsumerGroupDescribe, 74: clusterGate(metadata.OpDescribeConfigs, errorOnly),
		75: gateDescribeTopicPartitions,
		38: gateCreateDelegationToken, 41: gateDescribeDelegationToken,
	} {
		gates[key] = g
	}
}

// authorization keeps the authorizer of the newest metadata image, built
// again only when the image changes; requests read it without a lock.
type authorization struct {
	mu      sync.Mutex // held while building
	current atomic.Pointer[builtAuthorizer]

	audit *auditor // counts and logs the decisions (authorize_audit.go)
}

// builtAuthorizer is an authorizer and the image whose ACLs it holds.
type builtAuthorizer struct {
	image *metadata.Image
	authz *authorizer.Authorizer
}

func (b *Broker) currentAuthorizer() (*metadata.Image, *authorizer.Authorizer) {
	img := b.opts.Metadata.Image()
	if c := b.authorization.current.Load(); c != nil && c.image == img {
		return img, c.authz
	}
	b.authorization.mu.Lock()
	defer b.authorization.mu.Unlock()
	if c := b.authorization.current.Load(); c != nil && c.image == img {
		return img, c.authz
	}
	everything := metadata.ACLFilter{ResourceType: metadata.ResourceAny, PatternType: metadata.PatternAny,
		Operation: metadata.OpAny, PermissionType: metadata.PermissionAny}
	authz := authorizer.New(authorizer.Settings{
		SuperUsers:   authorizer.ParseSuperUsers(b.opts.Settings.String("super.users")),
		AllowIfNoACL: b.opts.Settings.Bool("allow.everyone.if.no.acl.found"),
	}, img.ACLs(everything))
	b.authorization.current.Store(&builtAuthorizer{image: img, authz: authz})
	return img, authz
}

// authorize runs api's gate for r when an authorizer is configured: the
// one place requests are authorized (README "Security: ACLs").
func (b *Broker) authorize(api *API, r *Request) verdict {
	check, listed := gates[api.Key]
	if !listed || !b.authorizerConfigured() {
		return verdict{}
	}
	img, authz := b.currentAuthorizer()
	v := check(&gatekeeper{b: b, r: r, img: img, authz: authz, principal: r.Conn.Principal().String(), host: remoteHost(r.Conn), api: requestName(api)})
	if v.refusal != nil {
		v.refusal.SetVersion(r.Body.GetVersion())
	}
	return v
}

// finish applies a verdict's completion to the handler's outcome.
func (v verdict) finish(out Outcome) Outcome {
	if v.closeSilently && out.NoResponse {
		out.CloseConnection = true
	}
	if v.complete == nil {
		return out
	}
	if out.Response != nil {
		v.complete(out.Response)
	}
	if later := out.Later; later != nil {
		out.Later = func(ctx context.Context) kmsg.Response {
			resp := later(ctx)
			if resp != nil {
				v.complete(resp)
			}
			return resp
		}
	}
	return out
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
