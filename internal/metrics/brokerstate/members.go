package brokerstate

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/karst-broker/karst/internal/group"
)

// GroupDescriber is the optional part of Groups that the members gauge
// reads (*group.Coordinator has it): classic groups through Describe,
// KIP-848 consumer groups through DescribeConsumerGroups.
type GroupDescriber interface {
	Describe(ids []string) []group.Description
	DescribeConsumerGroups(ids []string) []group.ConsumerGroupDescription
}

var descGroupMembers = prometheus.NewDesc("kafka_consumergroup_members",
	"Members of a consumer group.", []string{"consumergroup"}, nil)

// collectMembers exports each listed group's member count.
func collectMembers(ch chan<- prometheus.Metric, d GroupDescriber, listed []group.Listing) {
	var classic, consumer []string
	for _, l := range listed {
		if l.Type == "consumer" {
			consumer = append(consumer, l.GroupID)
		} else {
			classic = append(classic, l.GroupID)
		}
	}
	if len(classic) > 0 {
		for _, g := range d.Describe(classic) {
			if g.Err == nil {
				gauge(ch, descGroupMembers, float64(len(g.Members)), g.GroupID)
			}
		}
	}
	if len(consumer) > 0 {
		for _, g := range d.DescribeConsumerGroups(consumer) {
			if g.Err == nil {
				gauge(ch, descGroupMembers, float64(len(g.Members)), g.GroupID)
			}
		}
	}
}
