package sasl

import (
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// kafkaServerJAAS is a kafka_server_jaas.conf as Kafka's security docs
// write one: a KafkaServer entry with PLAIN's users and SCRAM's login
// module, an entry of the sasl_ssl listener's own, and the client entry
// of ZooKeeper days that a broker does not read.
const kafkaServerJAAS = `// Kafka's broker JAAS file
KafkaServer {
    org.apache.kafka.common.security.plain.PlainLoginModule required
    username="admin"
    password="admin-secret"
    user_admin="admin-secret"
    user_alice="alice-secret";
    org.apache.kafka.common.security.scram.ScramLoginModule required;
};

/* The SASL_SSL listener's entry wins over KafkaServer for it. */
sasl_ssl.KafkaServer {
    org.apache.kafka.common.security.plain.PlainLoginModule required
    user_carol="carol \"quoted\" secret";
};

Client {
    org.apache.zookeeper.server.auth.DigestLoginModule required username="zk" password="zk-secret";
};
`

func writeJAAS(t *testing.T, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "kafka_server_jaas.conf")
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestParseJAASFileReadsKafkaServerEntries(t *testing.T) {
	entries, err := ParseJAASFile(kafkaServerJAAS)
	if err != nil {
		t.Fatal(err)
	}
	if got := len(entries); got != 3 {
		t.Fatalf("%d entries, want 3: %v", got, entries)
	}
	server := entries["KafkaServer"]
	if len(server) != 2 || server[0].Class != PlainLoginModule || server[1].Class != ScramLoginModule || server[1].Flag != "REQUIRED" {
		t.Fatalf("KafkaServer: %+v", server)
	}
	want := map[string]string{"username": "admin", "password": "admin-secret", "user_admin": "admin-secret", "user_alice": "alice-secret"}
	if !maps.Equal(server[0].Options, want) {
		t.Errorf("KafkaServer's PlainLoginModule options %v, want %v", server[0].Options, want)
	}
	if got := entries["sasl_ssl.KafkaServer"][0].Options["user_carol"]; got != `carol "quoted" secret` {
		t.Errorf("user_carol %q", got)
	}
}

func TestParseJAASFileRefusesBrokenFiles(t *testing.T) {
	cases := map[string]string{
		"KafkaServer { X required; }":                   "expected [;] after the } of KafkaServer, found end of file",
		"KafkaServer X required; };":                    "expected [{] after KafkaServer, found [X]",
		"KafkaServer { X required;":                     "entry KafkaServer is not closed by }",
		"KafkaServer { X required a=\"b\" };":           "entry KafkaServer: value not specified for key ''",
		"KafkaServer { X maybe; };":                     "entry KafkaServer: invalid login module control flag 'maybe'",
		"KafkaServer { X required; }; KafkaServer { };": "can not specify multiple entries for KafkaServer",
		"{ X required; };":                              "expected an entry name, found [{]",
	}
	for text, want := range cases {
		_, err := ParseJAASFile(text)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: err %v, want %q", text, err, want)
		}
	}
}

func TestLoginConfigFromKafkaOpts(t *testing.T) {
	cases := map[string]string{
		"": "",
		"-Xmx1g -Djava.security.krb5.conf=/etc/krb5.conf":                                  "",
		"-Djava.security.auth.login.config=/etc/kafka/jaas.conf":                           "/etc/kafka/jaas.conf",
		"  -Dx=y   -Djava.security.auth.login.config==/etc/kafka/only.conf -Da=b ":         "/etc/kafka/only.conf",
		"-Djava.security.auth.login.config=file:/etc/a.conf":                               "/etc/a.conf",
		"-Djava.security.auth.login.config=/first -Djava.security.auth.login.config=/last": "/last",
	}
	for opts, want := range cases {
		if got := LoginConfigFromKafkaOpts(opts); got != want {
			t.Errorf("%q: %q, want %q", opts, got, want)
		}
	}
}

