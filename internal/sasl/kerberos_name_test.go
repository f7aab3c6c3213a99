package sasl

import "testing"

// The cases of Kafka's KerberosNameTest.
func TestShortNamerAppliesKafkaRules(t *testing.T) {
	cases := []struct {
		rules []string
		names map[string]string
	}{
		{[]string{`RULE:[1:$1](App\..*)s/App\.(.*)/$1/g`, `RULE:[2:$1](App\..*)s/App\.(.*)/$1/g`, "DEFAULT"}, map[string]string{
			"App.service-name/example.com@REALM.COM": "service-name",
			"App.service-name@REALM.COM":             "service-name",
			"user/host@REALM.COM":                    "user",
		}},
		{[]string{"RULE:[1:$1]/L", "RULE:[2:$1](Test.*)s/ABC///L", "RULE:[2:$1](ABC.*)s/ABC/XYZ/g/L", `RULE:[2:$1](App\..*)s/App\.(.*)/$1/g/L`, "RULE:[2:$1]/L", "DEFAULT"}, map[string]string{
			"User@REALM.COM":                         "user",
			"TestABC/host@FOO.COM":                   "test",
			"ABC_User_ABC/host@FOO.COM":              "xyz_user_xyz",
			"App.SERVICE-name/example.com@REALM.COM": "service-name",
			"User/root@REALM.COM":                    "user",
		}},
		{[]string{"RULE:[1:$1]/U", "RULE:[2:$1](Test.*)s/ABC///U", "RULE:[2:$1](ABC.*)s/ABC/XYZ/g/U", `RULE:[2:$1](App\..*)s/App\.(.*)/$1/g/U`, "RULE:[2:$1]/U", "DEFAULT"}, map[string]string{
			"User@REALM.COM":                         "USER",
			"TestABC/host@FOO.COM":                   "TEST",
			"ABC_User_ABC/host@FOO.COM":              "XYZ_USER_XYZ",
			"App.SERVICE-name/example.com@REALM.COM": "SERVICE-NAME",
			"User/root@REALM.COM":                    "USER",
		}},
		// Only the first match is substituted without g; $0 is the realm.
		{[]string{"RULE:[1:$1](a.*)s/a(.)/b$1/", "RULE:[1:$1](c.*)s/c(.)/d$1/g", "RULE:[1:$0-$1]", "DEFAULT"}, map[string]string{
			"axay@EXAMPLE.COM": "bxay",
			"cxcy@EXAMPLE.COM": "dxdy",
			"eve@EXAMPLE.COM":  "EXAMPLE.COM-eve",
		}},
	}
	for _, c := range cases {
		namer, err := NewShortNamer("REALM.COM", c.rules)
		if err != nil {
			t.Fatalf("%v: %v", c.rules, err)
		}
		for principal, want := range c.names {
			name, err := ParseKerberosName(principal)
			if err != nil {
				t.Fatal(err)
			}
			if got, err := namer.ShortName(name); err != nil || got != want {
				t.Errorf("%v: %s is %q (%v), want %q", c.rules, principal, got, err, want)
			}
		}
	}
}

func TestShortNamerDefaultOnlyStripsTheDefaultRealm(t *testing.T) {
	namer, err := NewShortNamer("REALM.COM", nil)
	if err != nil {
		t.Fatal(err)
	}
	for principal, want := range map[string]string{"alice@REALM.COM": "alice", "kafka/broker1@REALM.COM": "kafka", "bare": "bare"} {
		name, _ := ParseKerberosName(principal)
		if got, err := namer.ShortName(name); err != nil || got != want {
			t.Errorf("%s is %q (%v), want %q", principal, got, err, want)
		}
	}
	name, _ := ParseKerberosName("alice@OTHER.COM")
	if got, err := namer.ShortName(name); err == nil {
		t.Errorf("a principal of another realm mapped to %q", got)
	}
	if _, err := ParseKerberosName("a/b/c@REALM.COM"); err == nil {
		t.Error("a name with three components parsed")
	}
}

func TestShortNamerRefusesInvalidRules(t *testing.T) {
	for _, rule := range []string{"default", "DEFAUL", "DEFAULT/L", "DEFAULT/g", "rule:[1:$1]", "rule:[1:$1]/L/U", "rule:[1:$1]/U/L",
		"rule:[1:$1]/LU", "RULE:[1:$1/L", "RULE:[1:$1]/l", "RULE:[2:$1](ABC.*)s/ABC/XYZ/L/g"} {
		if _, err := NewShortNamer("REALM.COM", []string{rule}); err == nil {
			t.Errorf("rule %q parsed", rule)
		}
	}
}

func TestShortNamerRefusesNonSimpleResults(t *testing.T) {
	namer, err := NewShortNamer("REALM.COM", []string{"RULE:[2:$1/$2]"})
	if err != nil {
		t.Fatal(err)
	}
	name, _ := ParseKerberosName("kafka/host@REALM.COM")
	if got, err := namer.ShortName(name); err == nil {
		t.Errorf("mapped to the non-simple %q", got)
	}
}
