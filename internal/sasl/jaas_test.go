package sasl

import (
	"maps"
	"strings"
	"testing"
)

func TestParseJAASReadsKafkaSyntax(t *testing.T) {
	cases := []struct {
		config string
		want   LoginModule
	}{
		{`org.apache.kafka.common.security.plain.PlainLoginModule required username="admin" password="admin-secret" user_admin="admin-secret" user_alice="alice-secret";`,
			LoginModule{Class: PlainLoginModule, Flag: "REQUIRED", Options: map[string]string{
				"username": "admin", "password": "admin-secret", "user_admin": "admin-secret", "user_alice": "alice-secret"}}},
		// Bare words, single quotes, escapes, comments and a flag in any case.
		{"com.example.Login Optional /* block */ a=b-c_d$e // line\n b='x\\ty' c=\"q\\\"uo\\101\";",
			LoginModule{Class: "com.example.Login", Flag: "OPTIONAL", Options: map[string]string{"a": "b-c_d$e", "b": "x\ty", "c": "q\"uoA"}}},
		{"X sufficient;", LoginModule{Class: "X", Flag: "SUFFICIENT", Options: map[string]string{}}},
	}
	for _, c := range cases {
		got, err := ParseServerJAAS(c.config)
		if err != nil {
			t.Fatalf("%q: %v", c.config, err)
		}
		if got.Class != c.want.Class || got.Flag != c.want.Flag || !maps.Equal(got.Options, c.want.Options) {
			t.Errorf("%q:\n got %+v\nwant %+v", c.config, got, c.want)
		}
	}
}

func TestParseJAASRefusesWhatKafkaRefuses(t *testing.T) {
	cases := map[string]string{
		"":                             "Login module not specified",
		"X":                            "control flag not specified",
		"X maybe;":                     "invalid login module control flag 'maybe'",
		"X 12;":                        "control flag is not available",
		"X required a=1;":              "value not specified for key 'a'",
		"X required a;":                "value not specified for key 'a'",
		`X required a="b"`:             "not terminated by semi-colon",
		"X required; Y optional;":      "contains 2 login modules, should be 1",
		"X required a=\"b\"; // tail;": "",
	}
	for config, want := range cases {
		_, err := ParseServerJAAS(config)
		if want == "" {
			if err != nil {
				t.Errorf("%q: %v", config, err)
			}
			continue
		}
		if err == nil || !strings.Contains(strings.ToLower(err.Error()), strings.ToLower(want)) {
			t.Errorf("%q: err %v, want one saying %q", config, err, want)
		}
	}
}

func FuzzParseJAAS(f *testing.F) {
	f.Add(`org.apache.kafka.common.security.plain.PlainLoginModule required user_admin="admin-secret";`)
	f.Add("a b /* c */ d='e\\101' // f\n;")
	f.Add("x required k=\"\\")
	f.Fuzz(func(t *testing.T, config string) {
		modules, err := ParseJAAS(config)
		if err == nil && len(modules) == 0 {
			t.Fatal("no error and no login module")
		}
	})
}
