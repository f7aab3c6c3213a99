package metadata

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/twmb/franz-go/pkg/kerr"
)

// ConfigSchema is what the config operations need to know about config
// keys; internal/config implements it.
type ConfigSchema interface {
	// Validate checks the configs a resource would have after a change
	// (all explicitly set keys) and returns a reason to refuse them with
	// INVALID_CONFIG.
	Validate(res ConfigResource, configs map[string]string) error
	// IsList reports whether a key holds a comma-separated list, which
	// APPEND and SUBTRACT require.
	IsList(res ConfigResource, key string) bool
	// Default returns a key's default value; APPEND and SUBTRACT on an
	// unset key start from it.
	Default(res ConfigResource, key string) (string, bool)
}

// Config operations of IncrementalAlterConfigs (AlterConfigOp.OpType).
const (
	ConfigSet      int8 = 0
	ConfigDelete   int8 = 1
	ConfigAppend   int8 = 2
	ConfigSubtract int8 = 3
)

var configOpNames = map[int8]string{ConfigSet: "SET", ConfigDelete: "DELETE", ConfigAppend: "APPEND", ConfigSubtract: "SUBTRACT"}

// ConfigOp is one change of IncrementalAlterConfigs.
type ConfigOp struct {
	Key   string
	Op    int8
	Value *string
}

// creationConfigRecords returns the ConfigRecords of a new topic.
func (img *Image) creationConfigRecords(node Node, topic string, configs map[string]*string) ([]Record, *Error) {
	var nulls []string
	for _, key := range sortedKeys(configs) {
		if configs[key] == nil {
			nulls = append(nulls, key)
		}
	}
	if len(nulls) > 0 {
		return nil, opError(kerr.InvalidConfig, "Null value not supported for topic configs: "+strings.Join(nulls, ","))
	}
	res := ConfigResource{ConfigResourceTopic, topic}
	all := map[string]string{}
	var records []Record
	for _, key := range sortedKeys(configs) {
		v := *configs[key]
		all[key] = v
		records = append(records, &ConfigRecord{ResourceType: res.Type, ResourceName: topic, Name: key, Value: &v})
	}
	if e := validateConfigs(node, res, all); e != nil {
		return nil, e
	}
	return records, nil
}

// IncrementalAlterConfigs returns the ConfigRecords applying ops to one
// resource, as Kafka's ConfigurationControlManager does: a topic key whose
// value would not change produces no record; a broker key always does
// (brokers reload on it).
func (img *Image) IncrementalAlterConfigs(node Node, res ConfigResource, ops []ConfigOp) ([]Record, error) {
	if e := img.checkConfigResource(node, res); e != nil {
		return nil, e
	}
	current := img.configs[res]
	next := map[string]*string{}
	var order []string
	for _, op := range ops {
		if _, seen := next[op.Key]; !seen {
			order = append(order, op.Key)
			if v, ok := current[op.Key]; ok {
				next[op.Key] = &v
			} else {
				next[op.Key] = nil
			}
		}
		switch op.Op {
		case ConfigSet:
			if op.Value == nil {
				return nil, opError(kerr.InvalidRequest, "Null value not supported for : "+op.Key)
			}
			v := *op.Value
			next[op.Key] = &v
		case ConfigDelete:
			next[op.Key] = nil
		case ConfigAppend, ConfigSubtract:
			if node.Configs == nil || !node.Configs.IsList(res, op.Key) {
				return nil, opError(kerr.InvalidConfig, fmt.Sprintf("Can't %s to key %s because its type is not LIST.", configOpNames[op.Op], op.Key))
			}
			v := editList(node, res, next[op.Key], op)
			next[op.Key] = &v
		default:
			return nil, opError(kerr.InvalidRequest, fmt.Sprintf("Unknown alter configs operation %d", op.Op))
		}
	}
	var records []Record
	all := cloneConfigs(current)
	for _, key := range order {
		v := next[key]
		old, had := current[key]
		unchanged := v == nil && !had || v != nil && had && old == *v
		if unchanged && res.Type != ConfigResourceBroker {
			continue
		}
		if v == nil {
			delete(all, key)
		} else {
			all[key] = *v
		}
		records = append(records, &ConfigRecord{ResourceType: res.Type, ResourceName: res.Name, Name: key, Value: v})
	}
	if e := validateConfigs(node, res, all); e != nil {
		return nil, e
	}
	return append(records, img.clearElrRecords(records)...), nil
}

