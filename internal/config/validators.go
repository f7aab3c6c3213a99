package config

import (
	"fmt"
	"strconv"
	"strings"
)

// Validator checks a parsed value. Its rule text is what Kafka's validator
// of the same kind says, and Valid is what Kafka's docs print under
// "Valid Values".
type Validator interface {
	check(key, raw string, v any) error
	Valid() string
}

// numeric returns v as float64 for range checks.
func numeric(v any) (float64, bool) {
	switch x := v.(type) {
	case int32:
		return float64(x), true
	case int16:
		return float64(x), true
	case int64:
		return float64(x), true
	case float64:
		return x, true
	}
	return 0, false
}

// rangeValidator is ConfigDef.Range: atLeast(min) or between(min, max).
type rangeValidator struct {
	min, max       float64
	hasMin, hasMax bool
	minS, maxS     string
}

func atLeast(min int64) Validator {
	return rangeValidator{min: float64(min), hasMin: true, minS: strconv.FormatInt(min, 10)}
}

func between(min, max int64) Validator {
	return rangeValidator{min: float64(min), max: float64(max), hasMin: true, hasMax: true,
		minS: strconv.FormatInt(min, 10), maxS: strconv.FormatInt(max, 10)}
}

func (r rangeValidator) check(key, raw string, v any) error {
	n, ok := numeric(v)
	if !ok {
		return nil
	}
	if r.hasMin && n < r.min {
		return invalid(key, raw, "Value must be at least "+r.minS)
	}
	if r.hasMax && n > r.max {
		return invalid(key, raw, "Value must be no more than "+r.maxS)
	}
	return nil
}

func (r rangeValidator) Valid() string {
	switch {
	case r.hasMin && r.hasMax:
		return "[" + r.minS + ",...," + r.maxS + "]"
	case r.hasMin:
		return "[" + r.minS + ",...]"
	}
	return "[...," + r.maxS + "]"
}

// oneOf is ConfigDef.ValidString.in (case-sensitive) or, with fold,
// CaseInsensitiveValidString.in. On a list-typed key it checks each element
// (ConfigDef.ValidList.in).
type oneOf struct {
	values []string
	fold   bool
}

func in(values ...string) Validator     { return oneOf{values: values} }
func inFold(values ...string) Validator { return oneOf{values: values, fold: true} }

func (o oneOf) ok(s string) bool {
	for _, v := range o.values {
		if s == v || (o.fold && strings.EqualFold(s, v)) {
			return true
		}
	}
	return false
}

func (o oneOf) check(key, raw string, v any) error {
	rule := "String must be one of: " + strings.Join(o.values, ", ")
	if o.fold {
		rule = "String must be one of (case insensitive): " + strings.Join(o.values, ", ")
	}
	switch x := v.(type) {
	case string:
		if !o.ok(x) {
			return invalid(key, x, rule)
		}
	case []string:
		for _, e := range x {
			if !o.ok(e) {
				return invalid(key, e, rule)
			}
		}
	}
	return nil
}

func (o oneOf) Valid() string { return "[" + strings.Join(o.values, ", ") + "]" }

// funcValidator is a one-off rule.
type funcValidator struct {
	fn    func(key, raw string, v any) error
	valid string
}

func (f funcValidator) check(key, raw string, v any) error { return f.fn(key, raw, v) }
func (f funcValidator) Valid() string                      { return f.valid }

// gzipLevel is CompressionType.GZIP's level validator: 1..9 or -1.
var gzipLevel Validator = funcValidator{
	fn: func(key, raw string, v any) error {
		n, _ := numeric(v)
		if n > 9 || (n < 1 && n != -1) {
			return invalid(key, raw, "Value must be between 1 and 9 or equal to -1")
		}
		return nil
	},
	valid: "[1,...,9] or -1",
}

// throttledReplicas is ThrottledReplicaListValidator: "*" or a list of
// partitionId:brokerId.
var throttledReplicas Validator = funcValidator{
	fn: func(key, raw string, v any) error {
		list, _ := v.([]string)
		if len(list) == 1 && javaTrim(list[0]) == "*" {
			return nil
		}
		for _, e := range list {
			p, b, ok := strings.Cut(javaTrim(e), ":")
			if !ok || !isDigits(javaTrim(p)) || !isDigits(javaTrim(b)) {
				return invalid(key, raw, key+" must be the literal '*' or a list of replicas in the following format: [partitionId]:[brokerId],[partitionId]:[brokerId],...")
			}
		}
		return nil
	},
	valid: "[partitionId]:[brokerId],[partitionId]:[brokerId],...",
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// listDistinct rejects duplicate entries (ValidList.anyNonDuplicateValues).
func listDistinct(allowEmpty bool) Validator {
	return funcValidator{
		fn: func(key, raw string, v any) error {
			l, _ := v.([]string)
			if len(l) == 0 && !allowEmpty {
				return invalid(key, raw, "Empty list not allowed.")
			}
			seen := map[string]bool{}
			for _, e := range l {
				if seen[e] {
					return invalid(key, raw, fmt.Sprintf("Duplicate value '%s' found.", e))
				}
				seen[e] = true
			}
			return nil
		},
		valid: "non-duplicate values",
	}
}

// hostPort accepts "" (disabled) or host:port.
var hostPortOrEmpty Validator = funcValidator{
	fn: func(key, raw string, v any) error {
		s, _ := v.(string)
		if s == "" {
			return nil
		}
		i := strings.LastIndexByte(s, ':')
		if i < 0 {
			return invalid(key, raw, "Expected host:port, or empty to disable")
		}
		p, err := strconv.Atoi(s[i+1:])
		if err != nil || p < 0 || p > 65535 {
			return invalid(key, raw, "Port must be in [0, 65535]")
		}
		return nil
	},
	valid: "host:port, or empty to disable",
}
