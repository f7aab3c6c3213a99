package config

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
)

// SourceGroup is DescribeConfigs' GROUP_CONFIG source; SourceClientMetrics
// is CLIENT_METRICS_CONFIG.
const (
	SourceClientMetrics Source = 7
	SourceGroup         Source = 8
)

// kafkaGroupBrokerDefaults are Kafka 4.4's defaults of the group.* broker
// keys that bound or default group configs but that Karst's broker key
// table does not define (Karst runs no share or streams groups yet, so it
// reads them nowhere else). Keys Karst defines are read from the broker
// config, so server.properties changes them.
var kafkaGroupBrokerDefaults = map[string]string{
	"group.consumer.assignment.interval.ms":      "1000",
	"group.consumer.min.assignment.interval.ms":  "0",
	"group.consumer.max.assignment.interval.ms":  "15000",
	"group.consumer.assignor.offload.enable":     "true",
	"group.share.assignment.interval.ms":         "1000",
	"group.share.min.assignment.interval.ms":     "0",
	"group.share.max.assignment.interval.ms":     "15000",
	"group.share.assignor.offload.enable":        "true",
	"group.share.min.record.lock.duration.ms":    "15000",
	"group.share.max.record.lock.duration.ms":    "60000",
	"group.share.min.delivery.count.limit":       "2",
	"group.share.max.delivery.count.limit":       "10",
	"group.share.partition.max.record.locks":     "2000",
	"group.share.min.partition.max.record.locks": "100",
	"group.share.max.partition.max.record.locks": "4000",
	"group.streams.session.timeout.ms":           "45000",
	"group.streams.min.session.timeout.ms":       "45000",
	"group.streams.max.session.timeout.ms":       "60000",
	"group.streams.heartbeat.interval.ms":        "5000",
	"group.streams.min.heartbeat.interval.ms":    "5000",
	"group.streams.max.heartbeat.interval.ms":    "15000",
	"group.streams.num.standby.replicas":         "0",
	"group.streams.max.standby.replicas":         "2",
	"group.streams.initial.rebalance.delay.ms":   "3000",
	"group.streams.assignment.interval.ms":       "1000",
	"group.streams.min.assignment.interval.ms":   "0",
	"group.streams.max.assignment.interval.ms":   "15000",
	"group.streams.assignor.offload.enable":      "true",
	"group.streams.task.offset.interval.ms":      "60000",
	"group.streams.min.task.offset.interval.ms":  "15000",
	"group.streams.num.warmup.replicas":          "2",
	"group.streams.max.warmup.replicas":          "20",
	"group.streams.rack.aware.assignment.tags":   "",
	"group.streams.acceptable.recovery.lag":      "10000",
	"group.streams.assignors":                    "sticky",
}

// groupBrokerValue returns a group.* broker key's effective value as text
// and its source.
func (b *Broker) groupBrokerValue(name string) (string, Source) {
	if _, known := brokerKeys.byName[name]; known && b != nil {
		if syn := b.configSynonyms(name, []string{name}, false); len(syn) > 0 && syn[0].Value != nil {
			return *syn[0].Value, syn[0].Source
		}
	}
	return kafkaGroupBrokerDefaults[name], SourceDefault
}

func (b *Broker) groupBrokerInt(name string) int64 {
	v, _ := b.groupBrokerValue(name)
	var n int64
	fmt.Sscan(v, &n)
	return n
}

// ApplyGroupChanges applies IncrementalAlterConfigs operations to a
// group's configs and returns the new complete set (validate it with
// ValidateGroupConfigs).
func ApplyGroupChanges(current map[string]string, changes []ConfigChange) (map[string]string, error) {
	return applyChanges(current, changes, func(n string) (*Key, bool) {
		k, ok := groupKeys.byName[n]
		return k, ok
	})
}

// ValidateGroupConfigs checks a group's complete set configs as Kafka
// 4.4's GroupConfig.validate does: names, then each value's type and
// validator, then the bounds the broker's group.* configs set, then
// session timeouts above heartbeat intervals and the DLQ topic name.
func (b *Broker) ValidateGroupConfigs(configs map[string]string) error {
	for _, name := range slices.Sorted(maps.Keys(configs)) {
		if _, ok := groupKeys.byName[name]; !ok {
			return &RequestError{ErrInvalidConfig, "Unknown group config name: " + name}
		}
	}
	values := map[string]any{}
	for _, k := range groupKeyList {
		raw, ok := configs[k.Name]
		if !ok {
			continue
		}
		v, err := k.parse(raw)
		if err != nil {
			return &RequestError{ErrInvalidConfig, err.Error()}
		}
		values[k.Name] = v
	}
	if err := b.validateGroupValues(values); err != nil {
		return &RequestError{ErrInvalidConfig, err.Error()}
	}
	return nil
}

