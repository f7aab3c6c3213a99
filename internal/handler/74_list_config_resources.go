package handler

// ListConfigResources (key 74), versions 0–1 (KIP-1000, renamed from
// ListClientMetricsResources by KIP-1142; flexible from v0).
//
//	v0: the client-metrics subscriptions.
//	v1: resource_types picks the types; empty means every type Kafka 4.4
//	    lists: groups with configs, client-metrics subscriptions, this
//	    broker's logger, this broker, and every topic, in that order.
//
// A type Kafka does not list is UNSUPPORTED_VERSION with no resources.
// Within a type the names come in Kafka 4.4.0's order (measured): groups
// and client-metrics subscriptions as a Java HashMap of their names
// iterates, topics as the metadata image's hash map does, by ascending
// String.hashCode (config_order.go).

import (
	"context"
	"slices"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

func init() { register(74, 0, 1, (*Broker).handleListConfigResources) }

// listedConfigResourceTypes are the types ListConfigResources v1 lists,
// in the order Kafka answers them.
var listedConfigResourceTypes = []int8{resourceGroup, resourceClientMetrics, resourceBrokerLogger, resourceBroker, resourceTopic}

func (b *Broker) handleListConfigResources(_ context.Context, r *Request) Outcome {
	req := r.Body.(*kmsg.ListConfigResourcesRequest)
	resp := kmsg.NewPtrListConfigResourcesResponse()
	types := []int8{resourceClientMetrics}
	if r.Version() >= 1 {
		types = listedConfigResourceTypes
		if len(req.ResourceTypes) > 0 {
			for _, t := range req.ResourceTypes {
				if !slices.Contains(listedConfigResourceTypes, t) {
					resp.ErrorCode = kerr.UnsupportedVersion.Code
					return Ready(resp)
				}
			}
			types = slices.DeleteFunc(slices.Clone(listedConfigResourceTypes), func(t int8) bool { return !slices.Contains(req.ResourceTypes, t) })
		}
	}
	img := b.image()
	resp.ConfigResources = []kmsg.ListConfigResourcesResponseConfigResource{}
	add := func(t int8, name string) {
		res := kmsg.NewListConfigResourcesResponseConfigResource()
		res.Name, res.Type = name, t
		resp.ConfigResources = append(resp.ConfigResources, res)
	}
	for _, t := range types {
		switch t {
		case resourceGroup, resourceClientMetrics:
			names := img.ConfigResourceNames(t)
			sortHashMapNames(names)
			for _, name := range names {
				add(t, name)
			}
		case resourceBrokerLogger, resourceBroker:
			add(t, b.nodeIDString())
		case resourceTopic:
			var names []string
			for _, topic := range img.Topics() {
				names = append(names, topic.Name)
			}
			sortByJavaHash(names)
			for _, name := range names {
				add(t, name)
			}
		}
	}
	return Ready(resp)
}
