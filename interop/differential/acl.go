package main

import (
	"fmt"
	"os"
	"regexp"
	"sort"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// The ACL differential (-acl): both brokers run the StandardAuthorizer with User:ANONYMOUS (their
// PLAINTEXT listener) a super user, and a SASL_PLAINTEXT listener where the PLAIN user alice logs
// in. Every ACL case sends one API's request as alice in three phases, with the same ACLs given to
// both brokers before each phase, and compares the answers field by field:
//
//	none     alice has no ACL at all
//	allowed  alice has exactly the ACLs Kafka's "Operations and Resources on Protocols" table
//	         requires for the request (aclCase.allow)
//	denied   the same, plus a DENY on top (aclCase.deny, else DENY of the first allow)
const (
	aclUser      = "alice"
	aclSecret    = "alice-secret"
	aclPrincipal = "User:" + aclUser
)

var aclPhases = []string{"none", "allowed", "denied"}

// acl is one ACL binding of alice's, host "*".
type acl struct {
	resource kmsg.ACLResourceType
	name     string
	prefixed bool
	op       kmsg.ACLOperation
}

func topicACL(name string, op kmsg.ACLOperation) acl {
	return acl{resource: kmsg.ACLResourceTypeTopic, name: name, op: op}
}
func topicsACL(prefix string, op kmsg.ACLOperation) acl {
	return acl{resource: kmsg.ACLResourceTypeTopic, name: prefix, prefixed: true, op: op}
}
func groupACL(name string, op kmsg.ACLOperation) acl {
	return acl{resource: kmsg.ACLResourceTypeGroup, name: name, op: op}
}
func groupsACL(prefix string, op kmsg.ACLOperation) acl {
	return acl{resource: kmsg.ACLResourceTypeGroup, name: prefix, prefixed: true, op: op}
}
func txnACL(name string, op kmsg.ACLOperation) acl {
	return acl{resource: kmsg.ACLResourceTypeTransactionalId, name: name, op: op}
}
func txnsACL(prefix string, op kmsg.ACLOperation) acl {
	return acl{resource: kmsg.ACLResourceTypeTransactionalId, name: prefix, prefixed: true, op: op}
}
func clusterACL(op kmsg.ACLOperation) acl {
	return acl{resource: kmsg.ACLResourceTypeCluster, name: "kafka-cluster", op: op}
}
func userACL(name string, op kmsg.ACLOperation) acl {
	return acl{resource: kmsg.ACLResourceTypeUser, name: name, op: op}
}

// aclCase is one request of one API tried in the three phases at every version both brokers
// serve from minVersion on (maxVersion 0: no upper bound). run sends it through p.alice with
// compare; whatever it needs first it does as p.admin. Names that must be fresh in every phase and
// version (a topic to delete, a group to join) carry both, and the ACLs name them by prefix.
type aclCase struct {
	key                    kmsg.Key
	name                   string
	minVersion, maxVersion int16
	allow                  []acl
	deny                   []acl
	run                    func(p *aclPair, v int16, phase string)
}

// aclPair is one broker's two sessions: the super user's and alice's.
type aclPair struct {
	admin, alice *session
}

// fresh names something for one phase and version of a case.
func fresh(prefix, phase string, v int16) string { return fmt.Sprintf("%s%s-v%d", prefix, phase, v) }

func (c aclCase) denyACLs() []acl {
	if c.deny != nil {
		return c.deny
	}
	if len(c.allow) == 0 {
		// APIs Kafka does not authorize: a DENY of everything on the cluster must change nothing.
		return []acl{clusterACL(kmsg.ACLOperationAll)}
	}
	return c.allow[:1]
}

// phaseACLs returns the ALLOW and DENY bindings alice has in phase.
func (c aclCase) phaseACLs(phase string) (allow, deny []acl) {
	switch phase {
	case "allowed":
		return c.allow, nil
	case "denied":
		return c.allow, c.denyACLs()
	}
	return nil, nil
}

var aclCases []aclCase

func registerACL(cases ...aclCase) { aclCases = append(aclCases, cases...) }

// runACL runs every ACL case at every version both brokers serve (and kmsg encodes), and fails
// every API both serve that has no case.
func runACL(kafkaAdmin, kafkaSASL, karstAdmin, karstSASL string, filter *regexp.Regexp) (*result, error) {
	karstAPIs, err := servedAPIs(karstAdmin)
	if err != nil {
		return nil, fmt.Errorf("asking Karst for its API versions: %w", err)
	}
	kafkaAPIs, err := servedAPIs(kafkaAdmin)
	if err != nil {
		return nil, fmt.Errorf("asking Kafka for its API versions: %w", err)
	}
	common := map[int16]served{}
	kafkaRange := map[int16]served{}
	for _, a := range kafkaAPIs {
		kafkaRange[a.key] = a
	}
	for _, a := range karstAPIs {
		k, ok := kafkaRange[a.key]
		if !ok {
			continue
		}
		lo, hi := max(a.min, k.min), min(a.max, k.max, kmsg.RequestForKey(a.key).MaxVersion())
		if lo <= hi {
			common[a.key] = served{key: a.key, min: lo, max: hi}
		}
	}
	kafka := &aclPair{admin: newSession(kafkaAdmin), alice: newSASLSession(kafkaSASL)}
	karst := &aclPair{admin: newSession(karstAdmin), alice: newSASLSession(karstSASL)}
	if err := bothPairs(kafka, karst, func(p *aclPair) error { return aclSetup(p) }); err != nil {
		return nil, err
	}
	fKafka, fKarst := newFlattener(), newFlattener()
	r := &result{byScenario: map[string][]difference{}}
	covered := map[int16]bool{}
	for _, c := range aclCases {
		api, ok := common[c.key.Int16()]
		if !ok {
			continue
		}
		covered[api.key] = true
		name := kmsg.NameForKey(api.key)
		if !filter.MatchString(name) {
			continue
		}
		lo, hi := max(api.min, c.minVersion), api.max
		if c.maxVersion != 0 {
			hi = min(hi, c.maxVersion)
		}
		for _, phase := range aclPhases {
			allow, deny := c.phaseACLs(phase)
			if err := bothPairs(kafka, karst, func(p *aclPair) error { return setAliceACLs(p.admin, allow, deny) }); err != nil {
				return nil, fmt.Errorf("%s %s, phase %s: %w", name, c.name, phase, err)
			}
			for v := lo; v <= hi; v++ {
				began := time.Now()
				_ = bothPairs(kafka, karst, func(p *aclPair) error { c.run(p, v, phase); return nil })
				if took := time.Since(began); took > 2*time.Second {
					fmt.Fprintf(os.Stderr, "acl-differential: %s v%d %s/%s took %.1f s\n", name, v, c.name, phase, took.Seconds())
				}
				prefix := fmt.Sprintf("%s v%d %s/%s", name, v, c.name, phase)
				r.scenarios++
				r.order = append(r.order, prefix)
				r.byScenario[prefix] = compareSteps(prefix, kafka.alice.takeSteps(), karst.alice.takeSteps(), fKafka, fKarst)
			}
			r.apiVersion += int(hi - lo + 1)
		}
	}
	var keys []int16
	for k := range common {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i] < keys[j] })
	for _, k := range keys {
		if !covered[k] && filter.MatchString(kmsg.NameForKey(k)) {
			prefix := kmsg.NameForKey(k) + " v* no-case"
			r.scenarios++
			r.order = append(r.order, prefix)
			r.byScenario[prefix] = []difference{{key: prefix + "/- <case>", kafka: "served", karst: "no ACL case"}}
		}
	}
	return r, nil
}

