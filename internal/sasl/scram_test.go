package sasl

import (
	"crypto/pbkdf2"
	"errors"
	"testing"

	"github.com/xdg-go/scram"

	"github.com/karst-broker/karst/internal/metadata"
)

type credentialMap map[metadata.ScramMechanism]map[string]metadata.ScramCredential

func (c credentialMap) ScramCredential(m metadata.ScramMechanism, user string) (metadata.ScramCredential, bool) {
	cred, ok := c[m][user]
	return cred, ok
}

// saltedCredential derives a credential the way a client's
// AlterUserScramCredentials does: the client salts the password, the
// server keeps the keys.
func saltedCredential(t testing.TB, m metadata.ScramMechanism, password string, iterations int32) metadata.ScramCredential {
	t.Helper()
	hashGen := scram.SHA256
	if m == metadata.ScramSHA512 {
		hashGen = scram.SHA512
	}
	client, err := hashGen.NewClient("ignored", password, "")
	if err != nil {
		t.Fatal(err)
	}
	salt := []byte("0123456789abcdef")
	stored, err := client.GetStoredCredentialsWithError(scram.KeyFactors{Salt: string(salt), Iters: int(iterations)})
	if err != nil {
		t.Fatal(err)
	}
	salted, err := pbkdf2.Key(m.Hash(), password, salt, int(iterations), m.Hash()().Size())
	if err != nil {
		t.Fatal(err)
	}
	got := metadata.ScramCredentialFromSaltedPassword(m, salt, salted, iterations)
	if string(got.StoredKey) != string(stored.StoredKey) || string(got.ServerKey) != string(stored.ServerKey) {
		t.Fatal("stored and server keys derived from the salted password differ from xdg-go/scram's")
	}
	return got
}

func runScram(t *testing.T, l *Listener, mechanism, user, password string) (Exchange, error) {
	t.Helper()
	hashGen := scram.SHA256
	if mechanism == ScramSHA512 {
		hashGen = scram.SHA512
	}
	client, err := hashGen.NewClient(user, password, "")
	if err != nil {
		t.Fatal(err)
	}
	conv := client.NewConversation()
	x, err := l.Start(mechanism)
	if err != nil {
		t.Fatal(err)
	}
	msg, err := conv.Step("")
	if err != nil {
		t.Fatal(err)
	}
	for !x.Done() {
		out, err := x.Step([]byte(msg))
		if err != nil {
			return x, err
		}
		if msg, err = conv.Step(string(out)); err != nil {
			t.Fatalf("client refused the server's answer %q: %v", out, err)
		}
	}
	if !conv.Valid() {
		t.Fatal("client did not verify the server's signature")
	}
	return x, nil
}

func TestScramAuthenticatesWithStoredCredentials(t *testing.T) {
	creds := credentialMap{
		metadata.ScramSHA256: {"alice": saltedCredential(t, metadata.ScramSHA256, "alice-secret", 4096)},
		metadata.ScramSHA512: {"alice": saltedCredential(t, metadata.ScramSHA512, "alice-512", 8192),
			"weak": saltedCredential(t, metadata.ScramSHA512, "weak", 1024)},
	}
	l := &Listener{Mechanisms: []string{ScramSHA256, ScramSHA512}, Scram: creds}
	for _, c := range []struct{ mechanism, password string }{{ScramSHA256, "alice-secret"}, {ScramSHA512, "alice-512"}} {
		x, err := runScram(t, l, c.mechanism, "alice", c.password)
		if err != nil || x.User() != "alice" {
			t.Fatalf("%s: user %q err %v", c.mechanism, x.User(), err)
		}
	}
	for _, c := range []struct{ mechanism, user, password string }{
		{ScramSHA256, "alice", "alice-512"}, // another mechanism's password
		{ScramSHA512, "bob", "x"},           // no such user
		{ScramSHA512, "weak", "weak"},       // below 4096 iterations
	} {
		x, err := runScram(t, l, c.mechanism, c.user, c.password)
		var f *Failure
		if err == nil || errors.As(err, &f) || x.Done() {
			t.Errorf("%+v: err %v done %v, want an error answered without detail", c, err, x.Done())
		}
		if msg := FailureMessage(err, c.mechanism, false); msg != "Authentication failed during authentication due to invalid credentials with SASL mechanism "+c.mechanism {
			t.Errorf("%+v: message %q", c, msg)
		}
	}
}

func FuzzScramServerMessages(f *testing.F) {
	f.Add([]byte("n,,n=alice,r=abcdefgh"), []byte("c=biws,r=abcdefgh,p=AAAA"))
	f.Add([]byte("y,a=bob,n=al=2Cice,r=x,tokenauth=true"), []byte("c=,r=,p="))
	f.Add([]byte("p=tls-unique,,n=a,r=b"), []byte{0xff, ','})
	creds := credentialMap{metadata.ScramSHA256: {"alice": saltedCredential(f, metadata.ScramSHA256, "pw", 4096)}}
	l := &Listener{Mechanisms: []string{ScramSHA256}, Scram: creds}
	f.Fuzz(func(t *testing.T, first, final []byte) {
		x, err := l.Start(ScramSHA256)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := x.Step(first); err != nil {
			return
		}
		if _, err := x.Step(final); err == nil && !x.Done() {
			t.Fatal("final message accepted without completing")
		}
	})
}
