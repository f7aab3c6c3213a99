package integration

import (
	"errors"
	"hash/crc32"
	"testing"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
	"github.com/twmb/franz-go/pkg/sasl/plain"

	"github.com/karst-broker/karst/karsttest"
)

// aclUsersJAAS are the PLAIN users of the enforcement tests: admin (a
// super user), alice (given ACLs) and bob (given none).
const aclUsersJAAS = `org.apache.kafka.common.security.plain.PlainLoginModule required username="admin" password="admin-secret" user_admin="admin-secret" user_alice="alice-secret" user_bob="bob-secret";`

// aclWorld is a broker with the authorizer on, its three users' clients
// and the topics the admin made.
type aclWorld struct {
	admin, alice, bob *kgo.Client
	adm               *kadm.Client
	addr              string
}

func startACLWorld(t *testing.T, topics ...string) *aclWorld {
	t.Helper()
	return startACLWorldWith(t, nil, topics...)
}

// startACLWorldWith is startACLWorld with more broker settings.
func startACLWorldWith(t *testing.T, more []karsttest.Option, topics ...string) *aclWorld {
	t.Helper()
	b := karsttest.Start(t, append([]karsttest.Option{
		karsttest.WithConfig("listeners", "SASL_PLAINTEXT://127.0.0.1:0"),
		karsttest.WithConfig("sasl.enabled.mechanisms", "PLAIN"),
		karsttest.WithConfig("listener.name.sasl_plaintext.plain.sasl.jaas.config", aclUsersJAAS),
		karsttest.WithConfig("authorizer.class.name", standardAuthorizer),
		karsttest.WithConfig("super.users", "User:admin")}, more...)...)
	w := &aclWorld{addr: b.ListenerAddr("SASL_PLAINTEXT")}
	user := func(name string, opts ...kgo.Opt) *kgo.Client {
		return saslClient(t, w.addr, plain.Auth{User: name, Pass: name + "-secret"}.AsMechanism(), opts...)
	}
	w.admin, w.alice, w.bob = user("admin"), user("alice"), user("bob")
	w.adm = kadm.NewClient(w.admin)
	ctx := testContext(t)
	for _, topic := range topics {
		if _, err := w.adm.CreateTopic(ctx, 2, 1, nil, topic); err != nil {
			t.Fatalf("create %s: %v", topic, err)
		}
	}
	return w
}

// grant has the admin create ACLs.
func (w *aclWorld) grant(t *testing.T, b *kadm.ACLBuilder) {
	t.Helper()
	results, err := w.adm.CreateACLs(testContext(t), b)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range results {
		if r.Err != nil {
			t.Fatalf("creating %+v: %v", r, r.Err)
		}
	}
}

func allowAlice() *kadm.ACLBuilder {
	return kadm.NewACLs().Allow("User:alice").AllowHosts().ResourcePatternType(kadm.ACLPatternLiteral)
}

// request sends req straight to the one broker, past the client's own
// routing (coordinator lookups, its metadata handling), so the answer is
// the broker's as sent.
func request[R kmsg.Response](t *testing.T, cl *kgo.Client, req kmsg.Request) R {
	t.Helper()
	resp, err := cl.SeedBrokers()[0].Request(testContext(t), req)
	if err != nil {
		t.Fatalf("%T: %v", req, err)
	}
	return resp.(R)
}

func metadataFor(t *testing.T, cl *kgo.Client, topics ...string) map[string]kmsg.MetadataResponseTopic {
	t.Helper()
	req := kmsg.NewPtrMetadataRequest()
	req.IncludeTopicAuthorizedOperations = true
	for _, name := range topics {
		rt := kmsg.NewMetadataRequestTopic()
		rt.Topic = kmsg.StringPtr(name)
		req.Topics = append(req.Topics, rt)
	}
	req.AllowAutoTopicCreation = true
	resp := request[*kmsg.MetadataResponse](t, cl, req)
	out := map[string]kmsg.MetadataResponseTopic{}
	for _, rt := range resp.Topics {
		if rt.Topic != nil {
			out[*rt.Topic] = rt
		}
	}
	return out
}

