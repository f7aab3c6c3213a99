package handler

// Kafka 4.4.0 answers DescribeConfigs and ListConfigResources in the
// iteration order of the Java maps it builds them from, not sorted, and
// clients that print the answer (kafka-configs --describe --all) show that
// order. Measured against a 4.4.0 broker, every entry list of a topic (37
// configs), a broker (350) and a group (21) is a java.util.HashMap's order:
// by bucket of the name's spread String.hashCode in a table sized for
// every config Kafka describes, and within a bucket in the order the
// ConfigDef defines the keys (ConfigDef.parse puts them in that order).
// The kafkaconfigs/*.txt files list the keys Kafka 4.4.0 describes for each
// resource type, in definition order (LogConfig.configKeys(),
// AbstractKafkaConfig.CONFIG_DEF, GroupConfig.CONFIG_DEF, printed from the
// 4.4.0 jars and restricted to what DescribeConfigs answered).

import (
	_ "embed"
	"slices"
	"strings"

	"github.com/karst-broker/karst/internal/config"
	"github.com/karst-broker/karst/internal/javahash"
)

var (
	//go:embed kafkaconfigs/topic.txt
	kafkaTopicConfigs string
	//go:embed kafkaconfigs/broker.txt
	kafkaBrokerConfigs string
	//go:embed kafkaconfigs/group.txt
	kafkaGroupConfigs string
)

// configDefOrder is one resource type's keys in Kafka's definition order.
type configDefOrder struct {
	rank map[string]int
}

func newConfigDefOrder(list string) configDefOrder {
	o := configDefOrder{rank: map[string]int{}}
	for _, name := range strings.Fields(list) {
		o.rank[name] = len(o.rank)
	}
	return o
}

var (
	topicConfigOrder  = newConfigDefOrder(kafkaTopicConfigs)
	brokerConfigOrder = newConfigDefOrder(kafkaBrokerConfigs)
	groupConfigOrder  = newConfigDefOrder(kafkaGroupConfigs)
	// plainMapOrder is a HashMap holding just the entries described, ties
	// by name: Kafka's dynamic broker defaults and client-metrics configs.
	plainMapOrder = newConfigDefOrder("")
)

// sortConfigEntries puts the configs of one DescribeConfigs resource in
// Kafka's order.
func sortConfigEntries(resType int8, name string, entries []config.Entry) {
	switch {
	case resType == resourceTopic:
		topicConfigOrder.sort(entries)
	case resType == resourceBroker && name != "":
		brokerConfigOrder.sort(entries)
	case resType == resourceGroup:
		groupConfigOrder.sort(entries)
	default:
		plainMapOrder.sort(entries)
	}
}

// sort puts entries in the order Kafka answers them. A key Kafka does not
// define (Karst's own) comes after Kafka's keys of its bucket, by name, and
// adds to the map's size as it would to Kafka's.
func (o configDefOrder) sort(entries []config.Entry) {
	extra := 0
	for _, e := range entries {
		if _, ok := o.rank[e.Name]; !ok {
			extra++
		}
	}
	slices.SortFunc(entries, func(a, b config.Entry) int {
		ra, aok := o.rank[a.Name]
		rb, bok := o.rank[b.Name]
		switch {
		case aok && bok:
			return ra - rb
		case aok != bok:
			if aok {
				return -1
			}
			return 1
		}
		return strings.Compare(a.Name, b.Name)
	})
	javahash.SortHashMapOrder(entries, func(e config.Entry) string { return e.Name }, javahash.HashMapTable(len(o.rank)+extra))
}

// sortHashMapNames orders names as a HashMap holding just them iterates:
// Kafka's dynamic broker defaults, groups with configs and client-metrics
// subscriptions. Kafka's ties follow insertion order, which the metadata
// image does not keep; Karst breaks them by name.
func sortHashMapNames(names []string) {
	slices.Sort(names)
	javahash.SortHashMapOrder(names, func(s string) string { return s }, javahash.HashMapTable(len(names)))
}

// sortByJavaHash orders topic names as Kafka's metadata image iterates
// them (a persistent hash map keyed by String.hashCode, ascending as a
// signed int).
func sortByJavaHash(names []string) {
	slices.SortFunc(names, func(a, b string) int {
		ha, hb := javahash.String(a), javahash.String(b)
		if ha != hb {
			if ha < hb {
				return -1
			}
			return 1
		}
		return strings.Compare(a, b)
	})
}