func TestLoginModuleStringParsesBack(t *testing.T) {
	m := LoginModule{Class: PlainLoginModule, Flag: "REQUIRED", Options: map[string]string{
		"user_a": `back\slash "and" quotes`, "user_b": "line\nbreak", "user_c": "",
	}}
	got, err := ParseServerJAAS(m.String())
	if err != nil {
		t.Fatalf("%s: %v", m, err)
	}
	if got.Class != m.Class || got.Flag != m.Flag || !maps.Equal(got.Options, m.Options) {
		t.Errorf("%s parsed as %+v", m, got)
	}
}

func plainAuthenticates(t *testing.T, l *Listener, user, password string) bool {
	t.Helper()
	x, err := l.Start(Plain)
	if err != nil {
		t.Fatal(err)
	}
	_, err = x.Step([]byte("\x00" + user + "\x00" + password))
	return err == nil && x.Done() && x.User() == user
}

func TestListenerTakesPlainUsersFromTheJAASFile(t *testing.T) {
	file, err := LoadJAASFile(writeJAAS(t, kafkaServerJAAS))
	if err != nil {
		t.Fatal(err)
	}
	s := mapSettings{"sasl.enabled.mechanisms": "PLAIN,SCRAM-SHA-512"}
	plaintext, err := NewListener("SASL_PLAINTEXT", WithJAASFile(s, file), nil)
	if err != nil {
		t.Fatal(err)
	}
	if !plainAuthenticates(t, plaintext, "alice", "alice-secret") || plainAuthenticates(t, plaintext, "alice", "wrong") {
		t.Error("SASL_PLAINTEXT: alice's password from KafkaServer is not the one checked")
	}
	if plainAuthenticates(t, plaintext, "carol", `carol "quoted" secret`) {
		t.Error("SASL_PLAINTEXT accepted carol of sasl_ssl.KafkaServer")
	}
	tls, err := NewListener("SASL_SSL", WithJAASFile(s, file), nil)
	if err != nil {
		t.Fatal(err)
	}
	if !plainAuthenticates(t, tls, "carol", `carol "quoted" secret`) || plainAuthenticates(t, tls, "alice", "alice-secret") {
		t.Error("SASL_SSL does not read its own sasl_ssl.KafkaServer entry alone")
	}
	// A listener's plain.sasl.jaas.config wins over the file.
	s["listener.name.sasl_plaintext.plain.sasl.jaas.config"] = PlainLoginModule + ` required user_dave="dave-secret";`
	inline, err := NewListener("SASL_PLAINTEXT", WithJAASFile(s, file), nil)
	if err != nil {
		t.Fatal(err)
	}
	if !plainAuthenticates(t, inline, "dave", "dave-secret") || plainAuthenticates(t, inline, "alice", "alice-secret") {
		t.Error("the listener's plain.sasl.jaas.config does not replace the file's entry")
	}
}

func TestListenerWithoutAJAASEntryFailsAsKafka(t *testing.T) {
	path := writeJAAS(t, "Client { X required; };\nsasl_ssl.KafkaServer { org.apache.kafka.common.security.scram.ScramLoginModule required; };\n")
	file, err := LoadJAASFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s := mapSettings{"sasl.enabled.mechanisms": "PLAIN"}
	_, err = NewListener("SASL_PLAINTEXT", WithJAASFile(s, file), nil)
	want := "Could not find a 'KafkaServer' or 'sasl_plaintext.KafkaServer' entry in the JAAS configuration. System property 'java.security.auth.login.config' is " + path
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("err %v, want %q", err, want)
	}
	_, err = NewListener("SASL_SSL", WithJAASFile(s, file), nil)
	if want := "the sasl_ssl.KafkaServer entry of the JAAS file " + path + " lacks a " + PlainLoginModule; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("err %v, want %q", err, want)
	}
	_, err = NewListener("SASL_PLAINTEXT", s, nil)
	if want := "or a KafkaServer entry with it in the file that -Djava.security.auth.login.config= in KAFKA_OPTS names"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("without a file: err %v, want %q", err, want)
	}
	if _, err := LoadJAASFile(filepath.Join(t.TempDir(), "absent.conf")); err == nil || !strings.Contains(err.Error(), "java.security.auth.login.config=") {
		t.Errorf("absent file: err %v", err)
	}
}
