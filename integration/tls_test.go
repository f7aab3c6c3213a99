package integration

import (
	"crypto/tls"
	"crypto/x509/pkix"
	"errors"
	"net"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/IBM/sarama"
	"github.com/confluentinc/confluent-kafka-go/v2/kafka"
	segkafka "github.com/segmentio/kafka-go"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/karst-broker/karst/internal/config"
	"github.com/karst-broker/karst/internal/node"
	"github.com/karst-broker/karst/internal/security/tlsconfig/tlstest"
	"github.com/karst-broker/karst/karsttest"
)

// tlsBroker is a broker with a PLAINTEXT and an SSL listener whose stores
// were made by the test.
type tlsBroker struct {
	*karsttest.Broker
	ca     *tlstest.CA
	client *tlstest.Pair // CN=alice,OU=clients, signed by ca
	dir    string
}

// startTLSBroker serves SSL with a PKCS12 key store and a JKS trust store,
// client certificates as clientAuth says, and Kafka's example mapping rule.
func startTLSBroker(t *testing.T, clientAuth string, extra ...karsttest.Option) *tlsBroker {
	t.Helper()
	ca := tlstest.NewCA(t, "karst-test-ca")
	dir := t.TempDir()
	keystore := tlstest.WriteFile(t, dir, "broker.p12", ca.Server(t, "broker").PKCS12(t, "ks-secret"))
	truststore := tlstest.WriteFile(t, dir, "trust.jks", ca.JKSTrustStore(t, "ts-secret"))
	opts := append([]karsttest.Option{
		karsttest.WithConfig("listeners", "PLAINTEXT://127.0.0.1:0,SSL://127.0.0.1:0"),
		karsttest.WithConfig("ssl.keystore.type", "PKCS12"),
		karsttest.WithConfig("ssl.keystore.location", keystore),
		karsttest.WithConfig("ssl.keystore.password", "ks-secret"),
		karsttest.WithConfig("ssl.truststore.location", truststore),
		karsttest.WithConfig("ssl.truststore.password", "ts-secret"),
		karsttest.WithConfig("ssl.client.auth", clientAuth),
		karsttest.WithConfig("ssl.principal.mapping.rules", "RULE:^CN=(.*?),OU=.*$/$1/L,DEFAULT"),
	}, extra...)
	b := karsttest.Start(t, opts...)
	return &tlsBroker{Broker: b, ca: ca, dir: dir,
		client: ca.Client(t, pkix.Name{CommonName: "Alice", OrganizationalUnit: []string{"clients"}})}
}

func (b *tlsBroker) clientTLS(withCert bool) *tls.Config {
	c := &tls.Config{RootCAs: b.ca.Pool(), ServerName: "127.0.0.1"}
	if withCert {
		c.Certificates = []tls.Certificate{b.client.TLSCertificate()}
	}
	return c
}

func portOf(t *testing.T, addr string) int32 {
	t.Helper()
	_, port, err := net.SplitHostPort(addr)
	if err != nil {
		t.Fatal(err)
	}
	p, err := strconv.Atoi(port)
	if err != nil {
		t.Fatal(err)
	}
	return int32(p)
}

func TestFranzGoProducesAndConsumesOverSSLWithClientCertificate(t *testing.T) {
	b := startTLSBroker(t, "required")
	ssl := b.ListenerAddr("SSL")
	cl, err := kgo.NewClient(kgo.SeedBrokers(ssl), kgo.DialTLSConfig(b.clientTLS(true)),
		kgo.ConsumeTopics("over-tls"), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
		kgo.AllowAutoTopicCreation())
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ctx := testContext(t)
	// A value larger than the 64 KiB chunk the TLS path copies segment
	// bytes through, and small ones that join the gathered responses.
	big := strings.Repeat("k", 300<<10)
	want := []string{"one", big, "three"}
	for _, v := range want {
		if err := cl.ProduceSync(ctx, &kgo.Record{Topic: "over-tls", Value: []byte(v)}).FirstErr(); err != nil {
			t.Fatal(err)
		}
	}
	var got []string
	for len(got) < len(want) {
		fs := cl.PollFetches(ctx)
		if err := fs.Err0(); err != nil {
			t.Fatal(err)
		}
		fs.EachRecord(func(r *kgo.Record) { got = append(got, string(r.Value)) })
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("record %d: got %d bytes, want %d", i, len(got[i]), len(want[i]))
		}
	}
}

