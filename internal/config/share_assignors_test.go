package config

import (
	"errors"
	"testing"
)

// The answers are Kafka 4.4.0's KafkaConfig.fromProps for the same
// values (GroupCoordinatorConfig.shareGroupAssignors and its "exactly
// one" requirement), asked through its jars.
func TestShareAssignorsAsKafka(t *testing.T) {
	for _, tt := range []struct {
		value, err string
	}{
		{"simple", ""},
		{" simple ", ""},
		{"simple,simple", ""},
		{"org.apache.kafka.coordinator.group.assignor.SimpleAssignor", ""},
		{"com.example.Nope", "Invalid value com.example.Nope for configuration group.share.assignors: Class cannot be found"},
		{"SIMPLE", "Invalid value SIMPLE for configuration group.share.assignors: Class cannot be found"},
		{"uniform", "Invalid value uniform for configuration group.share.assignors: Class cannot be found"},
		{"", "Configuration 'group.share.assignors' must not be empty. Valid values include: any non-empty value"},
		{"simple,org.apache.kafka.coordinator.group.assignor.SimpleAssignor", "group.share.assignors must contain exactly one assignor, but found 2"},
	} {
		_, _, err := FromProperties(map[string]string{"group.share.assignors": tt.value})
		var ce *ConfigError
		switch {
		case tt.err == "" && err != nil:
			t.Errorf("%q: %v, want accepted", tt.value, err)
		case tt.err != "" && (!errors.As(err, &ce) || ce.Key != "group.share.assignors" || err.Error() != tt.err):
			t.Errorf("%q: %v, want %q", tt.value, err, tt.err)
		}
	}
	if got := Default().List("group.share.assignors"); len(got) != 1 || got[0] != ShareAssignorSimple {
		t.Errorf("default %v, want [simple]", got)
	}
}

func TestShareAssignorName(t *testing.T) {
	for _, v := range []string{"simple", "org.apache.kafka.coordinator.group.assignor.SimpleAssignor", "simple,simple"} {
		if got := mustBroker(t, map[string]string{"group.share.assignors": v}).ShareAssignor(); got != "simple" {
			t.Errorf("%q: %q, want simple", v, got)
		}
	}
}
