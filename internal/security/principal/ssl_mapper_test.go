package principal

import "testing"

// The cases of Kafka's SslPrincipalMapperTest.
func TestSSLMappingRulesKafkaAccepts(t *testing.T) {
	for _, spec := range []string{
		"DEFAULT",
		"RULE:^CN=(.*?),OU=ServiceUsers.*$/$1/",
		"RULE:^CN=(.*?),OU=ServiceUsers.*$/$1/L, DEFAULT",
		"RULE:^CN=(.*?),OU=(.*?),O=(.*?),L=(.*?),ST=(.*?),C=(.*?)$/$1@$2/",
		"RULE:^.*[Cc][Nn]=([a-zA-Z0-9.]*).*$/$1/L",
		"RULE:^cn=(.?),ou=(.?),dc=(.?),dc=(.?)$/$1@$2/U",
		"RULE:^CN=([^,ADEFLTU,]+)(,.*|$)/$1/",
		"RULE:^CN=([^,DEFAULT,]+)(,.*|$)/$1/",
	} {
		if _, err := ParseSSLMappingRules(spec); err != nil {
			t.Errorf("%q: %v", spec, err)
		}
	}
}

func TestSSLMappingRulesKafkaRefuses(t *testing.T) {
	for _, spec := range []string{
		"default", "DEFAUL", "DEFAULT/L", "DEFAULT/U",
		"RULE:CN=(.*?),OU=ServiceUsers.*/$1",
		"rule:^CN=(.*?),OU=ServiceUsers.*$/$1/",
		"RULE:^CN=(.*?),OU=ServiceUsers.*$/$1/L/U",
		"RULE:^CN=(.*?),OU=ServiceUsers.*$/L",
		"RULE:^CN=(.*?),OU=ServiceUsers.*$/U",
		"RULE:^CN=(.*?),OU=ServiceUsers.*$/LU",
	} {
		if m, err := ParseSSLMappingRules(spec); err == nil {
			t.Errorf("%q accepted as %s", spec, m)
		}
	}
}

func TestSSLMapperMapsAsKafka(t *testing.T) {
	m, err := ParseSSLMappingRules("RULE:^CN=(.*?),OU=ServiceUsers.*$/$1/L, " +
		"RULE:^CN=(.*?),OU=(.*?),O=(.*?),L=(.*?),ST=(.*?),C=(.*?)$/$1@$2/L, " +
		"RULE:^cn=(.*?),ou=(.*?),dc=(.*?),dc=(.*?)$/$1@$2/U, " +
		"RULE:^.*[Cc][Nn]=([a-zA-Z0-9.]*).*$/$1/U, " +
		"DEFAULT")
	if err != nil {
		t.Fatal(err)
	}
	for dn, want := range map[string]string{
		"CN=Duke,OU=ServiceUsers,O=Org,C=US":        "duke",
		"CN=Duke,OU=SME,O=mycp,L=Fulton,ST=MD,C=US": "duke@sme",
		"cn=duke,ou=sme,dc=mycp,dc=com":             "DUKE@SME",
		"cN=duke,OU=JavaSoft,O=Sun Microsystems":    "DUKE",
		"OU=JavaSoft,O=Sun Microsystems,C=US":       "OU=JavaSoft,O=Sun Microsystems,C=US",
	} {
		got, err := m.Name(dn)
		if err != nil || got != want {
			t.Errorf("Name(%q) = %q, %v; want %q", dn, got, err, want)
		}
	}
}

func TestSSLMapperWithoutMatchingRuleFails(t *testing.T) {
	m, err := ParseSSLMappingRules("RULE:^CN=(.*?),OU=ServiceUsers.*$/$1/")
	if err != nil {
		t.Fatal(err)
	}
	if name, err := m.Name("CN=x,OU=Other"); err == nil {
		t.Fatalf("mapped to %q; want no matching rule", name)
	}
}