// TestACLMetadataShowsOnlyDescribableTopics: an all-topics Metadata lists
// only the topics the principal may describe (WRITE and READ implying
// DESCRIBE, literal and prefixed); a named topic it may not describe is
// TOPIC_AUTHORIZATION_FAILED with no partitions, as is a missing topic it
// may describe but not create, which is then not created.
func TestACLMetadataShowsOnlyDescribableTopics(t *testing.T) {
	w := startACLWorld(t, "orders", "pay-eu", "pay-us", "secret")
	w.grant(t, allowAlice().Topics("orders").Operations(kadm.OpWrite))
	w.grant(t, allowAlice().Topics("pay-").Operations(kadm.OpRead).ResourcePatternType(kadm.ACLPatternPrefixed))
	w.grant(t, allowAlice().Topics("auto-").Operations(kadm.OpDescribe).ResourcePatternType(kadm.ACLPatternPrefixed))
	w.grant(t, allowAlice().Topics("made-").Operations(kadm.OpCreate).ResourcePatternType(kadm.ACLPatternPrefixed))
	w.grant(t, allowAlice().Topics("made-").Operations(kadm.OpDescribe).ResourcePatternType(kadm.ACLPatternPrefixed))

	all := metadataFor(t, w.alice)
	if len(all) != 3 || all["orders"].ErrorCode != 0 || all["pay-eu"].ErrorCode != 0 || all["pay-us"].ErrorCode != 0 {
		t.Fatalf("alice's all-topics metadata: %v", keys(all))
	}
	if got, want := all["orders"].AuthorizedOperations, int32(1<<4|1<<8); got != want {
		t.Errorf("orders authorized operations %b, want WRITE|DESCRIBE %b", got, want)
	}
	if got, want := all["pay-eu"].AuthorizedOperations, int32(1<<3|1<<8); got != want {
		t.Errorf("pay-eu authorized operations %b, want READ|DESCRIBE %b", got, want)
	}
	if admin := metadataFor(t, w.admin); len(admin) != 4 || admin["secret"].AuthorizedOperations != 1<<3|1<<4|1<<5|1<<6|1<<7|1<<8|1<<10|1<<11 {
		t.Fatalf("the super user's metadata: %v", admin)
	}

	named := metadataFor(t, w.alice, "secret", "orders", "ghost", "auto-x", "made-y")
	for _, name := range []string{"secret", "ghost", "auto-x"} {
		if rt := named[name]; rt.ErrorCode != kerr.TopicAuthorizationFailed.Code || len(rt.Partitions) != 0 || rt.TopicID != [16]byte{} {
			t.Errorf("%s: %+v, want TOPIC_AUTHORIZATION_FAILED without partitions or id", name, rt)
		}
	}
	if named["orders"].ErrorCode != 0 || len(named["orders"].Partitions) != 2 {
		t.Errorf("orders: %+v", named["orders"])
	}
	// Kafka 4.4 answers the request that auto-creates a topic
	// UNKNOWN_TOPIC_OR_PARTITION; the topic then exists.
	if named["made-y"].ErrorCode != kerr.UnknownTopicOrPartition.Code {
		t.Errorf("made-y, which alice may create: %+v", named["made-y"])
	}
	topics, err := w.adm.ListTopics(testContext(t))
	if err != nil {
		t.Fatal(err)
	}
	if topics.Has("auto-x") || topics.Has("ghost") || !topics.Has("made-y") {
		t.Fatalf("topics after alice's metadata: %v", topics.Names())
	}
}

