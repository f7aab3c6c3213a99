package sasl

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/jcmturner/gokrb5/v8/client"
	"github.com/jcmturner/gokrb5/v8/config"
	"github.com/jcmturner/gokrb5/v8/crypto"
	"github.com/jcmturner/gokrb5/v8/gssapi"
	"github.com/jcmturner/gokrb5/v8/iana/keyusage"
	"github.com/jcmturner/gokrb5/v8/keytab"
	"github.com/jcmturner/gokrb5/v8/messages"
	"github.com/jcmturner/gokrb5/v8/service"
	"github.com/jcmturner/gokrb5/v8/spnego"
	"github.com/jcmturner/gokrb5/v8/types"

	"github.com/karst-broker/karst/internal/sasl/kdctest"
)

type mapSettings map[string]string

func (m mapSettings) ListenerValue(listener, key string) (string, bool) {
	if v, ok := m["listener.name."+strings.ToLower(listener)+"."+key]; ok {
		return v, true
	}
	v, ok := m[key]
	return v, ok
}

const servicePrincipal = "kafka/localhost@" + kdctest.Realm

func gssapiSettings(keytabPath string) mapSettings {
	return mapSettings{
		"sasl.enabled.mechanisms":    GSSAPI,
		"sasl.kerberos.service.name": "kafka",
		"listener.name.sasl_plaintext.gssapi.sasl.jaas.config": `com.sun.security.auth.module.Krb5LoginModule required useKeyTab=true storeKey=true keyTab="` +
			keytabPath + `" principal="` + servicePrincipal + `";`,
	}
}

// realm is a KDC with the broker's service principal and a few users,
// each with a keytab.
type realm struct {
	kdc      *kdctest.KDC
	krb5conf *config.Config
	service  string
	users    map[string]string
}

func startRealm(t *testing.T, users ...string) *realm {
	t.Helper()
	kdc := kdctest.Start(t)
	t.Setenv("KRB5_CONFIG", kdc.Krb5Conf)
	cfg, err := config.Load(kdc.Krb5Conf)
	if err != nil {
		t.Fatal(err)
	}
	r := &realm{kdc: kdc, krb5conf: cfg, service: kdc.AddPrincipal(t, servicePrincipal), users: map[string]string{}}
	for _, u := range users {
		r.users[u] = kdc.AddPrincipal(t, u+"@"+kdctest.Realm)
	}
	return r
}

// initiator is the client side of RFC 4752 written with gokrb5, as Go
// clients such as sarama write it; mutual and subkey choose what MIT's
// and Java's GSS-API send.
type initiator struct {
	key        types.EncryptionKey
	sessionKey types.EncryptionKey
	apReq      messages.APReq
	mutual     bool
}

func newInitiator(t *testing.T, r *realm, user, spn string, mutual, subkey bool) (*initiator, []byte) {
	t.Helper()
	kt, err := keytab.Load(r.users[user])
	if err != nil {
		t.Fatal(err)
	}
	name, _, _ := strings.Cut(user, "@")
	cl := client.NewWithKeytab(name, kdctest.Realm, kt, r.krb5conf, client.DisablePAFXFAST(true))
	if err := cl.Login(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Destroy)
	tkt, sessionKey, err := cl.GetServiceTicket(spn)
	if err != nil {
		t.Fatal(err)
	}
	flags := []int{gssapi.ContextFlagInteg, gssapi.ContextFlagConf}
	if mutual {
		flags = append(flags, gssapi.ContextFlagMutual)
	}
	token, err := spnego.NewKRB5TokenAPREQ(cl, tkt, sessionKey, flags, nil)
	if err != nil {
		t.Fatal(err)
	}
	// NewKRB5TokenAPREQ keeps the authenticator only in its sealed form.
	if err := token.APReq.DecryptAuthenticator(sessionKey); err != nil {
		t.Fatal(err)
	}
	in := &initiator{key: sessionKey, sessionKey: sessionKey, mutual: mutual}
	if subkey {
		auth := token.APReq.Authenticator
		if err := auth.GenerateSeqNumberAndSubKey(sessionKey.KeyType, 32); err != nil {
			t.Fatal(err)
		}
		if token.APReq, err = messages.NewAPReq(tkt, sessionKey, auth); err != nil {
			t.Fatal(err)
		}
		token.APReq.Authenticator = auth
		in.key = auth.SubKey
	}
	in.apReq = token.APReq
	b, err := token.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	return in, b
}