func TestSSLMappingRulesSplitAsKafka(t *testing.T) {
	for spec, want := range map[string]string{
		"":                               "[]",
		"DEFAULT":                        "[DEFAULT]",
		"RULE://":                        "[RULE:/]",
		"RULE:/.*/":                      "[RULE:/.*]",
		"RULE:/.*/L":                     "[RULE:/.*/L]",
		"RULE://,DEFAULT":                "[RULE:/, DEFAULT]",
		"  RULE:// ,  DEFAULT  ":         "[RULE:/, DEFAULT]",
		"  RULE:   /     / ,  DEFAULT  ": "[RULE:   /     , DEFAULT]",
		"  RULE:  /     /U   ,DEFAULT  ": "[RULE:  /     /U, DEFAULT]",
		"  RULE:([A-Z]*)/$1/U   ,RULE:([a-z]+)/$1/,   DEFAULT  ": "[RULE:([A-Z]*)/$1/U, RULE:([a-z]+)/$1, DEFAULT]",
		",   , , ,      , , ,   ":                                "[]",
		",,RULE://,,,DEFAULT,,":                                  "[RULE:/, DEFAULT]",
		",  , RULE: /   /    ,,,   DEFAULT, ,   ":                "[RULE: /   , DEFAULT]",
		"     ,  , RULE:   /  /U    ,,  ,DEFAULT, ,":             "[RULE:   /  /U, DEFAULT]",
		`RULE:\/\\\(\)\n\t/\/\//`:                                `[RULE:\/\\\(\)\n\t/\/\/]`,
		`RULE:\**\/+/*/L,RULE:\/*\**/**/`:                        `[RULE:\**\/+/*/L, RULE:\/*\**/**]`,
		`RULE:,RULE:,/,RULE:,\//U,RULE:,/RULE:,/,RULE:,RULE:,/L,RULE:,/L,RULE:, DEFAULT, /DEFAULT/,DEFAULT`: `[RULE:,RULE:,/,RULE:,\//U, RULE:,/RULE:,, RULE:,RULE:,/L,RULE:,/L, RULE:, DEFAULT, /DEFAULT, DEFAULT]`,
	} {
		m, err := ParseSSLMappingRules(spec)
		if err != nil {
			t.Errorf("%q: %v", spec, err)
			continue
		}
		if got := m.String(); got != "SslPrincipalMapper(rules = "+want+")" {
			t.Errorf("%q split as %s; want %s", spec, got, want)
		}
	}
}

func TestSSLMapperCommaWithWhitespace(t *testing.T) {
	m, err := ParseSSLMappingRules(`RULE:^CN=((\\, *|\w)+)(,.*|$)/$1/,DEFAULT`)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := m.Name(`CN=Tkac\, Adam,OU=ITZ,DC=geodis,DC=cz`); err != nil || got != `Tkac\, Adam` {
		t.Fatalf("got %q, %v", got, err)
	}
}

func FuzzSSLMappingRules(f *testing.F) {
	f.Add("RULE:^CN=(.*?),OU=ServiceUsers.*$/$1/L,DEFAULT", "CN=Duke,OU=ServiceUsers,O=Org,C=US")
	f.Add(`RULE:\/\\\(\)\n\t/\/\//`, "x")
	f.Add("RULE:(a)(b)/$12$3\\$/U", "ab")
	f.Fuzz(func(t *testing.T, spec, dn string) {
		m, err := ParseSSLMappingRules(spec)
		if err != nil {
			return
		}
		m.Name(dn)
		_ = m.String()
	})
}

// Back references past the groups a pattern has read as Java (and Kafka's
// escaping of them) read them.
func TestSSLMapperBackReferencesAsJava(t *testing.T) {
	for rule, want := range map[string]string{
		`RULE:^CN=(\w+)$/$12/`:      "ab2",    // $1 then 2: one group
		`RULE:^CN=(\w+)$/$2x/`:      "$2x",    // no group 2: literal
		`RULE:^CN=(\w+)$/\$1-$1/`:   "$1-ab",  // an escaped dollar
		`RULE:^CN=(\w+)$/$0!/`:      "CN=ab!", // group 0, the whole match
		`RULE:^CN=(\w)(\w)$/$2$1/U`: "BA",
	} {
		m, err := ParseSSLMappingRules(rule)
		if err != nil {
			t.Fatalf("%s: %v", rule, err)
		}
		if got, err := m.Name("CN=ab"); err != nil || got != want {
			t.Errorf("%s: got %q, %v; want %q", rule, got, err, want)
		}
	}
}
