package handler

// IncrementalAlterConfigs (key 44), versions 0–1.
//
//	v0: per resource, SET / DELETE / APPEND / SUBTRACT operations; validate_only.
//	v1: flexible.
//
// TOPIC and BROKER resources are served. A BROKER resource is the cluster
// default ("") or this node's id; its keys are Kafka's dynamic broker
// configs, checked with Kafka's rules (read-only keys, per-broker-only keys,
// listener prefixes) and messages. A topic's resulting overrides are checked
// as Kafka's controller checks them (unknown names, values, cross-key
// rules). APPEND and SUBTRACT apply to LIST keys only and start from the
// key's default when it is unset. The changes are stored as ConfigRecords
// in the cluster metadata, exactly the records Kafka writes: none for a
// topic key whose value does not change, one per named key for a broker.
//
// As in Kafka: a resource named twice is INVALID_REQUEST ("Duplicate
// resource."), a key named twice in one resource is INVALID_REQUEST, and an
// unknown resource type is UNSUPPORTED_VERSION. GROUP resources take Kafka
// 4.4's group config keys, checked as GroupConfig.validate checks them
// (bounds from the broker's group.* configs); the default group ("") is
// INVALID_REQUEST. BROKER_LOGGER resources change log levels (see
// broker_logger_configs.go). CLIENT_METRICS resources are KIP-714
// subscriptions (metrics, interval.ms, match), checked as
// ClientMetricsConfigs.validate.

import (
	"context"
	"fmt"
	"maps"
	"slices"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/karst-broker/karst/internal/config"
	"github.com/karst-broker/karst/internal/metadata"
)

func init() { register(44, 0, 1, (*Broker).handleIncrementalAlterConfigs) }

// Config resource types (ConfigResource.Type).
const (
	resourceTopic         = 2
	resourceBroker        = 4
	resourceBrokerLogger  = 8
	resourceClientMetrics = 16
	resourceGroup         = 32
)

func (b *Broker) handleIncrementalAlterConfigs(_ context.Context, r *Request) Outcome {
	req := r.Body.(*kmsg.IncrementalAlterConfigsRequest)
	resp := kmsg.NewPtrIncrementalAlterConfigsResponse()
	dups := duplicateResources(len(req.Resources), func(i int) (int8, string) {
		return int8(req.Resources[i].ResourceType), req.Resources[i].ResourceName
	})
	for i, rr := range req.Resources {
		out := kmsg.NewIncrementalAlterConfigsResponseResource()
		out.ResourceType, out.ResourceName = rr.ResourceType, rr.ResourceName
		if dups[i] == dupLater {
			continue
		}
		var changes []config.ConfigChange
		for _, c := range rr.Configs {
			changes = append(changes, config.ConfigChange{Name: c.Name, Op: config.AlterOp(c.Op), Value: c.Value})
		}
		out.ErrorCode, out.ErrorMessage = b.alterConfigResource(int8(rr.ResourceType), rr.ResourceName, changes, false, req.ValidateOnly, dups[i] == dupFirst)
		resp.Resources = append(resp.Resources, out)
	}
	return Ready(resp)
}

// How a resource repeats within one request.
const (
	dupNone  = iota
	dupFirst // the first of several: answered INVALID_REQUEST
	dupLater // a repeat: not answered again
)

func duplicateResources(n int, key func(int) (int8, string)) []int {
	type res struct {
		t    int8
		name string
	}
	first := map[res]int{}
	out := make([]int, n)
	for i := range n {
		t, name := key(i)
		if j, seen := first[res{t, name}]; seen {
			out[j], out[i] = dupFirst, dupLater
			continue
		}
		first[res{t, name}] = i
	}
	return out
}