func (b *Broker) validateGroupValues(values map[string]any) error {
	intOf := func(name string) (int64, bool) {
		v, ok := values[name]
		if !ok {
			return 0, false
		}
		n, _ := numeric(v)
		return int64(n), true
	}
	inRange := func(name, minKey, maxKey string) error {
		n, ok := intOf(name)
		lo, hi := b.groupBrokerInt(minKey), b.groupBrokerInt(maxKey)
		if ok && (n < lo || n > hi) {
			return groupRule("%s must be in the range %d to %d inclusive.", name, lo, hi)
		}
		return nil
	}
	atMost := func(name, maxKey string) error {
		if n, ok := intOf(name); ok && n > b.groupBrokerInt(maxKey) {
			return groupRule("%s must be less than or equal to %d", name, b.groupBrokerInt(maxKey))
		}
		return nil
	}
	atLeastBroker := func(name, minKey string) error {
		if n, ok := intOf(name); ok && n < b.groupBrokerInt(minKey) {
			return groupRule("%s must be greater than or equal to %d", name, b.groupBrokerInt(minKey))
		}
		return nil
	}
	checks := []func() error{
		func() error {
			return inRange("consumer.heartbeat.interval.ms", "group.consumer.min.heartbeat.interval.ms", "group.consumer.max.heartbeat.interval.ms")
		},
		func() error {
			return inRange("consumer.session.timeout.ms", "group.consumer.min.session.timeout.ms", "group.consumer.max.session.timeout.ms")
		},
		func() error {
			return inRange("consumer.assignment.interval.ms", "group.consumer.min.assignment.interval.ms", "group.consumer.max.assignment.interval.ms")
		},
		func() error {
			return inRange("share.heartbeat.interval.ms", "group.share.min.heartbeat.interval.ms", "group.share.max.heartbeat.interval.ms")
		},
		func() error {
			return inRange("share.session.timeout.ms", "group.share.min.session.timeout.ms", "group.share.max.session.timeout.ms")
		},
		func() error {
			return inRange("share.record.lock.duration.ms", "group.share.min.record.lock.duration.ms", "group.share.max.record.lock.duration.ms")
		},
		func() error {
			return inRange("share.delivery.count.limit", "group.share.min.delivery.count.limit", "group.share.max.delivery.count.limit")
		},
		func() error {
			return inRange("share.partition.max.record.locks", "group.share.min.partition.max.record.locks", "group.share.max.partition.max.record.locks")
		},
		func() error {
			return inRange("share.assignment.interval.ms", "group.share.min.assignment.interval.ms", "group.share.max.assignment.interval.ms")
		},
		func() error {
			return inRange("streams.heartbeat.interval.ms", "group.streams.min.heartbeat.interval.ms", "group.streams.max.heartbeat.interval.ms")
		},
		func() error {
			return inRange("streams.session.timeout.ms", "group.streams.min.session.timeout.ms", "group.streams.max.session.timeout.ms")
		},
		func() error { return atMost("streams.num.standby.replicas", "group.streams.max.standby.replicas") },
		func() error {
			return inRange("streams.assignment.interval.ms", "group.streams.min.assignment.interval.ms", "group.streams.max.assignment.interval.ms")
		},
		func() error {
			return atLeastBroker("streams.task.offset.interval.ms", "group.streams.min.task.offset.interval.ms")
		},
		func() error { return atMost("streams.num.warmup.replicas", "group.streams.max.warmup.replicas") },
		func() error {
			name, ok := values["streams.assignor.name"].(string)
			registered, _ := b.groupBrokerValue("group.streams.assignors")
			names := strings.Split(registered, ",")
			if ok && !slices.Contains(names, name) {
				return groupRule("streams.assignor.name '%s' is not a registered task assignor. Registered assignors are: [%s].", name, strings.Join(names, ", "))
			}
			return nil
		},
		func() error { return b.sessionAboveHeartbeat(values, "consumer") },
		func() error { return b.sessionAboveHeartbeat(values, "share") },
		func() error { return b.sessionAboveHeartbeat(values, "streams") },
		func() error {
			if dlq, _ := values["errors.deadletterqueue.topic.name"].(string); strings.HasPrefix(dlq, "__") {
				return groupRule("errors.deadletterqueue.topic.name: DLQ topic name must not start with '__'")
			}
			return nil
		},
	}
	for _, check := range checks {
		if err := check(); err != nil {
			return err
		}
	}
	return nil
}