// clearElrRecords is ConfigurationControlManager.createClearElrRecordsAsNeeded:
// with eligible leader replicas enabled, each min.insync.replicas change
// clears the ELR it judged, of its topic or (a broker or cluster value) of
// every topic.
func (img *Image) clearElrRecords(records []Record) []Record {
	if img.features[FeatureELR] < 1 {
		return nil
	}
	var out []Record
	for _, r := range records {
		c, ok := r.(*ConfigRecord)
		if !ok || c.Name != minISRConfig {
			continue
		}
		if c.ResourceType == ConfigResourceTopic {
			out = append(out, &ClearElrRecord{TopicName: c.ResourceName})
		} else {
			out = append(out, &ClearElrRecord{})
		}
	}
	return out
}

// AlterConfigs returns the ConfigRecords replacing every config of a
// resource with configs, as the legacy AlterConfigs API does.
func (img *Image) AlterConfigs(node Node, res ConfigResource, configs map[string]string) ([]Record, error) {
	var ops []ConfigOp
	for _, key := range sortedKeys(configs) {
		v := configs[key]
		ops = append(ops, ConfigOp{Key: key, Op: ConfigSet, Value: &v})
	}
	for _, key := range sortedKeys(img.configs[res]) {
		if _, keep := configs[key]; !keep {
			ops = append(ops, ConfigOp{Key: key, Op: ConfigDelete})
		}
	}
	return img.IncrementalAlterConfigs(node, res, ops)
}

// checkConfigResource applies Kafka's ConfigResourceExistenceChecker.
func (img *Image) checkConfigResource(node Node, res ConfigResource) *Error {
	switch res.Type {
	case ConfigResourceTopic:
		if _, ok := img.topicsByName[res.Name]; !ok {
			return opError(kerr.UnknownTopicOrPartition, fmt.Sprintf("The topic '%s' does not exist.", res.Name))
		}
	case ConfigResourceBroker:
		if res.Name == "" {
			return nil // the cluster-wide default
		}
		id, err := strconv.ParseInt(res.Name, 10, 32)
		if err != nil {
			return opError(kerr.InvalidRequest, "Invalid broker name "+res.Name)
		}
		if _, ok := img.brokers[int32(id)]; !ok && int32(id) != node.ID {
			return opError(kerr.BrokerIDNotRegistered, fmt.Sprintf("No node with id %d found.", id))
		}
	case ConfigResourceGroup:
		if res.Name == "" {
			return opError(kerr.InvalidRequest, "Default group resources are not allowed.")
		}
	case ConfigResourceClientMetrics:
		if res.Name == "" {
			return opError(kerr.InvalidRequest, "Subscription name can't be empty")
		}
	default:
		return opError(kerr.InvalidRequest, fmt.Sprintf("Unsupported config resource type %d", res.Type))
	}
	return nil
}

func validateConfigs(node Node, res ConfigResource, all map[string]string) *Error {
	if node.Configs == nil {
		return nil
	}
	if err := node.Configs.Validate(res, all); err != nil {
		return opError(validationErrorCode(err), err.Error())
	}
	return nil
}

// validationErrorCode is the code a refused config answers: the one the
// validator names (a failed dynamic broker update is INVALID_REQUEST in
// Kafka, KAFKA-13609), else INVALID_CONFIG.
func validationErrorCode(err error) *kerr.Error {
	var coded interface{ KafkaErrorCode() int16 }
	if errors.As(err, &coded) {
		if ke, ok := kerr.ErrorForCode(coded.KafkaErrorCode()).(*kerr.Error); ok {
			return ke
		}
	}
	return kerr.InvalidConfig
}

// editList applies APPEND (add missing items) or SUBTRACT (remove the first
// occurrence of items) to a comma-separated list; an unset key starts from
// its default, as Kafka's getParts does.
func editList(node Node, res ConfigResource, current *string, op ConfigOp) string {
	var base string
	if current != nil {
		base = *current
	} else if d, ok := node.Configs.Default(res, op.Key); ok {
		base = d
	}
	var items []string
	for _, s := range strings.Split(base, ",") {
		if s != "" {
			items = append(items, s)
		}
	}
	arg := ""
	if op.Value != nil {
		arg = *op.Value
	}
	for _, a := range strings.Split(arg, ",") {
		i := -1
		for j, it := range items {
			if it == a {
				i = j
				break
			}
		}
		switch {
		case op.Op == ConfigAppend && i < 0:
			items = append(items, a)
		case op.Op == ConfigSubtract && i >= 0:
			items = append(items[:i], items[i+1:]...)
		}
	}
	return strings.Join(items, ",")
}

func cloneConfigs(m map[string]string) map[string]string {
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}
