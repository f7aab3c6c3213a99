package config

import (
	"fmt"
	"slices"
)

// ShareAssignorSimple is the one share group assignor Kafka 4.4 ships
// (group.share.assignors' built-in), by its name and by its class.
const (
	ShareAssignorSimple      = "simple"
	shareAssignorSimpleClass = "org.apache.kafka.coordinator.group.assignor.SimpleAssignor"
)

// shareAssignors checks group.share.assignors as Kafka 4.4's
// GroupCoordinatorConfig does at start-up: a non-empty list whose
// entries, duplicates folded, name exactly one assignor, either the
// built-in "simple" or a class. Karst loads no Java class, so a class
// other than Kafka's SimpleAssignor is one it cannot find, which is what
// Kafka answers for a class not on its class path.
var shareAssignors Validator = funcValidator{
	fn: func(key, raw string, v any) error {
		l, _ := v.([]string)
		if len(l) == 0 {
			return &ConfigError{Key: key, Value: raw, NoValue: true,
				Rule: fmt.Sprintf("Configuration '%s' must not be empty. Valid values include: any non-empty value", key)}
		}
		var distinct []string
		for _, e := range l {
			if e != ShareAssignorSimple && e != shareAssignorSimpleClass {
				return invalid(key, e, "Class cannot be found")
			}
			if !slices.Contains(distinct, e) {
				distinct = append(distinct, e)
			}
		}
		if len(distinct) != 1 {
			return &ConfigError{Key: key, Value: raw, NoValue: true,
				Rule: fmt.Sprintf("%s must contain exactly one assignor, but found %d", key, len(distinct))}
		}
		return nil
	},
	valid: "any non-empty value",
}

// ShareAssignor is the name of the assignor group.share.assignors
// selects, as Kafka's ShareGroupPartitionAssignor.name() reports it in
// ShareGroupDescribe: its class name is the same assignor.
func (b *Broker) ShareAssignor() string {
	name := b.List("group.share.assignors")[0]
	if name == shareAssignorSimpleClass {
		return ShareAssignorSimple
	}
	return name
}
