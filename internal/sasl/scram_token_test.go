package sasl

import (
	"testing"
)

func TestScramExtensions(t *testing.T) {
	for msg, want := range map[string]map[string]string{
		"n,,n=tok,r=abc":                           nil,
		"n,,n=tok,r=abc,tokenauth=true":            {"tokenauth": "true"},
		"n,a=x,n=tok,r=abc,tokenauth=true,k=v,k=w": {"tokenauth": "true", "k": "w"},
		"n,,n=tok,r=abc,=x,noequals":               {},
	} {
		got := scramExtensions(msg)
		if len(got) != len(want) {
			t.Errorf("%q: %v, want %v", msg, got, want)
		}
		for k, v := range want {
			if got[k] != v {
				t.Errorf("%q: %s=%q, want %q", msg, k, got[k], v)
			}
		}
	}
}

// FuzzScramTokenAuth: no client-first message panics a SCRAM exchange
// that may authenticate delegation tokens, or authenticates it.
func FuzzScramTokenAuth(f *testing.F) {
	f.Add([]byte("n,,n=tok,r=abc,tokenauth=true"))
	f.Add([]byte("n,,n=alice,r=abc"))
	f.Add([]byte("n,,n=,r=,tokenauth=TRUE,,"))
	f.Fuzz(func(t *testing.T, msg []byte) {
		x, err := newScramExchange(1, credentialMap{}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := x.Step(msg); err == nil && x.Done() {
			t.Fatalf("authenticated by one message %q", msg)
		}
		_ = scramExtensions(string(msg))
	})
}