func keys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// TestACLProduceAndFetch: produce needs WRITE and fetch READ on the topic,
// refused TOPIC_AUTHORIZATION_FAILED per partition while the allowed
// partitions of the same request are served; a DENY beats a prefixed
// ALLOW; a client library surfaces the error.
func TestACLProduceAndFetch(t *testing.T) {
	w := startACLWorld(t, "orders", "pay-eu", "pay-us")
	w.grant(t, allowAlice().Topics("orders").Operations(kadm.OpWrite))
	w.grant(t, allowAlice().Topics("pay-").Operations(kadm.OpRead).ResourcePatternType(kadm.ACLPatternPrefixed))
	w.grant(t, kadm.NewACLs().Deny("User:alice").DenyHosts().Topics("pay-us").Operations(kadm.OpRead).
		ResourcePatternType(kadm.ACLPatternLiteral))
	ctx := testContext(t)

	if err := w.alice.ProduceSync(ctx, &kgo.Record{Topic: "orders", Value: []byte("o1")}).FirstErr(); err != nil {
		t.Fatalf("alice producing to orders (WRITE): %v", err)
	}
	for _, topic := range []string{"pay-eu", "pay-us"} {
		if err := w.admin.ProduceSync(ctx, &kgo.Record{Topic: topic, Value: []byte(topic)}).FirstErr(); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.alice.ProduceSync(ctx, &kgo.Record{Topic: "pay-eu", Value: []byte("x")}).FirstErr(); !errors.Is(err, kerr.TopicAuthorizationFailed) {
		t.Fatalf("alice producing to pay-eu (READ only): %v, want TOPIC_AUTHORIZATION_FAILED", err)
	}

	// One raw produce naming both: orders is written, pay-eu refused.
	produce := kmsg.NewPtrProduceRequest()
	produce.Acks, produce.TimeoutMillis = -1, 5000
	batch := recordBatch(t, []byte("raw"))
	for _, topic := range []string{"orders", "pay-eu"} {
		pt := kmsg.NewProduceRequestTopic()
		pt.Topic, pt.TopicID = topic, w.topicID(t, topic)
		pp := kmsg.NewProduceRequestTopicPartition()
		pp.Partition, pp.Records = 0, batch
		pt.Partitions = append(pt.Partitions, pp)
		produce.Topics = append(produce.Topics, pt)
	}
	produced := request[*kmsg.ProduceResponse](t, w.alice, produce)
	codes := map[string]int16{}
	for _, rt := range produced.Topics {
		for _, p := range rt.Partitions {
			codes[w.nameOf(t, rt.Topic, rt.TopicID)] = p.ErrorCode
		}
	}
	if len(codes) != 2 || codes["orders"] != 0 || codes["pay-eu"] != kerr.TopicAuthorizationFailed.Code {
		t.Fatalf("mixed produce: %v", codes)
	}

	fetch := kmsg.NewPtrFetchRequest()
	fetch.MaxWaitMillis, fetch.MaxBytes, fetch.SessionEpoch = 100, 1<<20, -1
	for _, topic := range []string{"pay-eu", "pay-us", "orders"} {
		ft := kmsg.NewFetchRequestTopic()
		ft.Topic = topic
		ft.TopicID = w.topicID(t, topic)
		for p := range int32(2) {
			fp := kmsg.NewFetchRequestTopicPartition()
			fp.Partition, fp.PartitionMaxBytes = p, 1<<20
			ft.Partitions = append(ft.Partitions, fp)
		}
		fetch.Topics = append(fetch.Topics, ft)
	}
	fetched := request[*kmsg.FetchResponse](t, w.alice, fetch)
	type answer struct {
		code    int16
		records int
	}
	got := map[[16]byte]answer{}
	for _, rt := range fetched.Topics {
		for _, p := range rt.Partitions {
			a := got[rt.TopicID]
			got[rt.TopicID] = answer{max(a.code, p.ErrorCode), a.records + len(p.RecordBatches)}
		}
	}
	if a := got[w.topicID(t, "pay-eu")]; a.code != 0 || a.records == 0 {
		t.Errorf("pay-eu fetched: %+v, want records", a)
	}
	for _, topic := range []string{"pay-us", "orders"} {
		if a := got[w.topicID(t, topic)]; a.code != kerr.TopicAuthorizationFailed.Code || a.records != 0 {
			t.Errorf("%s fetched: %+v, want TOPIC_AUTHORIZATION_FAILED without records", topic, a)
		}
	}

	consumer := saslClient(t, w.addr, plain.Auth{User: "alice", Pass: "alice-secret"}.AsMechanism(),
		kgo.ConsumeTopics("pay-us"), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	var surfaced error
	for surfaced == nil {
		fetches := consumer.PollFetches(ctx)
		if ctx.Err() != nil {
			t.Fatal("no error surfaced for the denied topic")
		}
		fetches.EachError(func(_ string, _ int32, err error) { surfaced = err })
		if fetches.NumRecords() > 0 {
			t.Fatal("alice consumed pay-us under a DENY")
		}
	}
	if !errors.Is(surfaced, kerr.TopicAuthorizationFailed) {
		t.Fatalf("franz-go surfaced %v, want TOPIC_AUTHORIZATION_FAILED", surfaced)
	}
}

func (w *aclWorld) topicID(t *testing.T, topic string) [16]byte {
	t.Helper()
	md := metadataFor(t, w.admin, topic)
	return md[topic].TopicID
}

// nameOf names a topic a response gives by name (before topic ids) or id.
func (w *aclWorld) nameOf(t *testing.T, name string, id [16]byte) string {
	t.Helper()
	if name != "" {
		return name
	}
	for _, rt := range metadataFor(t, w.admin) {
		if rt.TopicID == id {
			return *rt.Topic
		}
	}
	return ""
}

// recordBatch is one uncompressed v2 batch of one record, as a client
// writes it.
func recordBatch(t *testing.T, value []byte) []byte {
	t.Helper()
	rec := kmsg.Record{Value: value}
	rec.Length = int32(len(rec.AppendTo(nil)) - 1)
	body := rec.AppendTo(nil)
	b := kmsg.RecordBatch{Magic: 2, LastOffsetDelta: 0, FirstTimestamp: 0, MaxTimestamp: 0, ProducerID: -1, ProducerEpoch: -1,
		FirstSequence: -1, NumRecords: 1, Records: body}
	raw := b.AppendTo(nil)
	b.Length = int32(len(raw) - 12)
	raw = b.AppendTo(nil)
	b.CRC = int32(crc32.Checksum(raw[21:], crc32.MakeTable(crc32.Castagnoli)))
	return b.AppendTo(nil)
}

// TestACLGroupsAndTransactions: group APIs need GROUP READ (OffsetCommit
// also topic READ), FindCoordinator and DescribeGroups DESCRIBE, ListGroups
// lists only describable groups; InitProducerId needs TRANSACTIONAL_ID
// WRITE, or for an idempotent producer IDEMPOTENT_WRITE or WRITE on some
// topic.
func TestACLGroupsAndTransactions(t *testing.T) {
	w := startACLWorld(t, "orders", "secret")
	w.grant(t, allowAlice().Topics("orders").Operations(kadm.OpRead))
	w.grant(t, allowAlice().Groups("g1").Operations(kadm.OpRead))
	w.grant(t, allowAlice().TransactionalIDs("tx-").Operations(kadm.OpWrite).ResourcePatternType(kadm.ACLPatternPrefixed))
	ctx := testContext(t)

	commit := func(cl *kgo.Client, group string, topics ...string) map[string]int16 {
		req := kmsg.NewPtrOffsetCommitRequest()
		req.Group, req.Generation = group, -1
		for _, topic := range topics {
			rt := kmsg.NewOffsetCommitRequestTopic()
			rt.Topic, rt.TopicID = topic, w.topicID(t, topic)
			p := kmsg.NewOffsetCommitRequestTopicPartition()
			p.Partition, p.Offset = 0, 1
			rt.Partitions = append(rt.Partitions, p)
			req.Topics = append(req.Topics, rt)
		}
		resp := request[*kmsg.OffsetCommitResponse](t, cl, req)
		out := map[string]int16{}
		for _, rt := range resp.Topics {
			out[w.nameOf(t, rt.Topic, rt.TopicID)] = rt.Partitions[0].ErrorCode
		}
		return out
	}
	if got := commit(w.alice, "g1", "orders", "secret"); got["orders"] != 0 || got["secret"] != kerr.TopicAuthorizationFailed.Code {
		t.Errorf("alice committing to g1: %v", got)
	}
	if got := commit(w.alice, "g2", "orders"); got["orders"] != kerr.GroupAuthorizationFailed.Code {
		t.Errorf("alice committing to g2: %v", got)
	}
	w.admin.ProduceSync(ctx, &kgo.Record{Topic: "orders", Value: []byte("v")})
	if got := commit(w.admin, "g3", "orders"); got["orders"] != 0 {
		t.Errorf("admin committing to g3: %v", got)
	}

	find := kmsg.NewPtrFindCoordinatorRequest()
	find.CoordinatorKeys = []string{"g1", "g2"}
	codes := map[string]int16{}
	for _, c := range request[*kmsg.FindCoordinatorResponse](t, w.alice, find).Coordinators {
		codes[c.Key] = c.ErrorCode
	}
	if codes["g1"] != 0 || codes["g2"] != kerr.GroupAuthorizationFailed.Code {
		t.Errorf("alice finding coordinators: %v", codes)
	}

	describe := kmsg.NewPtrDescribeGroupsRequest()
	describe.Groups, describe.IncludeAuthorizedOperations = []string{"g1", "g3"}, true
	for _, g := range request[*kmsg.DescribeGroupsResponse](t, w.alice, describe).Groups {
		switch g.Group {
		case "g1":
			if g.ErrorCode != 0 || g.AuthorizedOperations != 1<<3|1<<8 {
				t.Errorf("g1 described: code %d operations %b, want READ|DESCRIBE", g.ErrorCode, g.AuthorizedOperations)
			}
		case "g3":
			if g.ErrorCode != kerr.GroupAuthorizationFailed.Code {
				t.Errorf("g3 described: %d", g.ErrorCode)
			}
		}
	}
	listed, err := kadm.NewClient(w.alice).ListGroups(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, g1 := listed["g1"]; !g1 || len(listed) != 1 {
		t.Errorf("alice listing groups: %v", listed.Groups())
	}

	join := kmsg.NewPtrHeartbeatRequest()
	join.Group, join.MemberID, join.Generation = "g3", "m", 1
	if code := request[*kmsg.HeartbeatResponse](t, w.alice, join).ErrorCode; code != kerr.GroupAuthorizationFailed.Code {
		t.Errorf("alice heartbeating g3: %d", code)
	}

	initPID := func(cl *kgo.Client, txnID *string) int16 {
		req := kmsg.NewPtrInitProducerIDRequest()
		req.TransactionalID, req.TransactionTimeoutMillis = txnID, 60000
		return request[*kmsg.InitProducerIDResponse](t, cl, req).ErrorCode
	}
	if code := initPID(w.alice, kmsg.StringPtr("other")); code != kerr.TransactionalIDAuthorizationFailed.Code {
		t.Errorf("alice's transactional id other: %d", code)
	}
	if code := initPID(w.alice, kmsg.StringPtr("tx-1")); code != 0 {
		t.Errorf("alice's transactional id tx-1: %d", code)
	}
	if code := initPID(w.bob, nil); code != kerr.ClusterAuthorizationFailed.Code {
		t.Errorf("bob idempotent without IDEMPOTENT_WRITE or any topic WRITE: %d", code)
	}
	if code := initPID(w.alice, nil); code != kerr.ClusterAuthorizationFailed.Code {
		t.Errorf("alice idempotent with READ only: %d", code)
	}
	w.grant(t, allowAlice().Topics("orders").Operations(kadm.OpWrite))
	if code := initPID(w.alice, nil); code != 0 {
		t.Errorf("alice idempotent with WRITE on orders: %d", code)
	}
}

// TestACLAdminAPIs: topic and config admin needs CREATE, DELETE, ALTER and
// DESCRIBE_CONFIGS on the topic or cluster; DescribeCluster answers the
// principal's authorized operations.
func TestACLAdminAPIs(t *testing.T) {
	w := startACLWorld(t, "orders")
	w.grant(t, allowAlice().Topics("own-").Operations(kadm.OpAll).ResourcePatternType(kadm.ACLPatternPrefixed))
	ctx := testContext(t)
	alice := kadm.NewClient(w.alice)

	created, err := alice.CreateTopics(ctx, 1, 1, nil, "own-a", "other")
	if err != nil {
		t.Fatal(err)
	}
	if created["own-a"].Err != nil || !errors.Is(created["other"].Err, kerr.TopicAuthorizationFailed) {
		t.Fatalf("alice creating: own-a %v, other %v", created["own-a"].Err, created["other"].Err)
	}
	deleted, err := alice.DeleteTopics(ctx, "orders")
	if err != nil || !errors.Is(deleted["orders"].Err, kerr.TopicAuthorizationFailed) {
		t.Fatalf("alice deleting orders: %v %+v", err, deleted)
	}
	describe := kmsg.NewPtrDescribeConfigsRequest()
	for _, r := range []struct {
		typ  kmsg.ConfigResourceType
		name string
	}{{kmsg.ConfigResourceTypeTopic, "orders"}, {kmsg.ConfigResourceTypeTopic, "own-a"}, {kmsg.ConfigResourceTypeBroker, "1"}} {
		rr := kmsg.NewDescribeConfigsRequestResource()
		rr.ResourceType, rr.ResourceName = r.typ, r.name
		describe.Resources = append(describe.Resources, rr)
	}
	want := map[string]int16{"orders": kerr.TopicAuthorizationFailed.Code, "own-a": 0, "1": kerr.ClusterAuthorizationFailed.Code}
	described := request[*kmsg.DescribeConfigsResponse](t, w.alice, describe)
	if len(described.Resources) != 3 {
		t.Fatalf("described %d resources", len(described.Resources))
	}
	for _, r := range described.Resources {
		if r.ErrorCode != want[r.ResourceName] || (r.ErrorCode == 0) != (len(r.Configs) > 0) {
			t.Errorf("describing %s's configs: code %d, %d configs", r.ResourceName, r.ErrorCode, len(r.Configs))
		}
	}

	cluster := func(cl *kgo.Client) int32 {
		req := kmsg.NewPtrDescribeClusterRequest()
		req.IncludeClusterAuthorizedOperations = true
		resp := request[*kmsg.DescribeClusterResponse](t, cl, req)
		if resp.ErrorCode != 0 {
			t.Fatalf("describe cluster: %d", resp.ErrorCode)
		}
		return resp.ClusterAuthorizedOperations
	}
	if ops := cluster(w.alice); ops != 0 {
		t.Errorf("alice's cluster operations %b, want none", ops)
	}
	if ops := cluster(w.admin); ops != 1<<5|1<<7|1<<8|1<<9|1<<10|1<<11|1<<12 {
		t.Errorf("admin's cluster operations %b", ops)
	}
	w.grant(t, allowAlice().Clusters().Operations(kadm.OpAlter))
	if ops := cluster(w.alice); ops != 1<<7|1<<8 {
		t.Errorf("alice's cluster operations with ALTER %b, want ALTER|DESCRIBE", ops)
	}
}

// TestACLAccessGainedAndLostWhileRunning: a running franz-go producer and
// consumer group member are refused, then served once the ACLs are
// created, then refused again once they are deleted: the authorizer
// follows the metadata image without a restart.
func TestACLAccessGainedAndLostWhileRunning(t *testing.T) {
	w := startACLWorld(t, "live")
	ctx := testContext(t)
	producer := saslClient(t, w.addr, plain.Auth{User: "alice", Pass: "alice-secret"}.AsMechanism())
	produce := func() error {
		return producer.ProduceSync(ctx, &kgo.Record{Topic: "live", Value: []byte("v")}).FirstErr()
	}
	if err := produce(); !errors.Is(err, kerr.TopicAuthorizationFailed) && !errors.Is(err, kerr.ClusterAuthorizationFailed) {
		t.Fatalf("producing before any ACL: %v", err)
	}
	write := allowAlice().Topics("live").Operations(kadm.OpWrite)
	read := allowAlice().Topics("live").Groups("live-g").Operations(kadm.OpRead)
	w.grant(t, write)
	w.grant(t, read)
	producer.PurgeTopicsFromClient("live")
	if err := produce(); err != nil {
		t.Fatalf("producing with WRITE: %v", err)
	}
	consumer := saslClient(t, w.addr, plain.Auth{User: "alice", Pass: "alice-secret"}.AsMechanism(),
		kgo.ConsumeTopics("live"), kgo.ConsumerGroup("live-g"), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	for got := 0; got == 0; {
		fetches := consumer.PollFetches(ctx)
		if ctx.Err() != nil {
			t.Fatal("the consumer read nothing with READ on the topic and group")
		}
		got = fetches.NumRecords()
	}

	if _, err := w.adm.DeleteACLs(ctx, write); err != nil {
		t.Fatal(err)
	}
	if _, err := w.adm.DeleteACLs(ctx, read); err != nil {
		t.Fatal(err)
	}
	if err := produce(); !errors.Is(err, kerr.TopicAuthorizationFailed) {
		t.Fatalf("producing after the WRITE ACL is deleted: %v", err)
	}
	var surfaced error
	for surfaced == nil {
		fetches := consumer.PollFetches(ctx)
		if ctx.Err() != nil {
			t.Fatal("no error surfaced to the consumer after its ACLs were deleted")
		}
		fetches.EachError(func(_ string, _ int32, err error) { surfaced = err })
	}
	if !errors.Is(surfaced, kerr.TopicAuthorizationFailed) && !errors.Is(surfaced, kerr.GroupAuthorizationFailed) {
		t.Fatalf("the consumer surfaced %v", surfaced)
	}
	t.Logf("the consumer surfaced %v", surfaced)
}