// alterConfigResource applies changes to one resource, replacing all its
// configs when replace is set (legacy AlterConfigs), and returns the
// resource's error code and message.
func (b *Broker) alterConfigResource(resType int8, name string, changes []config.ConfigChange, replace, validateOnly, duplicate bool) (int16, *string) {
	fail := func(code int16, msg string) (int16, *string) { return code, &msg }
	switch {
	case duplicate:
		return fail(kerr.InvalidRequest.Code, "Duplicate resource.")
	case resType == resourceBrokerLogger && replace:
		return fail(kerr.InvalidRequest.Code, fmt.Sprintf("Unknown resource type %d", resType)) // legacy AlterConfigs
	case resType == resourceBrokerLogger:
		return b.alterBrokerLoggers(name, changes, validateOnly)
	case resType == resourceGroup && name == "":
		return fail(kerr.InvalidRequest.Code, "Default group resources are not allowed.")
	case resType == resourceClientMetrics && name == "":
		return fail(kerr.InvalidRequest.Code, "Subscription name can't be empty")
	case resType != resourceTopic && resType != resourceBroker && resType != resourceGroup && resType != resourceClientMetrics:
		return fail(kerr.UnsupportedVersion.Code, fmt.Sprintf("Unknown resource type %d.", resType))
	}
	img := b.image()
	cfg, err := b.brokerConfig(img)
	if err != nil {
		return configErrorResult(err)
	}
	res := metadata.ConfigResource{Type: resType, Name: name}
	current := img.Configs(res)
	base := current
	if replace {
		base = nil
	}
	var next map[string]string
	switch resType {
	case resourceClientMetrics:
		next, err = config.ApplyClientMetricsChanges(base, changes)
		if err == nil {
			err = config.ValidateClientMetricsConfigs(name, next)
		}
	case resourceGroup:
		next, err = config.ApplyGroupChanges(base, changes)
		if err == nil {
			err = cfg.ValidateGroupConfigs(next)
		}
	case resourceTopic:
		next, err = config.ApplyTopicChanges(base, changes)
		if err == nil {
			if _, exists := img.Topic(name); !exists {
				return fail(kerr.UnknownTopicOrPartition.Code, fmt.Sprintf("The topic '%s' does not exist.", name))
			}
			err = cfg.ValidateTopicConfigs(stringPointers(next))
		}
	default:
		var perBroker bool
		perBroker, err = cfg.CheckBrokerResource(name)
		if err == nil {
			next, err = config.ApplyBrokerChanges(base, changes)
		}
		if err == nil {
			err = cfg.ValidateDynamicConfigs(perBroker, next)
		}
	}
	if err != nil {
		return configErrorResult(err)
	}
	ops := configOps(current, next, changes, replace)
	if validateOnly {
		_, err = img.IncrementalAlterConfigs(b.opts.Metadata.Node(), res, ops)
	} else {
		err = b.opts.Metadata.IncrementalAlterConfigs(res, ops)
	}
	if err != nil {
		return configErrorResult(err)
	}
	if !validateOnly {
		b.logger.Info("altered configs", "resource_type", kmsg.ConfigResourceType(resType).String(), "resource", name, "keys", len(ops))
	}
	return 0, nil
}

// configOps turns the outcome of a change into SET and DELETE operations:
// one per key the request named, in its order, and for a replacement also
// the deletion of every key it dropped. APPEND and SUBTRACT arrive as the
// SET of the list they produced, so the metadata layer needs no schema.
func configOps(current, next map[string]string, changes []config.ConfigChange, replace bool) []metadata.ConfigOp {
	var ops []metadata.ConfigOp
	named := map[string]bool{}
	op := func(key string) {
		if v, ok := next[key]; ok {
			ops = append(ops, metadata.ConfigOp{Key: key, Op: metadata.ConfigSet, Value: &v})
		} else {
			ops = append(ops, metadata.ConfigOp{Key: key, Op: metadata.ConfigDelete})
		}
	}
	for _, c := range changes {
		if !named[c.Name] {
			named[c.Name] = true
			op(c.Name)
		}
	}
	if replace {
		for _, key := range slices.Sorted(maps.Keys(current)) {
			if !named[key] {
				op(key)
			}
		}
	}
	return ops
}

func stringPointers(m map[string]string) map[string]*string {
	out := make(map[string]*string, len(m))
	for k, v := range m {
		out[k] = &v
	}
	return out
}
