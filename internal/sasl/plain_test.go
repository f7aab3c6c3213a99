package sasl

import (
	"errors"
	"testing"
)

func TestPlainChecksUsersFromJAAS(t *testing.T) {
	module, err := ParseServerJAAS(PlainLoginModule + ` required user_alice="alice-secret" user_bob="b";`)
	if err != nil {
		t.Fatal(err)
	}
	l := &Listener{Mechanisms: []string{Plain}, plainUsers: PlainUsers(module)}
	cases := []struct {
		token, failure, user string
	}{
		{"\x00alice\x00alice-secret", "", "alice"},
		{"alice\x00alice\x00alice-secret", "", "alice"},
		{"\x00alice\x00wrong", "Authentication failed: Invalid username or password", ""},
		{"\x00carol\x00alice-secret", "Authentication failed: Invalid username or password", ""},
		{"bob\x00alice\x00alice-secret", "Authentication failed: Client requested an authorization id that is different from username", ""},
		{"\x00\x00pw", "Authentication failed: username not specified", ""},
		{"\x00alice\x00", "Authentication failed: password not specified", ""},
		{"alice-secret", "Invalid SASL/PLAIN response: expected 3 tokens, got 1", ""},
		{"a\x00b\x00c\x00d", "Invalid SASL/PLAIN response: expected 3 tokens, got 4", ""},
	}
	for _, c := range cases {
		x, err := l.Start(Plain)
		if err != nil {
			t.Fatal(err)
		}
		out, err := x.Step([]byte(c.token))
		if c.failure != "" {
			var f *Failure
			if !errors.As(err, &f) || f.Message != c.failure {
				t.Errorf("%q: err %v, want %q", c.token, err, c.failure)
			}
			if x.Done() {
				t.Errorf("%q: done after a failure", c.token)
			}
			continue
		}
		if err != nil || len(out) != 0 || !x.Done() || x.User() != c.user {
			t.Errorf("%q: out %q err %v done %v user %q", c.token, out, err, x.Done(), x.User())
		}
	}
}

func FuzzParsePlainMessage(f *testing.F) {
	f.Add([]byte("\x00alice\x00secret"))
	f.Add([]byte("a\x00b\x00c\x00d"))
	f.Add([]byte{0xff, 0, 0xfe, 0})
	f.Fuzz(func(t *testing.T, token []byte) {
		_, user, password, err := ParsePlainMessage(token)
		if err == nil && (user == "" || password == "") {
			t.Fatalf("accepted %q with an empty user or password", token)
		}
	})
}
