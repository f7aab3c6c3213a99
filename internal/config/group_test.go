package config

import "testing"

// The answers Kafka 4.4.0 gives to IncrementalAlterConfigs on GROUP "g"
// with its default broker configs (captured from the reference broker).
func TestValidateGroupConfigsAsKafka(t *testing.T) {
	b := Default()
	cases := []struct {
		key, value, want string
	}{
		{"consumer.session.timeout.ms", "50000", ""},
		{"consumer.session.timeout.ms", "70000", "consumer.session.timeout.ms must be in the range 45000 to 60000 inclusive."},
		{"consumer.session.timeout.ms", "abc", "Invalid value abc for configuration consumer.session.timeout.ms: Not a number of type INT"},
		{"consumer.session.timeout.ms", "-5", "Invalid value -5 for configuration consumer.session.timeout.ms: Value must be at least 1"},
		{"bogus.key", "1", "Unknown group config name: bogus.key"},
		{"consumer.heartbeat.interval.ms", "60000", "consumer.heartbeat.interval.ms must be in the range 5000 to 15000 inclusive."},
		{"consumer.heartbeat.interval.ms", "1000", "consumer.heartbeat.interval.ms must be in the range 5000 to 15000 inclusive."},
		{"share.auto.offset.reset", "by_duration:PT1H", ""},
		{"share.auto.offset.reset", "bogus", "Invalid value bogus for configuration share.auto.offset.reset: Invalid value `bogus` for configuration share.auto.offset.reset. The value must be either 'earliest', 'latest' or of the format 'by_duration:<PnDTnHnMn.nS>'."},
		{"streams.num.standby.replicas", "5", "streams.num.standby.replicas must be less than or equal to 2"},
		{"consumer.assignor.offload.enable", "false", ""},
		{"streams.task.offset.interval.ms", "1000", "streams.task.offset.interval.ms must be greater than or equal to 15000"},
		{"streams.num.warmup.replicas", "100", "streams.num.warmup.replicas must be less than or equal to 20"},
		{"streams.assignor.name", "x", "streams.assignor.name 'x' is not a registered task assignor. Registered assignors are: [sticky]."},
		{"errors.deadletterqueue.topic.name", "__x", "errors.deadletterqueue.topic.name: DLQ topic name must not start with '__'"},
		{"share.isolation.level", "bogus", "Invalid value bogus for configuration share.isolation.level: String must be one of: read_committed, read_uncommitted"},
		{"share.record.lock.duration.ms", "500", "Invalid value 500 for configuration share.record.lock.duration.ms: Value must be at least 1000"},
		{"streams.rack.aware.assignment.tags", "a,a", "streams.rack.aware.assignment.tags must not contain duplicate tag keys."},
	}
	for _, c := range cases {
		err := b.ValidateGroupConfigs(map[string]string{c.key: c.value})
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s=%s: %v", c.key, c.value, err)
		case c.want != "" && (err == nil || err.Error() != c.want || ErrorCode(err) != ErrInvalidConfig):
			t.Errorf("%s=%s: got %v, want INVALID_CONFIG %q", c.key, c.value, err, c.want)
		}
	}
}

func TestGroupBoundsFollowTheBrokerConfig(t *testing.T) {
	b, _, err := FromProperties(map[string]string{"group.consumer.max.session.timeout.ms": "90000"})
	if err != nil {
		t.Fatal(err)
	}
	if err := b.ValidateGroupConfigs(map[string]string{"consumer.session.timeout.ms": "80000"}); err != nil {
		t.Fatalf("80 s under a 90 s broker maximum: %v", err)
	}
	if got := b.GroupInt(map[string]string{"consumer.session.timeout.ms": "80000"}, "consumer.session.timeout.ms"); got != 80000 {
		t.Fatalf("GroupInt %d", got)
	}
	if got := b.GroupInt(nil, "consumer.heartbeat.interval.ms"); got != 5000 {
		t.Fatalf("GroupInt default %d", got)
	}
}

func TestDescribeGroupAsKafka(t *testing.T) {
	entries := Default().DescribeGroup(map[string]string{"consumer.session.timeout.ms": "50000", "consumer.assignor.offload.enable": "false"}, nil)
	// Kafka 4.4.0 lists the 21 keys that are not internal, plus the
	// internal ones the group sets.
	if len(entries) != 22 {
		t.Fatalf("%d entries", len(entries))
	}
	byName := map[string]Entry{}
	for _, e := range entries {
		byName[e.Name] = e
	}
	set := byName["consumer.session.timeout.ms"]
	if *set.Value != "50000" || set.Source != SourceGroup || len(set.Synonyms) != 2 ||
		set.Synonyms[1].Name != "group.consumer.session.timeout.ms" || *set.Synonyms[1].Value != "45000" || set.Synonyms[1].Source != SourceDefault {
		t.Fatalf("set entry %+v", set)
	}
	own := byName["share.auto.offset.reset"]
	if *own.Value != "latest" || own.Source != SourceDefault || len(own.Synonyms) != 1 || own.Synonyms[0].Name != "share.auto.offset.reset" {
		t.Fatalf("entry without broker synonym %+v", own)
	}
	if e := byName["streams.assignor.name"]; *e.Value != "sticky" || e.Synonyms[0].Name != "group.streams.assignors" {
		t.Fatalf("streams.assignor.name %+v", e)
	}
	if _, listed := byName["streams.task.offset.interval.ms"]; listed {
		t.Fatal("an internal key the group does not set is listed")
	}
}