func newSASLSession(addr string) *session {
	s := newSession(addr)
	s.conn.user, s.conn.secret = aclUser, aclSecret
	return s
}

func bothPairs(kafka, karst *aclPair, fn func(*aclPair) error) error {
	return both(kafka.admin, karst.admin, func(s *session) error {
		if s == kafka.admin {
			return fn(kafka)
		}
		return fn(karst)
	})
}

// aclSetup makes what the cases share, as the super user, and lets alice's session know the
// topic ids the admin's learned (alice may not describe them in every phase).
func aclSetup(p *aclPair) error {
	if err := setup(p.admin); err != nil {
		return err
	}
	p.admin.topicID(dataTopic)
	p.alice.topicIDs = p.admin.topicIDs
	joinedMember(p.admin, "g-describe") // a stable classic group for DescribeGroups and ListGroups
	return setAliceACLs(p.admin, nil, nil)
}

// setAliceACLs replaces every ACL of alice's with allow and deny, and waits until the broker's
// authorizer (DescribeAcls answers from it) holds exactly those.
func setAliceACLs(admin *session, allow, deny []acl) error {
	del := kmsg.NewPtrDeleteACLsRequest()
	del.SetVersion(3)
	f := kmsg.NewDeleteACLsRequestFilter()
	f.ResourceType, f.ResourcePatternType = kmsg.ACLResourceTypeAny, kmsg.ACLResourcePatternTypeAny
	f.Principal, f.Operation, f.PermissionType = kmsg.StringPtr(aclPrincipal), kmsg.ACLOperationAny, kmsg.ACLPermissionTypeAny
	del.Filters = append(del.Filters, f)
	if resp, ok := admin.send(del).(*kmsg.DeleteACLsResponse); !ok || resp.Results[0].ErrorCode != 0 {
		return fmt.Errorf("DeleteAcls of %s failed: %v", aclPrincipal, resp)
	}
	if len(allow)+len(deny) > 0 {
		create := kmsg.NewPtrCreateACLsRequest()
		create.SetVersion(3)
		add := func(a acl, perm kmsg.ACLPermissionType) {
			c := kmsg.NewCreateACLsRequestCreation()
			c.ResourceType, c.ResourceName = a.resource, a.name
			c.ResourcePatternType = kmsg.ACLResourcePatternTypeLiteral
			if a.prefixed {
				c.ResourcePatternType = kmsg.ACLResourcePatternTypePrefixed
			}
			c.Principal, c.Host, c.Operation, c.PermissionType = aclPrincipal, "*", a.op, perm
			create.Creations = append(create.Creations, c)
		}
		for _, a := range allow {
			add(a, kmsg.ACLPermissionTypeAllow)
		}
		for _, a := range deny {
			add(a, kmsg.ACLPermissionTypeDeny)
		}
		resp, ok := admin.send(create).(*kmsg.CreateACLsResponse)
		if !ok {
			return fmt.Errorf("CreateAcls got no answer")
		}
		for _, r := range resp.Results {
			if r.ErrorCode != 0 {
				return fmt.Errorf("CreateAcls: error %d %v", r.ErrorCode, r.ErrorMessage)
			}
		}
	}
	want := len(allow) + len(deny)
	deadline := time.Now().Add(30 * time.Second)
	for {
		if aliceACLCount(admin) == want {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the authorizer did not hold alice's %d ACLs within 30 s", want)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func aliceACLCount(admin *session) int {
	req := kmsg.NewPtrDescribeACLsRequest()
	req.SetVersion(3)
	req.ResourceType, req.ResourcePatternType = kmsg.ACLResourceTypeAny, kmsg.ACLResourcePatternTypeAny
	req.Principal, req.Operation, req.PermissionType = kmsg.StringPtr(aclPrincipal), kmsg.ACLOperationAny, kmsg.ACLPermissionTypeAny
	resp, ok := admin.send(req).(*kmsg.DescribeACLsResponse)
	if !ok || resp.ErrorCode != 0 {
		return -1
	}
	n := 0
	for _, r := range resp.Resources {
		n += len(r.ACLs)
	}
	return n
}