// answerOffer checks the server's wrapped offer and returns the wrapped
// choice of layer, with an authorization id.
func (in *initiator) answerOffer(t *testing.T, offer []byte, layer byte) []byte {
	t.Helper()
	var w gssapi.WrapToken
	if err := w.Unmarshal(offer, true); err != nil {
		t.Fatal(err)
	}
	if ok, err := w.Verify(in.key, keyusage.GSSAPI_ACCEPTOR_SEAL); !ok {
		t.Fatalf("the server's offer does not verify: %v", err)
	}
	if !bytes.Equal(w.Payload, []byte{noSecurityLayer, 1, 0, 0}) {
		t.Fatalf("offer %x, want no security layer with a 64 KiB buffer", w.Payload)
	}
	if w.SndSeqNum != uint64(uint32(in.apReq.Authenticator.SeqNumber)) {
		t.Fatalf("offer's sequence number %d, want the authenticator's %d", w.SndSeqNum, in.apReq.Authenticator.SeqNumber)
	}
	reply, err := gssapi.NewInitiatorWrapToken(append([]byte{layer, 0, 0, 0}, "someone-else"...), in.key)
	if err != nil {
		t.Fatal(err)
	}
	b, err := reply.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// checkAPRep decrypts the server's AP-REP as the client would, with the
// session key, and compares the time it returns with the authenticator's.
func (in *initiator) checkAPRep(t *testing.T, token []byte) {
	t.Helper()
	var krb5 spnego.KRB5Token
	if err := krb5.Unmarshal(token); err != nil {
		t.Fatal(err)
	}
	if !krb5.IsAPRep() {
		t.Fatal("the answer to a mutual AP-REQ holds no AP-REP")
	}
	plain, err := crypto.DecryptEncPart(krb5.APRep.EncPart, in.sessionKey, keyusage.AP_REP_ENCPART)
	if err != nil {
		t.Fatal(err)
	}
	var part messages.EncAPRepPart
	if err := part.Unmarshal(plain); err != nil {
		t.Fatal(err)
	}
	if !part.CTime.Equal(in.apReq.Authenticator.CTime.Truncate(time.Second)) || part.Cusec != in.apReq.Authenticator.Cusec {
		t.Fatalf("AP-REP time %v/%d, authenticator's %v/%d", part.CTime, part.Cusec, in.apReq.Authenticator.CTime, in.apReq.Authenticator.Cusec)
	}
}

func authenticateGSSAPI(t *testing.T, l *Listener, in *initiator, apReq []byte) (Exchange, error) {
	t.Helper()
	x, err := l.Start(GSSAPI)
	if err != nil {
		t.Fatal(err)
	}
	out, err := x.Step(apReq)
	if err != nil {
		return x, err
	}
	if in.mutual {
		in.checkAPRep(t, out)
		if out, err = x.Step(nil); err != nil {
			return x, err
		}
	}
	final, err := x.Step(in.answerOffer(t, out, noSecurityLayer))
	if err != nil {
		return x, err
	}
	if len(final) != 0 || !x.Done() {
		t.Fatalf("after the layer choice: %x, done %v", final, x.Done())
	}
	return x, nil
}

func TestGSSAPIAuthenticatesAgainstAnMITKDC(t *testing.T) {
	r := startRealm(t, "alice", "bob/admin")
	settings := gssapiSettings(r.service)
	settings["sasl.kerberos.principal.to.local.rules"] = "RULE:[2:$1-$2](.*-admin)s/-admin/-root/, DEFAULT"
	l, err := NewListener("SASL_PLAINTEXT", settings, nil)
	if err != nil {
		t.Fatal(err)
	}
	spn := "kafka/localhost"
	for _, c := range []struct {
		user, want     string
		mutual, subkey bool
	}{
		{"alice", "alice", false, false}, // as sarama sends it
		{"alice", "alice", true, true},   // as MIT's GSS-API sends it
		{"alice", "alice", false, true},  // as Java's sends it
		{"bob/admin", "bob-root", false, false},
	} {
		in, apReq := newInitiator(t, r, c.user, spn, c.mutual, c.subkey)
		x, err := authenticateGSSAPI(t, l, in, apReq)
		if err != nil {
			t.Fatalf("%+v: %v", c, err)
		}
		if x.User() != c.want {
			t.Fatalf("%+v: user %q", c, x.User())
		}
	}
}

func TestGSSAPIRefusesWhatKafkaRefuses(t *testing.T) {
	r := startRealm(t, "alice", "carol")
	r.kdc.AddPrincipal(t, "kafka/otherhost@"+kdctest.Realm)
	l, err := NewListener("SASL_PLAINTEXT", gssapiSettings(r.service), nil)
	if err != nil {
		t.Fatal(err)
	}
	refused := func(what string, x Exchange, err error) {
		t.Helper()
		if err == nil || x.Done() {
			t.Fatalf("%s: accepted", what)
		}
		if msg := FailureMessage(err, GSSAPI, false); msg != "Authentication failed during authentication due to invalid credentials with SASL mechanism GSSAPI" {
			t.Fatalf("%s: message %q", what, msg)
		}
	}

	// A ticket for another service, even of the same realm.
	in, apReq := newInitiator(t, r, "alice", "kafka/otherhost", false, false)
	x, err := authenticateGSSAPI(t, l, in, apReq)
	refused("ticket for another service", x, err)

	// The same AP-REQ twice: the replay cache refuses the second.
	in, apReq = newInitiator(t, r, "carol", "kafka/localhost", false, false)
	if _, err := authenticateGSSAPI(t, l, in, apReq); err != nil {
		t.Fatal(err)
	}
	x, _ = l.Start(GSSAPI)
	_, err = x.Step(apReq)
	refused("replayed AP-REQ", x, err)

	// A choice of a layer Kafka does not offer, and a tampered choice.
	for _, tamper := range []func(in *initiator, offer []byte) []byte{
		func(in *initiator, offer []byte) []byte { return in.answerOffer(t, offer, 4) },
		func(in *initiator, offer []byte) []byte {
			b := in.answerOffer(t, offer, noSecurityLayer)
			b[len(b)-1] ^= 1
			return b
		},
		func(in *initiator, offer []byte) []byte { return offer },
	} {
		in, apReq := newInitiator(t, r, "alice", "kafka/localhost", false, false)
		x, _ := l.Start(GSSAPI)
		offer, err := x.Step(apReq)
		if err != nil {
			t.Fatal(err)
		}
		_, err = x.Step(tamper(in, offer))
		refused("bad layer choice", x, err)
	}

	// Garbage where the AP-REQ belongs, and a non-empty token after the AP-REP.
	x, _ = l.Start(GSSAPI)
	_, err = x.Step([]byte("not a context token"))
	refused("garbage", x, err)
	_, apReq = newInitiator(t, r, "alice", "kafka/localhost", true, true)
	x, _ = l.Start(GSSAPI)
	if _, err := x.Step(apReq); err != nil {
		t.Fatal(err)
	}
	_, err = x.Step([]byte{1})
	refused("data after the AP-REP", x, err)
}

func TestGSSAPIListenerSettings(t *testing.T) {
	r := startRealm(t)
	jaasKey := "listener.name.sasl_plaintext.gssapi.sasl.jaas.config"
	for _, c := range []struct {
		change func(mapSettings)
		want   string
	}{
		{func(s mapSettings) { delete(s, jaasKey) }, "GSSAPI needs " + jaasKey},
		{func(s mapSettings) { delete(s, "sasl.kerberos.service.name") }, "no serviceName defined"},
		{func(s mapSettings) { s[jaasKey] = strings.Replace(s[jaasKey], "storeKey=true", "storeKey=false", 1) }, "storeKey=true is needed"},
		{func(s mapSettings) { s[jaasKey] = strings.Replace(s[jaasKey], "kafka/localhost", "kafka/elsewhere", 1) }, "has no key for kafka/elsewhere@KARST.TEST"},
		{func(s mapSettings) { s[jaasKey] = strings.Replace(s[jaasKey], "Krb5LoginModule", "Krb5Login", 1) }, "want " + Krb5LoginModule},
		{func(s mapSettings) { s["sasl.kerberos.principal.to.local.rules"] = "RULE:[1:$1]/l" }, "principal.to.local.rules: invalid rule"},
		{func(s mapSettings) { s[jaasKey] = strings.Replace(s[jaasKey], ";", ` serviceName="zookeeper";`, 1) }, "conflicting serviceName"},
	} {
		s := gssapiSettings(r.service)
		c.change(s)
		if _, err := NewListener("SASL_PLAINTEXT", s, nil); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("error %v, want one containing %q", err, c.want)
		}
	}
}