// sessionAboveHeartbeat is GroupConfig.validateSessionExceedsHeartbeat:
// when either is set, the session timeout (set or the broker's) must
// exceed the heartbeat interval (set or the broker's).
func (b *Broker) sessionAboveHeartbeat(values map[string]any, kind string) error {
	sessionKey, heartbeatKey := kind+".session.timeout.ms", kind+".heartbeat.interval.ms"
	sv, sessionSet := values[sessionKey]
	hv, heartbeatSet := values[heartbeatKey]
	if !sessionSet && !heartbeatSet {
		return nil
	}
	session, heartbeat := b.groupBrokerInt("group."+sessionKey), b.groupBrokerInt("group."+heartbeatKey)
	if sessionSet {
		n, _ := numeric(sv)
		session = int64(n)
	}
	if heartbeatSet {
		n, _ := numeric(hv)
		heartbeat = int64(n)
	}
	if session <= heartbeat {
		return groupRule("%s must be greater than %s", sessionKey, heartbeatKey)
	}
	return nil
}

// GroupInt returns a group's effective value of an INT group config: the
// group's own, else its broker synonym's.
func (b *Broker) GroupInt(groupConfigs map[string]string, name string) int64 {
	if raw, ok := groupConfigs[name]; ok {
		if k := groupKeys.byName[name]; k != nil {
			if v, err := k.parse(raw); err == nil {
				n, _ := numeric(v)
				return int64(n)
			}
		}
	}
	if syn := groupSynonyms[name]; syn != "" {
		return b.groupBrokerInt(syn)
	}
	n, _ := numeric(groupKeys.defaults[name])
	return int64(n)
}

// DescribeGroup is DescribeConfigs for a GROUP resource: every group key
// that is not internal, and internal ones the group sets, each with the
// group's value (GROUP_CONFIG) or its broker synonym's, and the synonyms
// Kafka lists: the group's value, then the broker key (or, for keys with
// no broker synonym, the key's own default).
func (b *Broker) DescribeGroup(groupConfigs map[string]string, keys []string) []Entry {
	want := wanted(keys)
	var out []Entry
	for _, k := range groupKeyList {
		set, isSet := groupConfigs[k.Name]
		if !want(k.Name) || k.Internal && !isSet {
			continue
		}
		fallback := DescribedSynonym{Name: k.Name, Source: SourceDefault}
		if k.HasDefault {
			fallback.Value = strPtr(k.Default)
		}
		if k.BrokerSynonym != "" {
			v, src := b.groupBrokerValue(k.BrokerSynonym)
			if k.Type != TypeList {
				// A list broker key (group.streams.assignors) defaults a
				// single name: the first.
				v, _, _ = strings.Cut(v, ",")
			}
			fallback = DescribedSynonym{Name: k.BrokerSynonym, Value: strPtr(v), Source: src}
		}
		e := Entry{Name: k.Name, Type: k.Type, Documentation: k.Doc, Value: fallback.Value, Source: fallback.Source,
			Synonyms: []DescribedSynonym{fallback}}
		if isSet {
			e.Value, e.Source = strPtr(set), SourceGroup
			e.Synonyms = []DescribedSynonym{{Name: k.Name, Value: strPtr(set), Source: SourceGroup}, fallback}
		}
		out = append(out, e)
	}
	return out
}

// shareAutoOffsetReset is ShareGroupAutoOffsetResetStrategy's validator:
// latest, earliest, or by_duration: and a non-negative ISO-8601 duration.
var shareAutoOffsetReset Validator = funcValidator{
	fn: func(key, raw string, v any) error {
		s, _ := v.(string)
		if s == "latest" || s == "earliest" {
			return nil
		}
		if d, ok := strings.CutPrefix(s, "by_duration:"); ok && isoDuration.MatchString(d) && strings.ContainsAny(d, "0123456789") && !strings.Contains(d, "-") {
			return nil
		}
		return invalid(key, s, "Invalid value `"+s+"` for configuration "+key+". The value must be either 'earliest', 'latest' or of the format 'by_duration:<PnDTnHnMn.nS>'.")
	},
	valid: "[latest, earliest, by_duration:PnDTnHnMn.nS]",
}

// isoDuration is the text java.time.Duration.parse accepts.
var isoDuration = regexp.MustCompile(`^(?i)[-+]?P(?:[-+]?[0-9]+D)?(?:T(?:[-+]?[0-9]+H)?(?:[-+]?[0-9]+M)?(?:[-+]?[0-9]+(?:[.,][0-9]{0,9})?S)?)?$`)

// streamsRackTags rejects a tag key listed twice.
var streamsRackTags Validator = funcValidator{
	fn: func(key, raw string, v any) error {
		tags, _ := v.([]string)
		for i, t := range tags {
			if slices.Contains(tags[:i], t) {
				return &ConfigError{Key: key, Rule: key + " must not contain duplicate tag keys.", NoValue: true}
			}
		}
		return nil
	},
}

// groupRule is a group config refused by a rule across keys: Kafka's
// InvalidConfigurationException carries the message alone.
func groupRule(format string, args ...any) error {
	return &ConfigError{Rule: fmt.Sprintf(format, args...), NoValue: true}
}