func TestEachListenerAdvertisesItsOwnEndpoints(t *testing.T) {
	b := startTLSBroker(t, "none")
	for name, opts := range map[string][]kgo.Opt{
		"PLAINTEXT": {kgo.SeedBrokers(b.ListenerAddr("PLAINTEXT"))},
		"SSL":       {kgo.SeedBrokers(b.ListenerAddr("SSL")), kgo.DialTLSConfig(b.clientTLS(false))},
	} {
		t.Run(name, func(t *testing.T) {
			want := portOf(t, b.ListenerAddr(name))
			cl, err := kgo.NewClient(opts...)
			if err != nil {
				t.Fatal(err)
			}
			defer cl.Close()
			ctx := testContext(t)
			meta, err := kmsg.NewPtrMetadataRequest().RequestWith(ctx, cl)
			if err != nil {
				t.Fatal(err)
			}
			if len(meta.Brokers) != 1 || meta.Brokers[0].Port != want {
				t.Fatalf("Metadata brokers %+v; want port %d", meta.Brokers, want)
			}
			cluster, err := kmsg.NewPtrDescribeClusterRequest().RequestWith(ctx, cl)
			if err != nil {
				t.Fatal(err)
			}
			if len(cluster.Brokers) != 1 || cluster.Brokers[0].Port != want {
				t.Fatalf("DescribeCluster brokers %+v; want port %d", cluster.Brokers, want)
			}
			fc := kmsg.NewPtrFindCoordinatorRequest()
			fc.CoordinatorKeys = []string{"g"}
			coord, err := fc.RequestWith(ctx, cl)
			if err != nil {
				t.Fatal(err)
			}
			if len(coord.Coordinators) != 1 || coord.Coordinators[0].Port != want {
				t.Fatalf("FindCoordinator %+v; want port %d", coord.Coordinators, want)
			}
		})
	}
}

func TestSSLRefusesClientsBeforeAnyRequest(t *testing.T) {
	b := startTLSBroker(t, "required")
	stranger := tlstest.NewCA(t, "stranger-ca")
	strangerCert := stranger.Client(t, pkix.Name{CommonName: "mallory"}).TLSCertificate()
	for name, cfg := range map[string]*tls.Config{
		"no client certificate": b.clientTLS(false),
		"untrusted client certificate": {RootCAs: b.ca.Pool(), ServerName: "127.0.0.1",
			GetClientCertificate: func(*tls.CertificateRequestInfo) (*tls.Certificate, error) { return &strangerCert, nil }},
		"untrusted broker certificate": {RootCAs: stranger.Pool(), ServerName: "127.0.0.1",
			Certificates: []tls.Certificate{b.client.TLSCertificate()}},
	} {
		t.Run(name, func(t *testing.T) {
			before, failedBefore := b.RequestsRead(), b.AuthenticationsFailed()
			cl, err := kgo.NewClient(kgo.SeedBrokers(b.ListenerAddr("SSL")), kgo.DialTLSConfig(cfg),
				kgo.RequestRetries(0), kgo.RetryTimeout(time.Second))
			if err != nil {
				t.Fatal(err)
			}
			defer cl.Close()
			if err := cl.Ping(testContext(t)); err == nil {
				t.Fatal("ping succeeded")
			}
			waitFor(t, func() bool { return b.AuthenticationsFailed() > failedBefore })
			if n := b.RequestsRead() - before; n != 0 {
				t.Fatalf("%d requests of a refused client were read", n)
			}
		})
	}
	// A plaintext client on the SSL port is refused as well.
	before := b.RequestsRead()
	cl, err := kgo.NewClient(kgo.SeedBrokers(b.ListenerAddr("SSL")), kgo.RequestRetries(0), kgo.RetryTimeout(time.Second))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	if err := cl.Ping(testContext(t)); err == nil {
		t.Fatal("a plaintext client was served on the SSL listener")
	}
	if n := b.RequestsRead() - before; n != 0 {
		t.Fatalf("%d plaintext requests were read on the SSL listener", n)
	}
}

