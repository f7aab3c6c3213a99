package sasl

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/karst-broker/karst/internal/security/principal"
)

// KerberosName is a principal split as Kafka's KerberosName splits it:
// service[/host]@realm.
type KerberosName struct {
	Service, Host, Realm string
}

var kerberosNameParser = regexp.MustCompile(`^([^/@]*)(/([^/@]*))?@([^/@]*)$`)

// ParseKerberosName splits a principal; a name without '@' is a bare
// service name, and anything else that does not fit is malformed.
func ParseKerberosName(name string) (KerberosName, error) {
	m := kerberosNameParser.FindStringSubmatch(name)
	if m == nil {
		if strings.Contains(name, "@") {
			return KerberosName{}, fmt.Errorf("malformed Kerberos name: %s", name)
		}
		return KerberosName{Service: name}, nil
	}
	return KerberosName{Service: m[1], Host: m[3], Realm: m[4]}, nil
}

func (n KerberosName) String() string {
	s := n.Service
	if n.Host != "" {
		s += "/" + n.Host
	}
	if n.Realm != "" {
		s += "@" + n.Realm
	}
	return s
}

// ShortNamer maps principals to short names with the rules of
// sasl.kerberos.principal.to.local.rules, the first rule that applies
// giving the name, as Kafka's KerberosShortNamer.
type ShortNamer struct {
	rules []kerberosRule
}

// kerberosRule is DEFAULT (the name when the realm is the default one) or
// RULE:[n:format](match)s/from/to/[g][/L|/U].
type kerberosRule struct {
	text         string
	defaultRealm string
	isDefault    bool
	components   int
	format       string
	match        *regexp.Regexp
	from         *regexp.Regexp
	to           string
	global       bool
	lower, upper bool
}

var kerberosRuleParser = regexp.MustCompile(`^((DEFAULT)|((RULE:\[(\d*):([^\]]*)](\(([^)]*)\))?(s/([^/]*)/([^/]*)/(g)?)?/?(L|U)?)))`)

// NewShortNamer parses rules (DEFAULT alone when there are none) for a
// broker whose default realm is defaultRealm.
func NewShortNamer(defaultRealm string, rules []string) (*ShortNamer, error) {
	if len(rules) == 0 {
		rules = []string{"DEFAULT"}
	}
	n := &ShortNamer{}
	for _, text := range rules {
		r, err := parseKerberosRule(defaultRealm, text)
		if err != nil {
			return nil, err
		}
		n.rules = append(n.rules, r)
	}
	return n, nil
}

func parseKerberosRule(defaultRealm, text string) (kerberosRule, error) {
	m := kerberosRuleParser.FindStringSubmatch(text)
	if m == nil {
		return kerberosRule{}, fmt.Errorf("invalid rule: %s", text)
	}
	if len(m[0]) != len(text) {
		return kerberosRule{}, fmt.Errorf("invalid rule: `%s`, unmatched substring: `%s`", text, text[len(m[0]):])
	}
	r := kerberosRule{text: text, defaultRealm: defaultRealm}
	if m[2] != "" {
		r.isDefault = true
		return r, nil
	}
	components, err := strconv.Atoi(m[5])
	if err != nil {
		return r, fmt.Errorf("invalid rule: %s: component count %q", text, m[5])
	}
	r.components, r.format = components, m[6]
	if m[7] != "" {
		// Java's Matcher.matches: the whole name must match.
		if r.match, err = regexp.Compile(`^(?:` + m[8] + `)$`); err != nil {
			return r, fmt.Errorf("invalid rule: %s: %w", text, err)
		}
	}
	if m[9] != "" {
		if r.from, err = regexp.Compile(m[10]); err != nil {
			return r, fmt.Errorf("invalid rule: %s: %w", text, err)
		}
		r.to = principal.JavaReplacement(m[11], r.from.NumSubexp())
		r.global = m[12] == "g"
	}
	r.lower, r.upper = m[13] == "L", m[13] == "U"
	return r, nil
}

// ShortName is the short name of a principal: its service part when it
// has no realm, else the first rule's that applies.
func (n *ShortNamer) ShortName(name KerberosName) (string, error) {
	if name.Host == "" && name.Realm == "" {
		return name.Service, nil
	}
	params := []string{name.Realm, name.Service}
	if name.Host != "" {
		params = append(params, name.Host)
	}
	for _, r := range n.rules {
		short, applies, err := r.apply(params)
		if err != nil {
			return "", err
		}
		if applies {
			return short, nil
		}
	}
	return "", fmt.Errorf("no rules apply to %s, rules %s", name, n)
}

func (n *ShortNamer) String() string {
	texts := make([]string, len(n.rules))
	for i, r := range n.rules {
		texts[i] = r.text
	}
	return "[" + strings.Join(texts, ", ") + "]"
}

// apply gives the rule's result for params (realm, then the name's
// components), applies false when the rule does not match.
func (r kerberosRule) apply(params []string) (result string, applies bool, err error) {
	switch {
	case r.isDefault:
		if r.defaultRealm != params[0] {
			return "", false, nil
		}
		result = params[1]
	case len(params)-1 == r.components:
		base, err := replaceParameters(r.format, params)
		if err != nil {
			return "", false, err
		}
		if r.match != nil && !r.match.MatchString(base) {
			return "", false, nil
		}
		result = base
		if r.from != nil {
			result = r.substitute(base)
		}
	default:
		return "", false, nil
	}
	if strings.ContainsAny(result, "/@") {
		return "", false, fmt.Errorf("non-simple name %s after auth_to_local rule %s", result, r.text)
	}
	if r.lower {
		result = strings.ToLower(result)
	} else if r.upper {
		result = strings.ToUpper(result)
	}
	return result, true, nil
}

func (r kerberosRule) substitute(base string) string {
	if r.global {
		return r.from.ReplaceAllString(base, r.to)
	}
	loc := r.from.FindStringSubmatchIndex(base)
	if loc == nil {
		return base
	}
	out := r.from.ExpandString([]byte(base[:loc[0]]), r.to, base, loc)
	return string(out) + base[loc[1]:]
}

// replaceParameters fills a rule's format: $0 is the realm, $1 and on the
// name's components.
func replaceParameters(format string, params []string) (string, error) {
	var b strings.Builder
	for i := 0; i < len(format); i++ {
		if format[i] != '$' {
			b.WriteByte(format[i])
			continue
		}
		j := i + 1
		for j < len(format) && format[j] >= '0' && format[j] <= '9' {
			j++
		}
		num, err := strconv.Atoi(format[i+1 : j])
		if err != nil {
			return "", fmt.Errorf("bad format in username mapping in %s", format)
		}
		if num >= len(params) {
			return "", fmt.Errorf("index %d from %s is outside of the valid range 0 to %d", num, format, len(params)-1)
		}
		b.WriteString(params[num])
		i = j - 1
	}
	return b.String(), nil
}
