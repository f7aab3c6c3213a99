package integration

import (
	"bufio"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
	"github.com/twmb/franz-go/pkg/sasl"
	"github.com/twmb/franz-go/pkg/sasl/plain"
	"github.com/twmb/franz-go/pkg/sasl/scram"

	"github.com/karst-broker/karst/karsttest"
)

const saslAdminJAAS = `org.apache.kafka.common.security.plain.PlainLoginModule required username="admin" password="admin-secret" user_admin="admin-secret" user_alice="alice-secret";`

// startSASLBroker runs a broker with one SASL_PLAINTEXT listener enabling
// PLAIN and both SCRAM mechanisms, plus extra settings.
func startSASLBroker(t *testing.T, extra ...karsttest.Option) *karsttest.Broker {
	t.Helper()
	opts := []karsttest.Option{
		karsttest.WithConfig("listeners", "SASL_PLAINTEXT://127.0.0.1:0"),
		karsttest.WithConfig("sasl.enabled.mechanisms", "PLAIN,SCRAM-SHA-256,SCRAM-SHA-512"),
		karsttest.WithConfig("listener.name.sasl_plaintext.plain.sasl.jaas.config", saslAdminJAAS),
	}
	return karsttest.Start(t, append(opts, extra...)...)
}

func saslClient(t *testing.T, addr string, m sasl.Mechanism, opts ...kgo.Opt) *kgo.Client {
	t.Helper()
	cl, err := kgo.NewClient(append([]kgo.Opt{kgo.SeedBrokers(addr), kgo.SASL(m), kgo.RetryTimeout(5 * time.Second)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	return cl
}

func produceAndReadBack(t *testing.T, cl *kgo.Client, topic string) {
	t.Helper()
	ctx := testContext(t)
	if _, err := kadm.NewClient(cl).CreateTopic(ctx, 1, 1, nil, topic); err != nil {
		t.Fatalf("create %s: %v", topic, err)
	}
	if err := cl.ProduceSync(ctx, &kgo.Record{Topic: topic, Value: []byte("v-" + topic)}).FirstErr(); err != nil {
		t.Fatalf("produce: %v", err)
	}
	cl.AddConsumeTopics(topic)
	for {
		fs := cl.PollFetches(ctx)
		if err := ctx.Err(); err != nil {
			t.Fatalf("no record read back from %s: %v", topic, err)
		}
		var got []string
		fs.EachRecord(func(r *kgo.Record) { got = append(got, string(r.Value)) })
		if len(got) > 0 {
			if got[0] != "v-"+topic {
				t.Fatalf("read %q", got)
			}
			return
		}
	}
}

func TestSASLPlainFranzGoProducesAndConsumes(t *testing.T) {
	b := startSASLBroker(t)
	cl := saslClient(t, b.ListenerAddr("SASL_PLAINTEXT"), plain.Auth{User: "alice", Pass: "alice-secret"}.AsMechanism())
	produceAndReadBack(t, cl, "plain-topic")
}

// wantSASLFailure pings with a client that must be refused and checks
// Kafka's error and message.
func wantSASLFailure(t *testing.T, addr string, m sasl.Mechanism, code *kerr.Error, message string, opts ...kgo.Opt) {
	t.Helper()
	cl := saslClient(t, addr, m, append([]kgo.Opt{kgo.RequestRetries(0)}, opts...)...)
	err := cl.Ping(testContext(t))
	if !errors.Is(err, code) || !strings.Contains(err.Error(), message) {
		t.Fatalf("ping: %v, want %s with %q", err, code.Message, message)
	}
}

func TestSASLRefusedClientsNeverReachAHandler(t *testing.T) {
	b := startSASLBroker(t, karsttest.WithAutoCreateTopics(true))
	addr := b.ListenerAddr("SASL_PLAINTEXT")
	wantSASLFailure(t, addr, plain.Auth{User: "alice", Pass: "wrong"}.AsMechanism(), kerr.SaslAuthenticationFailed, "Authentication failed: Invalid username or password")
	wantSASLFailure(t, addr, scram.Auth{User: "nobody", Pass: "x"}.AsSha256Mechanism(), kerr.SaslAuthenticationFailed,
		"Authentication failed during authentication due to invalid credentials with SASL mechanism SCRAM-SHA-256")

	// A raw connection: requests before authentication, and pipelined
	// after a failed one, are not handled.
	before := b.RequestsHandled()
	c := dialKafka(t, addr)
	metadata := kmsg.NewPtrMetadataRequest()
	c.send(t, metadata)
	c.wantClosed(t)
	if got := b.RequestsHandled(); got != before {
		t.Fatalf("a Metadata request before authentication reached a handler (%d requests handled, %d before)", got, before)
	}
	c = dialKafka(t, addr)
	handshake := handshakeRequest("PLAIN")
	hs := c.roundTrip(t, handshake).(*kmsg.SASLHandshakeResponse)
	if hs.ErrorCode != 0 || strings.Join(hs.SupportedMechanisms, ",") != "PLAIN,SCRAM-SHA-256,SCRAM-SHA-512" {
		t.Fatalf("handshake: %+v", hs)
	}
	auth := authenticateRequest(2, "\x00alice\x00nope")
	c.send(t, auth)
	topic := kmsg.NewMetadataRequestTopic()
	name := "created-by-a-refused-client"
	topic.Topic = &name
	metadata.Topics = append(metadata.Topics, topic)
	metadata.AllowAutoTopicCreation = true
	c.send(t, metadata) // pipelined behind the failing token
	resp := c.receive(t, auth).(*kmsg.SASLAuthenticateResponse)
	if resp.ErrorCode != kerr.SaslAuthenticationFailed.Code || resp.ErrorMessage == nil || *resp.ErrorMessage != "Authentication failed: Invalid username or password" {
		t.Fatalf("authenticate: %+v", resp)
	}
	c.wantClosed(t)
	if got := b.RequestsHandled(); got != before {
		t.Fatalf("%d requests reached a handler from refused connections", got-before)
	}

	admin := saslClient(t, addr, plain.Auth{User: "admin", Pass: "admin-secret"}.AsMechanism())
	topics, err := kadm.NewClient(admin).ListTopics(testContext(t))
	if err != nil {
		t.Fatal(err)
	}
	if topics.Has(name) {
		t.Fatal("a refused client's Metadata request created a topic")
	}
}

func TestSASLFramesBeforeAuthenticationAreBoundedBySaslServerMaxReceiveSize(t *testing.T) {
	// A user whose valid PLAIN token is larger than the bound.
	long := strings.Repeat("x", 2048)
	b := startSASLBroker(t, karsttest.WithConfig("sasl.server.max.receive.size", "1024"),
		karsttest.WithConfig("listener.name.sasl_plaintext.plain.sasl.jaas.config",
			`org.apache.kafka.common.security.plain.PlainLoginModule required user_alice="alice-secret" user_long="`+long+`";`))
	c := dialKafka(t, b.ListenerAddr("SASL_PLAINTEXT"))
	c.roundTrip(t, handshakeRequest("PLAIN"))
	c.send(t, authenticateRequest(2, "\x00long\x00"+long))
	c.wantClosed(t)

	// Once authenticated, frames are bounded by socket.request.max.bytes.
	cl := saslClient(t, b.ListenerAddr("SASL_PLAINTEXT"), plain.Auth{User: "alice", Pass: "alice-secret"}.AsMechanism())
	ctx := testContext(t)
	if _, err := kadm.NewClient(cl).CreateTopic(ctx, 1, 1, nil, "big"); err != nil {
		t.Fatal(err)
	}
	if err := cl.ProduceSync(ctx, &kgo.Record{Topic: "big", Value: make([]byte, 4096)}).FirstErr(); err != nil {
		t.Fatalf("a 4 KiB record after authentication: %v", err)
	}
}

func TestSASLUnknownMechanismIsRefusedWithTheEnabledOnes(t *testing.T) {
	b := startSASLBroker(t)
	c := dialKafka(t, b.ListenerAddr("SASL_PLAINTEXT"))
	handshake := handshakeRequest("GSSAPI")
	hs := c.roundTrip(t, handshake).(*kmsg.SASLHandshakeResponse)
	if hs.ErrorCode != kerr.UnsupportedSaslMechanism.Code || strings.Join(hs.SupportedMechanisms, ",") != "PLAIN,SCRAM-SHA-256,SCRAM-SHA-512" {
		t.Fatalf("handshake: %+v", hs)
	}
	c.wantClosed(t)
}

func TestSASLScramCredentialsThroughTheAdminAPI(t *testing.T) {
	b := startSASLBroker(t)
	addr := b.ListenerAddr("SASL_PLAINTEXT")
	adminClient := saslClient(t, addr, plain.Auth{User: "admin", Pass: "admin-secret"}.AsMechanism())
	admin := kadm.NewClient(adminClient)
	ctx := testContext(t)
	altered, err := admin.AlterUserSCRAMs(ctx, nil, []kadm.UpsertSCRAM{
		{User: "bob", Mechanism: kadm.ScramSha256, Iterations: 4096, Password: "bob-256"},
		{User: "carol", Mechanism: kadm.ScramSha512, Iterations: 8192, Password: "carol-512"},
	})
	if err != nil {
		t.Fatal(err)
	}
	if altered["bob"].Err != nil || altered["carol"].Err != nil {
		t.Fatalf("altered: %+v", altered)
	}
	// kadm checks iterations itself; the broker refuses them too.
	weak := kmsg.NewPtrAlterUserSCRAMCredentialsRequest()
	up := kmsg.NewAlterUserSCRAMCredentialsRequestUpsertion()
	up.Name, up.Mechanism, up.Iterations, up.Salt, up.SaltedPassword = "weak", 1, 100, []byte("salt"), make([]byte, 32)
	weak.Upsertions = append(weak.Upsertions, up)
	weakResp, err := weak.RequestWith(ctx, adminClient)
	if err != nil {
		t.Fatal(err)
	}
	if r := weakResp.Results; len(r) != 1 || r[0].ErrorCode != kerr.UnacceptableCredential.Code || r[0].ErrorMessage == nil || *r[0].ErrorMessage != "Too few iterations" {
		t.Fatalf("100 iterations: %+v", r)
	}
	described, err := admin.DescribeUserSCRAMs(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(described) != 2 || described["carol"].CredInfos[0].Iterations != 8192 || described["bob"].CredInfos[0].Mechanism != kadm.ScramSha256 {
		t.Fatalf("described: %+v", described)
	}
	produceAndReadBack(t, saslClient(t, addr, scram.Auth{User: "bob", Pass: "bob-256"}.AsSha256Mechanism()), "scram-256")
	produceAndReadBack(t, saslClient(t, addr, scram.Auth{User: "carol", Pass: "carol-512"}.AsSha512Mechanism()), "scram-512")
	wantSASLFailure(t, addr, scram.Auth{User: "carol", Pass: "carol-512"}.AsSha256Mechanism(), kerr.SaslAuthenticationFailed, "invalid credentials with SASL mechanism SCRAM-SHA-256")

	if _, err := admin.AlterUserSCRAMs(ctx, []kadm.DeleteSCRAM{{User: "bob", Mechanism: kadm.ScramSha256}}, nil); err != nil {
		t.Fatal(err)
	}
	wantSASLFailure(t, addr, scram.Auth{User: "bob", Pass: "bob-256"}.AsSha256Mechanism(), kerr.SaslAuthenticationFailed, "invalid credentials")
}

func TestSASLFailedLoginIsDelayedWithoutSlowingOthers(t *testing.T) {
	const delay = 3 * time.Second
	b := startSASLBroker(t, karsttest.WithConfig("connection.failed.authentication.delay.ms", "3000"))
	addr := b.ListenerAddr("SASL_PLAINTEXT")
	c := dialKafka(t, addr)
	handshake := handshakeRequest("PLAIN")
	c.roundTrip(t, handshake)
	auth := authenticateRequest(2, "\x00alice\x00nope")
	sent := time.Now()
	c.send(t, auth)
	answered := make(chan time.Time, 1)
	go func() {
		c.tryReceive(auth) // checked by wantClosed below
		answered <- time.Now()
	}()

	// Another client authenticates and is served while the failed one
	// waits for its answer.
	produceAndReadBack(t, saslClient(t, addr, plain.Auth{User: "alice", Pass: "alice-secret"}.AsMechanism()), "not-slowed")
	select {
	case at := <-answered:
		t.Fatalf("the failed login was answered after %v, before another client finished", at.Sub(sent))
	default:
	}
	at := <-answered
	if waited := at.Sub(sent); waited < delay {
		t.Fatalf("failed login answered after %v, before connection.failed.authentication.delay.ms", waited)
	}
	c.wantClosed(t)
}

func TestSASLReauthentication(t *testing.T) {
	b := startSASLBroker(t, karsttest.WithConfig("listener.name.sasl_plaintext.connections.max.reauth.ms", "2000"))
	addr := b.ListenerAddr("SASL_PLAINTEXT")

	// The session lifetime is announced in SaslAuthenticate v1+.
	c := dialKafka(t, addr)
	handshake := handshakeRequest("PLAIN")
	c.roundTrip(t, handshake)
	auth := authenticateRequest(1, "\x00alice\x00alice-secret")
	resp := c.roundTrip(t, auth).(*kmsg.SASLAuthenticateResponse)
	if resp.ErrorCode != 0 || resp.SessionLifetimeMillis != 2000 {
		t.Fatalf("authenticate: %+v", resp)
	}
	// A connection that does not re-authenticate is closed at its next
	// request after the session ends.
	expiry := time.Now().Add(2 * time.Second)
	for {
		meta := kmsg.NewPtrMetadataRequest()
		c.send(t, meta)
		if _, err := c.tryReceive(meta); err != nil {
			if time.Now().Before(expiry) {
				t.Fatal("connection closed before its session ended")
			}
			break
		}
		time.Sleep(100 * time.Millisecond) // pace the probe requests
	}

	// A re-authentication may not change the principal. Within a second
	// of the last authentication a handshake is not one and is refused by
	// the handler, as Kafka refuses it.
	c = dialKafka(t, addr)
	c.roundTrip(t, handshakeRequest("PLAIN"))
	c.roundTrip(t, authenticateRequest(1, "\x00alice\x00alice-secret"))
	for {
		hs := c.roundTrip(t, handshakeRequest("PLAIN")).(*kmsg.SASLHandshakeResponse)
		if hs.ErrorCode == 0 {
			break
		}
		if hs.ErrorCode != kerr.IllegalSaslState.Code {
			t.Fatalf("handshake on an authenticated connection: %+v", hs)
		}
		time.Sleep(100 * time.Millisecond) // until a second has passed
	}
	failed, reFailed := b.AuthenticationsFailed(), b.ReauthenticationsFailed()
	changed := c.roundTrip(t, authenticateRequest(1, "\x00admin\x00admin-secret")).(*kmsg.SASLAuthenticateResponse)
	if changed.ErrorCode != kerr.SaslAuthenticationFailed.Code || changed.ErrorMessage == nil ||
		*changed.ErrorMessage != "Cannot change principals during re-authentication from User.alice: User.admin" {
		t.Fatalf("re-authenticating as another user: %+v", changed)
	}
	// Kafka counts it as failed-reauthentication, not failed-authentication.
	if b.ReauthenticationsFailed() != reFailed+1 || b.AuthenticationsFailed() != failed {
		t.Fatalf("re-authentication failures %d (was %d), authentication failures %d (was %d)",
			b.ReauthenticationsFailed(), reFailed, b.AuthenticationsFailed(), failed)
	}
	c.wantClosed(t)

	// franz-go re-authenticates before the session ends and keeps working.
	cl := saslClient(t, addr, plain.Auth{User: "alice", Pass: "alice-secret"}.AsMechanism())
	produceAndReadBack(t, cl, "reauth")
	start := b.Authentications()
	ctx := testContext(t)
	for b.Authentications() < start+2 {
		if err := cl.ProduceSync(ctx, &kgo.Record{Topic: "reauth", Value: []byte("again")}).FirstErr(); err != nil {
			t.Fatalf("produce while re-authenticating: %v", err)
		}
		if ctx.Err() != nil {
			t.Fatal("no re-authentication seen")
		}
		time.Sleep(100 * time.Millisecond) // pace the produces
	}
}

func handshakeRequest(mechanism string) *kmsg.SASLHandshakeRequest {
	req := kmsg.NewPtrSASLHandshakeRequest()
	req.SetVersion(1)
	req.Mechanism = mechanism
	return req
}

func authenticateRequest(version int16, token string) *kmsg.SASLAuthenticateRequest {
	req := kmsg.NewPtrSASLAuthenticateRequest()
	req.SetVersion(version)
	req.SASLAuthBytes = []byte(token)
	return req
}

// kafkaConn speaks Kafka's framing over one raw connection, for checks a
// client library hides.
type kafkaConn struct {
	nc   net.Conn
	r    *bufio.Reader
	next int32
}

func dialKafka(t *testing.T, addr string) *kafkaConn {
	t.Helper()
	nc, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { nc.Close() })
	nc.SetDeadline(time.Now().Add(20 * time.Second))
	return &kafkaConn{nc: nc, r: bufio.NewReader(nc)}
}

func (c *kafkaConn) send(t *testing.T, req kmsg.Request) {
	t.Helper()
	c.next++
	frame := kmsg.NewRequestFormatter(kmsg.FormatterClientID("karst-sasl-test")).AppendRequest(nil, req, c.next)
	if _, err := c.nc.Write(frame); err != nil {
		t.Fatal(err)
	}
}

func (c *kafkaConn) tryReceive(req kmsg.Request) (kmsg.Response, error) {
	var size [4]byte
	if _, err := io.ReadFull(c.r, size[:]); err != nil {
		return nil, err
	}
	body := make([]byte, binary.BigEndian.Uint32(size[:]))
	if _, err := io.ReadFull(c.r, body); err != nil {
		return nil, err
	}
	resp := req.ResponseKind()
	resp.SetVersion(req.GetVersion())
	body = body[4:] // correlation id
	if resp.IsFlexible() && req.Key() != 18 {
		body = body[1:] // empty tagged fields of response header v1
	}
	if err := resp.ReadFrom(body); err != nil {
		return nil, err
	}
	return resp, nil
}

func (c *kafkaConn) receive(t *testing.T, req kmsg.Request) kmsg.Response {
	t.Helper()
	resp, err := c.tryReceive(req)
	if err != nil {
		t.Fatalf("reading the %s response: %v", kmsg.NameForKey(req.Key()), err)
	}
	return resp
}

func (c *kafkaConn) roundTrip(t *testing.T, req kmsg.Request) kmsg.Response {
	t.Helper()
	c.send(t, req)
	return c.receive(t, req)
}

func (c *kafkaConn) wantClosed(t *testing.T) {
	t.Helper()
	if n, err := c.r.ReadByte(); err == nil {
		t.Fatalf("connection still open: read %#x", n)
	} else if !errors.Is(err, io.EOF) && !errors.Is(err, net.ErrClosed) && !strings.Contains(err.Error(), "reset") {
		t.Fatalf("waiting for the broker to close: %v", err)
	}
}