// waitFor polls cond until it holds or the test's deadline passes.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	ctx := testContext(t)
	for !cond() {
		select {
		case <-ctx.Done():
			t.Fatal("condition not met before the deadline")
		case <-time.After(10 * time.Millisecond):
		}
	}
}

func TestSaramaAndKafkaGoOverSSL(t *testing.T) {
	b := startTLSBroker(t, "requested")
	ssl := b.ListenerAddr("SSL")

	cfg := sarama.NewConfig()
	cfg.Version = sarama.V3_9_0_0
	cfg.Net.TLS.Enable = true
	cfg.Net.TLS.Config = b.clientTLS(true)
	cfg.Producer.Return.Successes = true
	producer, err := sarama.NewSyncProducer([]string{ssl}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := producer.SendMessage(&sarama.ProducerMessage{Topic: "tls-clients", Value: sarama.StringEncoder("from sarama")}); err != nil {
		t.Fatal(err)
	}
	producer.Close()

	reader := segkafka.NewReader(segkafka.ReaderConfig{
		Brokers: []string{ssl}, Topic: "tls-clients", Partition: 0, MaxWait: 100 * time.Millisecond,
		Dialer: &segkafka.Dialer{Timeout: 10 * time.Second, TLS: b.clientTLS(false)},
	})
	defer reader.Close()
	m, err := reader.ReadMessage(testContext(t))
	if err != nil {
		t.Fatal(err)
	}
	if string(m.Value) != "from sarama" {
		t.Fatalf("kafka-go read %q", m.Value)
	}
}

func TestConfluentKafkaGoOverSSLWithClientCertificate(t *testing.T) {
	b := startTLSBroker(t, "required")
	ca := tlstest.WriteFile(t, b.dir, "ca.pem", []byte(b.ca.PEM()))
	cert := tlstest.WriteFile(t, b.dir, "client.pem", []byte(b.client.ChainPEM()))
	key := tlstest.WriteFile(t, b.dir, "client.key", []byte(b.client.KeyPEM(t, "")))
	p, err := kafka.NewProducer(&kafka.ConfigMap{
		"bootstrap.servers": b.ListenerAddr("SSL"), "security.protocol": "SSL",
		"ssl.ca.location": ca, "ssl.certificate.location": cert, "ssl.key.location": key,
	})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	topic := "tls-librdkafka"
	delivered := make(chan kafka.Event, 1)
	if err := p.Produce(&kafka.Message{TopicPartition: kafka.TopicPartition{Topic: &topic, Partition: kafka.PartitionAny}, Value: []byte("x")}, delivered); err != nil {
		t.Fatal(err)
	}
	select {
	case e := <-delivered:
		if m := e.(*kafka.Message); m.TopicPartition.Error != nil {
			t.Fatal(m.TopicPartition.Error)
		}
	case <-testContext(t).Done():
		t.Fatal("no delivery report")
	}
}

func TestSSLKeyStoreReloadsThroughAlterConfigs(t *testing.T) {
	b := startTLSBroker(t, "none")
	plain, err := kgo.NewClient(kgo.SeedBrokers(b.ListenerAddr("PLAINTEXT")))
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close()
	adm := kadm.NewClient(plain)
	ctx := testContext(t)

	newCA := tlstest.NewCA(t, "rotated-ca")
	rotated := tlstest.WriteFile(t, b.dir, "rotated.p12", newCA.Server(t, "broker").PKCS12(t, "new-secret"))
	set := func(k, v string) kadm.AlterConfig { return kadm.AlterConfig{Op: kadm.SetConfig, Name: k, Value: &v} }
	// A store that does not load is refused before it is stored, as Kafka
	// validates a dynamic SSL update.
	refused, err := adm.AlterBrokerConfigs(ctx, []kadm.AlterConfig{
		set("listener.name.ssl.ssl.keystore.location", rotated),
		set("listener.name.ssl.ssl.keystore.password", "wrong"),
	}, 1)
	if err != nil {
		t.Fatal(err)
	}
	// Kafka 4.4.0's ConfigAdminManager turns a failed dynamic broker
	// validation into InvalidRequestException (KAFKA-13609).
	if len(refused) != 1 || !errors.Is(refused[0].Err, kerr.InvalidRequest) || !strings.Contains(refused[0].ErrMessage, "SSLFactory") {
		t.Fatalf("a key store with the wrong password: %+v", refused)
	}
	resp, err := adm.AlterBrokerConfigs(ctx, []kadm.AlterConfig{
		set("listener.name.ssl.ssl.keystore.location", rotated),
		set("listener.name.ssl.ssl.keystore.password", "new-secret"),
	}, 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range resp {
		if r.Err != nil {
			t.Fatalf("%s: %v %s", r.Name, r.Err, r.ErrMessage)
		}
	}
	dialWith := func(ca *tlstest.CA) error {
		conn, err := tls.DialWithDialer(&net.Dialer{Timeout: 5 * time.Second}, "tcp", b.ListenerAddr("SSL"),
			&tls.Config{RootCAs: ca.Pool(), ServerName: "127.0.0.1"})
		if err == nil {
			conn.Close()
		}
		return err
	}
	waitFor(t, func() bool { return dialWith(newCA) == nil })
	if err := dialWith(b.ca); err == nil {
		t.Fatal("the old key store is still served after the reload")
	}

	// The same location again after the file was rewritten reloads it.
	third := tlstest.NewCA(t, "third-ca")
	if err := os.WriteFile(rotated, third.Server(t, "broker").PKCS12(t, "new-secret"), 0o600); err != nil {
		t.Fatal(err)
	}
	later := time.Now().Add(time.Minute)
	os.Chtimes(rotated, later, later)
	if _, err := adm.AlterBrokerConfigs(ctx, []kadm.AlterConfig{set("listener.name.ssl.ssl.keystore.location", rotated)}, 1); err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool { return dialWith(third) == nil })
}

// A SASL listener left at Kafka's default mechanism (GSSAPI, which needs
// Kerberos) stops the broker with an error naming the listener and the
// mechanism, rather than serving without authentication.
func TestSASLListenerWithoutAServedMechanismStopsTheBroker(t *testing.T) {
	for _, proto := range []string{"SASL_PLAINTEXT", "SASL_SSL"} {
		t.Run(proto, func(t *testing.T) {
			ca := tlstest.NewCA(t, "ca")
			pair := ca.Server(t, "broker")
			settings, _, err := config.Load("", []string{
				"listeners=PLAINTEXT://127.0.0.1:0," + proto + "://127.0.0.1:0", "log.dirs=" + t.TempDir(),
				"ssl.keystore.type=PEM", "ssl.keystore.certificate.chain=" + pair.ChainPEM(), "ssl.keystore.key=" + pair.KeyPEM(t, ""),
			})
			if err != nil {
				t.Fatal(err)
			}
			cfg, err := node.ConfigFrom(settings)
			if err == nil {
				var n *node.Node
				if n, err = node.Start(cfg); err == nil {
					n.Shutdown(testContext(t))
					t.Fatalf("a %s listener started with no mechanism served", proto)
				}
			}
			if !strings.Contains(err.Error(), proto) || !strings.Contains(err.Error(), "GSSAPI") {
				t.Fatalf("error %q names neither the listener nor the mechanism", err)
			}
		})
	}
}
