package integration

import (
	"bytes"
	"strings"
	"sync"
	"testing"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
	"github.com/twmb/franz-go/pkg/sasl/plain"

	"github.com/karst-broker/karst/karsttest"
)

// syncBuffer collects the broker's log lines, written from its goroutines.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) linesWith(substr string) []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []string
	for _, l := range strings.Split(b.buf.String(), "\n") {
		if strings.Contains(l, substr) {
			out = append(out, l)
		}
	}
	return out
}

// TestACLAuditDeniedProduce: bob, with no ACLs, produces to a topic three
// times; each is refused, the audit logger (kafka.authorizer.logger)
// writes the denial once, and the metrics count all three; likewise for
// a refused idempotent InitProducerId.
func TestACLAuditDeniedProduce(t *testing.T) {
	var logs syncBuffer
	b := karsttest.StartWithLog(t, &logs,
		karsttest.WithConfig("listeners", "SASL_PLAINTEXT://127.0.0.1:0"),
		karsttest.WithConfig("sasl.enabled.mechanisms", "PLAIN"),
		karsttest.WithConfig("listener.name.sasl_plaintext.plain.sasl.jaas.config", aclUsersJAAS),
		karsttest.WithConfig("authorizer.class.name", standardAuthorizer),
		karsttest.WithConfig("super.users", "User:admin"),
		karsttest.WithConfig("karst.metrics.listener", "127.0.0.1:0"))
	w := &aclWorld{addr: b.ListenerAddr("SASL_PLAINTEXT")}
	w.admin = saslClient(t, w.addr, plain.Auth{User: "admin", Pass: "admin-secret"}.AsMechanism())
	w.bob = saslClient(t, w.addr, plain.Auth{User: "bob", Pass: "bob-secret"}.AsMechanism())
	w.adm = kadm.NewClient(w.admin)
	ctx := testContext(t)
	if _, err := w.adm.CreateTopic(ctx, 1, 1, nil, "audited"); err != nil {
		t.Fatal(err)
	}
	id := w.topicID(t, "audited")

	const attempts = 3
	for range attempts {
		produce := kmsg.NewPtrProduceRequest()
		produce.Acks, produce.TimeoutMillis = -1, 5000
		pt := kmsg.NewProduceRequestTopic()
		pt.Topic, pt.TopicID = "audited", id
		pp := kmsg.NewProduceRequestTopicPartition()
		pp.Records = recordBatch(t, []byte("refused"))
		pt.Partitions = append(pt.Partitions, pp)
		produce.Topics = append(produce.Topics, pt)
		resp := request[*kmsg.ProduceResponse](t, w.bob, produce)
		if len(resp.Topics) != 1 || len(resp.Topics[0].Partitions) != 1 || resp.Topics[0].Partitions[0].ErrorCode != kerr.TopicAuthorizationFailed.Code {
			t.Fatalf("bob's produce: %+v, want TOPIC_AUTHORIZATION_FAILED", resp.Topics)
		}
	}

	denial := "Principal = User:bob is Denied operation = WRITE from host = 127.0.0.1 on resource = Topic:LITERAL:audited for request = Produce"
	lines := logs.linesWith(denial)
	if len(lines) != 1 {
		t.Fatalf("%d audit lines for %d denied produces, want 1:\n%s", len(lines), attempts, strings.Join(lines, "\n"))
	}
	if !strings.Contains(lines[0], "level=INFO") || !strings.Contains(lines[0], "logger=kafka.authorizer.logger") {
		t.Errorf("audit line %q: want level=INFO logger=kafka.authorizer.logger", lines[0])
	}
	if n := len(logs.linesWith("is Allowed")); n != 0 {
		t.Errorf("%d allowed decisions logged at INFO, want none (they are DEBUG)", n)
	}

	// CreateTopics asks CLUSTER CREATE first as a probe (Kafka's
	// logIfDenied false), then CREATE on the topic: only the second is
	// written.
	created, err := kadm.NewClient(w.bob).CreateTopic(ctx, 1, 1, nil, "bobs")
	if err == nil && created.Err == nil {
		t.Fatalf("bob created a topic without CREATE")
	}
	if n := len(logs.linesWith("Principal = User:bob is Denied operation = CREATE from host = 127.0.0.1 on resource = Topic:LITERAL:bobs for request = CreateTopics")); n != 1 {
		t.Errorf("%d lines for bob's refused CreateTopics, want 1", n)
	}
	if n := len(logs.linesWith("on resource = Cluster:LITERAL:kafka-cluster for request = CreateTopics")); n != 0 {
		t.Errorf("the cluster CREATE probe was written at INFO")
	}

	// An idempotent InitProducerId needs IDEMPOTENT_WRITE on the cluster
	// or WRITE on some topic; refused twice, it is written once, as the
	// IDEMPOTENT_WRITE denial (Kafka asks both with logIfDenied false and
	// writes it only at TRACE), never as authorizeByResourceType's
	// question about the topic "hardcode".
	initProducerID := func() int16 {
		req := kmsg.NewPtrInitProducerIDRequest()
		req.TransactionTimeoutMillis, req.ProducerID, req.ProducerEpoch = -1, -1, -1
		return request[*kmsg.InitProducerIDResponse](t, w.bob, req).ErrorCode
	}
	for range 2 {
		if code := initProducerID(); code != kerr.ClusterAuthorizationFailed.Code {
			t.Fatalf("bob's InitProducerId: error %d, want CLUSTER_AUTHORIZATION_FAILED", code)
		}
	}
	idempotent := "Principal = User:bob is Denied operation = IDEMPOTENT_WRITE from host = 127.0.0.1 on resource = Cluster:LITERAL:kafka-cluster for request = InitProducerId with resourceRefCount = 1 based on rule DefaultDeny"
	if n := len(logs.linesWith(idempotent)); n != 1 {
		t.Errorf("%d lines for bob's two refused InitProducerIds, want 1 %q:\n%s", n, idempotent, strings.Join(logs.linesWith("InitProducerId"), "\n"))
	}
	if n := len(logs.linesWith("Topic:LITERAL:hardcode")); n != 0 {
		t.Errorf("authorizeByResourceType's question written at INFO")
	}
	// With WRITE on a topic the producer is served, and the denied
	// IDEMPOTENT_WRITE is no refusal: nothing more at INFO.
	w.grant(t, kadm.NewACLs().Allow("User:bob").AllowHosts().ResourcePatternType(kadm.ACLPatternLiteral).
		Topics("audited").Operations(kadm.OpWrite))
	if code := initProducerID(); code != 0 {
		t.Fatalf("bob's InitProducerId with WRITE on a topic: error %d", code)
	}
	if n := len(logs.linesWith("for request = InitProducerId")); n != 1 {
		t.Errorf("%d InitProducerId lines after one served with WRITE on a topic, want still 1", n)
	}

	body := scrapeMetrics(t, ctx, b.MetricsURL())
	for _, want := range []string{
		// the three produces and authorizeByResourceType's three questions
		`karst_authorizer_decisions_total{operation="WRITE",resource_type="TOPIC",result="DENIED"} 6`,
		`karst_authorizer_refusals_total{api="Produce",principal="User:bob"} 3`,
		`karst_authorizer_refusals_total{api="InitProducerId",principal="User:bob"} 2`,
	} {
		if !strings.Contains(body, want) {
			var got []string
			for _, l := range strings.Split(body, "\n") {
				if strings.HasPrefix(l, "karst_authorizer_") {
					got = append(got, l)
				}
			}
			t.Errorf("metrics: want %s, have:\n%s", want, strings.Join(got, "\n"))
		}
	}

	// The audit logger is a broker logger, which kafka-configs
	// --entity-type broker-loggers describes and sets.
	describe := kmsg.NewPtrDescribeConfigsRequest()
	dr := kmsg.NewDescribeConfigsRequestResource()
	dr.ResourceType, dr.ResourceName = kmsg.ConfigResourceTypeBrokerLogger, "1"
	describe.Resources = append(describe.Resources, dr)
	described, err := describe.RequestWith(ctx, w.admin)
	if err != nil || len(described.Resources) != 1 || described.Resources[0].ErrorCode != 0 {
		t.Fatalf("describe broker loggers: %v %+v", err, described)
	}
	level := ""
	for _, c := range described.Resources[0].Configs {
		if c.Name == "kafka.authorizer.logger" && c.Value != nil {
			level = *c.Value
		}
	}
	if level != "INFO" {
		t.Errorf("broker logger kafka.authorizer.logger = %q, want INFO", level)
	}
}