// FuzzGSSAPITokens feeds the acceptor arbitrary initial tokens and, on a
// context with a known key, arbitrary wrap tokens: neither may panic.
func FuzzGSSAPITokens(f *testing.F) {
	key := types.EncryptionKey{KeyType: 18, KeyValue: bytes.Repeat([]byte{7}, 32)}
	ctx := gssContext{key: key}
	offer, err := ctx.wrap([]byte{1, 1, 0, 0})
	if err != nil {
		f.Fatal(err)
	}
	f.Add([]byte{0x60, 0x0b, 0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x12, 0x01, 0x02, 0x02})
	f.Add(offer)
	reply, _ := gssapi.NewInitiatorWrapToken([]byte{1, 0, 0, 0}, key)
	replyBytes, _ := reply.Marshal()
	f.Add(replyBytes)
	namer, err := NewShortNamer(kdctest.Realm, nil)
	if err != nil {
		f.Fatal(err)
	}
	acceptor := &gssapiAcceptor{settings: service.NewSettings(keytab.New()), namer: namer}
	f.Fuzz(func(t *testing.T, token []byte) {
		x := &gssapiExchange{acceptor: acceptor}
		if _, _, err := acceptSecContext(acceptor, token); err == nil {
			t.Fatal("a context accepted with an empty keytab")
		}
		x.stage, x.ctx = awaitingLayerChoice, gssContext{key: key, peer: "alice@" + kdctest.Realm}
		if _, err := x.Step(token); err == nil && !x.Done() {
			t.Fatal("a layer choice accepted without completing")
		}
	})
}
