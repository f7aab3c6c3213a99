package config

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
)

// Type is a config value's type, as Kafka's ConfigDef.Type names it.
type Type int8

const (
	TypeUnknown Type = iota
	TypeBoolean
	TypeString
	TypeInt
	TypeShort
	TypeLong
	TypeDouble
	TypeList
	TypeClass
	TypePassword
)

var typeNames = [...]string{"UNKNOWN", "BOOLEAN", "STRING", "INT", "SHORT", "LONG", "DOUBLE", "LIST", "CLASS", "PASSWORD"}

func (t Type) String() string {
	if int(t) < len(typeNames) {
		return typeNames[t]
	}
	return "UNKNOWN"
}

// DescribeType is the config_type code of DescribeConfigs v3+; it happens to
// equal the Type constants (UNKNOWN 0 ... PASSWORD 9).
func (t Type) DescribeType() int8 { return int8(t) }

// Sensitive reports whether DescribeConfigs hides values of this type: Kafka
// treats passwords and keys of unknown type as sensitive.
func (t Type) Sensitive() bool { return t == TypePassword || t == TypeUnknown }

// ConfigError is an invalid config value. Its message is Kafka's
// ConfigException wording: "Invalid value V for configuration K: RULE".
type ConfigError struct {
	Key   string
	Value string
	Rule  string
	// NoValue marks errors about a key with no single offending value; the
	// message is then Rule alone (Kafka's plain ConfigException(String)).
	NoValue bool
}

func (e *ConfigError) Error() string {
	if e.NoValue {
		return e.Rule
	}
	if e.Rule == "" {
		return fmt.Sprintf("Invalid value %s for configuration %s", e.Value, e.Key)
	}
	return fmt.Sprintf("Invalid value %s for configuration %s: %s", e.Value, e.Key, e.Rule)
}

func invalid(key, value, rule string) *ConfigError {
	return &ConfigError{Key: key, Value: value, Rule: rule}
}

// javaTrim is String.trim: it strips every character <= U+0020.
func javaTrim(s string) string {
	return strings.TrimFunc(s, func(r rune) bool { return r <= ' ' })
}

var commaWithBlanks = regexp.MustCompile(`\s*,\s*`)

// parseValue converts a textual value to its typed form the way
// ConfigDef.parseType does for string input. The result is bool, string,
// int32, int16, int64, float64 or []string.
func parseValue(key, raw string, t Type) (any, error) {
	s := javaTrim(raw)
	switch t {
	case TypeBoolean:
		switch strings.ToLower(s) {
		case "true":
			return true, nil
		case "false":
			return false, nil
		}
		return nil, invalid(key, raw, "Expected value to be either true or false")
	case TypeString, TypePassword, TypeUnknown:
		return s, nil
	case TypeClass:
		if s == "" {
			return nil, invalid(key, raw, "Class "+raw+" could not be found.")
		}
		return s, nil
	case TypeInt:
		v, err := strconv.ParseInt(s, 10, 32)
		if err != nil {
			return nil, invalid(key, raw, "Not a number of type INT")
		}
		return int32(v), nil
	case TypeShort:
		v, err := strconv.ParseInt(s, 10, 16)
		if err != nil {
			return nil, invalid(key, raw, "Not a number of type SHORT")
		}
		return int16(v), nil
	case TypeLong:
		v, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return nil, invalid(key, raw, "Not a number of type LONG")
		}
		return v, nil
	case TypeDouble:
		v, err := parseJavaDouble(s)
		if err != nil {
			return nil, invalid(key, raw, "Not a number of type DOUBLE")
		}
		return v, nil
	case TypeList:
		if s == "" {
			return []string{}, nil
		}
		return commaWithBlanks.Split(s, -1), nil
	}
	return nil, invalid(key, raw, "unknown type")
}

// parseJavaDouble accepts what Double.parseDouble accepts in practice:
// decimal and exponent forms, an optional d/D/f/F suffix, NaN and Infinity.
func parseJavaDouble(s string) (float64, error) {
	switch s {
	case "NaN", "+NaN", "-NaN":
		return math.NaN(), nil
	case "Infinity", "+Infinity":
		return math.Inf(1), nil
	case "-Infinity":
		return math.Inf(-1), nil
	}
	if n := len(s); n > 1 && strings.ContainsRune("dDfF", rune(s[n-1])) {
		s = s[:n-1]
	}
	if s == "" || strings.ContainsAny(s, "_xXpPnNiI") {
		return 0, strconv.ErrSyntax
	}
	return strconv.ParseFloat(s, 64)
}

// formatValue renders a typed value the way ConfigDef.convertToString does
// (lists joined by commas, doubles as Java's Double.toString).
func formatValue(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case bool:
		return strconv.FormatBool(x)
	case string:
		return x
	case int32:
		return strconv.FormatInt(int64(x), 10)
	case int16:
		return strconv.FormatInt(int64(x), 10)
	case int64:
		return strconv.FormatInt(x, 10)
	case float64:
		return javaDoubleString(x)
	case []string:
		return strings.Join(x, ",")
	}
	return fmt.Sprint(v)
}

// javaDoubleString approximates Double.toString: plain notation with at
// least one fractional digit for 1e-3 <= |d| < 1e7, else d.dddE±n.
func javaDoubleString(d float64) string {
	switch {
	case math.IsNaN(d):
		return "NaN"
	case math.IsInf(d, 1):
		return "Infinity"
	case math.IsInf(d, -1):
		return "-Infinity"
	case d == 0:
		if math.Signbit(d) {
			return "-0.0"
		}
		return "0.0"
	}
	if a := math.Abs(d); a >= 1e-3 && a < 1e7 {
		s := strconv.FormatFloat(d, 'f', -1, 64)
		if !strings.Contains(s, ".") {
			s += ".0"
		}
		return s
	}
	s := strconv.FormatFloat(d, 'E', -1, 64) // e.g. 1E+07, 1.5E-05
	mant, exp, _ := strings.Cut(s, "E")
	if !strings.Contains(mant, ".") {
		mant += ".0"
	}
	e, _ := strconv.Atoi(exp)
	return mant + "E" + strconv.Itoa(e)
}
