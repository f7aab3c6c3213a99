package principal

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// DefaultSSLMappingRules is ssl.principal.mapping.rules' default: the
// certificate's distinguished name is the principal name.
const DefaultSSLMappingRules = "DEFAULT"

// The grammar of ssl.principal.mapping.rules, as Kafka's
// SslPrincipalMapper reads it: DEFAULT, or RULE:pattern/replacement/ with
// an optional L or U flag; '\' escapes '/' inside pattern and replacement.
const rulePattern = `(DEFAULT)|RULE:((\\.|[^\\/])*)/((\\.|[^\\/])*)/([LU]?).*?|(.*?)`

var (
	ruleSplitter = regexp.MustCompile(`\s*(` + rulePattern + `)\s*(,\s*|$)`)
	ruleParser   = regexp.MustCompile(`^(?:` + rulePattern + `)`)
	backRef      = regexp.MustCompile(`\$(\d+)`)
)

// SSLMapper maps a certificate's distinguished name (RFC 2253 form, as
// Java's X500Principal.getName prints it) to a principal name.
type SSLMapper struct {
	rules []sslRule
	spec  string
}

type sslRule struct {
	isDefault bool
	// whole matches the complete name, as Java's Matcher.matches;
	// pattern is the rule's own regular expression, which replaces every
	// match as Java's String.replaceAll.
	whole, pattern *regexp.Regexp
	// template is the replacement in Go's Expand syntax; replacement is
	// the rule's own text.
	template, replacement string
	lowerCase             bool
	upperCase             bool
}

// ParseSSLMappingRules parses ssl.principal.mapping.rules. Patterns are Go
// regular expressions (RE2), which read Kafka's usual rules alike; a
// pattern using what RE2 lacks (back references, look-around) is refused.
func ParseSSLMappingRules(spec string) (*SSLMapper, error) {
	m := &SSLMapper{spec: spec}
	for _, match := range ruleSplitter.FindAllStringSubmatch(strings.TrimSpace(spec), -1) {
		rule := match[1]
		parts := ruleParser.FindStringSubmatchIndex(rule)
		if parts == nil {
			return nil, fmt.Errorf("invalid rule: %s", rule)
		}
		if parts[1] != len(rule) {
			return nil, fmt.Errorf("invalid rule: `%s`, unmatched substring: `%s`", rule, rule[parts[1]:])
		}
		group := func(i int) (string, bool) {
			if parts[2*i] < 0 {
				return "", false
			}
			return rule[parts[2*i]:parts[2*i+1]], true
		}
		if _, ok := group(1); ok {
			m.rules = append(m.rules, sslRule{isDefault: true})
			continue
		}
		pattern, ok := group(2)
		if !ok {
			continue // an empty rule, which Kafka ignores
		}
		replacement, _ := group(4)
		flag, _ := group(6)
		r, err := newSSLRule(pattern, replacement)
		if err != nil {
			return nil, fmt.Errorf("invalid rule: %s: %w", rule, err)
		}
		r.lowerCase, r.upperCase = flag == "L", flag == "U"
		m.rules = append(m.rules, r)
	}
	return m, nil
}

func newSSLRule(pattern, replacement string) (sslRule, error) {
	re, err := regexp.Compile(pattern)
	if err != nil {
		return sslRule{}, err
	}
	whole, err := regexp.Compile(`^(?:` + pattern + `)$`)
	if err != nil {
		return sslRule{}, err
	}
	return sslRule{pattern: re, whole: whole, template: JavaReplacement(replacement, re.NumSubexp()), replacement: replacement}, nil
}

// JavaReplacement turns a java.util.regex replacement into a Go Expand
// template: "$n" is group n (a number past the groups the pattern has is
// cut from the right until it names one, as Java reads it, and stays
// literal text when none is left, as Kafka's rule escapes it), '\'
// quotes the next character, and a literal '$' becomes "$$".
func JavaReplacement(s string, groups int) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\\' && i+1 < len(s):
			i++
			if s[i] == '$' {
				b.WriteString("$$")
			} else {
				b.WriteByte(s[i])
			}
		case c == '$':
			digits := backRef.FindStringSubmatch(s[i:])
			if digits == nil {
				b.WriteString("$$")
				continue
			}
			num := digits[1]
			used := len(num)
			n, _ := strconv.Atoi(num)
			for n > groups && used > 1 {
				used--
				n, _ = strconv.Atoi(num[:used])
			}
			if n > groups || groups == 0 {
				b.WriteString("$$")
				continue
			}
			b.WriteString("${" + strconv.Itoa(n) + "}")
			i += used
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// NoMatchingRuleError says no rule maps a name; Kafka then fails the
// connection's authentication.
type NoMatchingRuleError struct {
	Name  string
	Rules string
}

func (e *NoMatchingRuleError) Error() string {
	return "No rules apply to " + e.Name + ", rules " + e.Rules
}

// Name maps a distinguished name with the first rule that applies.
func (m *SSLMapper) Name(distinguishedName string) (string, error) {
	for _, r := range m.rules {
		if name, ok := r.apply(distinguishedName); ok {
			return name, nil
		}
	}
	return "", &NoMatchingRuleError{Name: distinguishedName, Rules: m.String()}
}

func (r sslRule) apply(dn string) (string, bool) {
	if r.isDefault {
		return dn, true
	}
	if !r.whole.MatchString(dn) {
		return "", false
	}
	out := r.pattern.ReplaceAllString(dn, r.template)
	switch {
	case r.lowerCase:
		out = strings.ToLower(out)
	case r.upperCase:
		out = strings.ToUpper(out)
	}
	return out, true
}

// String lists the rules as Kafka's SslPrincipalMapper prints them.
func (m *SSLMapper) String() string {
	var parts []string
	for _, r := range m.rules {
		if r.isDefault {
			parts = append(parts, "DEFAULT")
			continue
		}
		s := "RULE:" + r.pattern.String() + "/" + r.replacement
		switch {
		case r.lowerCase:
			s += "/L"
		case r.upperCase:
			s += "/U"
		}
		parts = append(parts, s)
	}
	return "SslPrincipalMapper(rules = [" + strings.Join(parts, ", ") + "])"
}
