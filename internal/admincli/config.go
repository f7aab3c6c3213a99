package admincli

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

const configSummary = `Read and change configs of topics, brokers, broker loggers and groups, as
kafka-configs does (DescribeConfigs and IncrementalAlterConfigs).

TYPE is topic, broker, broker-logger or group; NAME is the topic, the broker id
(an empty name, "", is the cluster-wide broker default) or the group.`

func runConfig(ctx context.Context, args []string, s Streams) error {
	return dispatch(ctx, "config", configSummary, []subcommand{
		{"get", "print a resource's configs (set ones; --all for every config)", configGet},
		{"set", "set KEY=VALUE configs and remove others (--delete KEY)", configSet},
	}, args, s)
}

// resourceTypes are the TYPE words and the protocol's resource types.
var resourceTypes = map[string]kmsg.ConfigResourceType{
	"topic":         kmsg.ConfigResourceTypeTopic,
	"broker":        kmsg.ConfigResourceTypeBroker,
	"broker-logger": kmsg.ConfigResourceTypeBrokerLogger,
	"group":         kmsg.ConfigResourceTypeGroupConfig,
}

func resourceType(f *flags, word string) (kmsg.ConfigResourceType, error) {
	kind, ok := resourceTypes[word]
	if !ok {
		return 0, usagef(f.help(), "unknown TYPE %q: want topic, broker, broker-logger or group", word)
	}
	return kind, nil
}

// configEntry is one config of a described resource.
type configEntry struct {
	Key       string
	Value     *string
	Sensitive bool
	Source    kmsg.ConfigSource
}

// ownSources are, per resource type, the sources of values set on such a
// resource, which config get prints without --all (kafka-configs
// --describe prints the same).
var ownSources = map[kmsg.ConfigResourceType][]kmsg.ConfigSource{
	kmsg.ConfigResourceTypeTopic:        {kmsg.ConfigSourceDynamicTopicConfig},
	kmsg.ConfigResourceTypeBroker:       {kmsg.ConfigSourceDynamicBrokerConfig, kmsg.ConfigSourceDynamicDefaultBrokerConfig},
	kmsg.ConfigResourceTypeBrokerLogger: {kmsg.ConfigSourceDynamicBrokerLoggerConfig},
	kmsg.ConfigResourceTypeGroupConfig:  {kmsg.ConfigSourceGroupConfig},
}

// isSetOn is true for a value given to a resource of the kind (or, for a
// broker, to the cluster), not a built-in default or a static file's.
func (c configEntry) isSetOn(kind kmsg.ConfigResourceType) bool {
	return slices.Contains(ownSources[kind], c.Source)
}

func (c configEntry) value() string {
	switch {
	case c.Sensitive:
		return "(sensitive)"
	case c.Value == nil:
		return "(null)"
	}
	return *c.Value
}

// describeConfigs reads one resource's configs, sorted by key.
func (a *admin) describeConfigs(kind kmsg.ConfigResourceType, name string) ([]configEntry, error) {
	req := kmsg.NewPtrDescribeConfigsRequest()
	res := kmsg.NewDescribeConfigsRequestResource()
	res.ResourceType, res.ResourceName = kind, name
	req.Resources = append(req.Resources, res)
	resp, err := req.RequestWith(a.ctx, a.raw)
	if err != nil {
		return nil, err
	}
	what := fmt.Sprintf("describing configs of %s %q", kind, name)
	if len(resp.Resources) != 1 {
		return nil, fmt.Errorf("%s: the broker answered for %d resources", what, len(resp.Resources))
	}
	r := resp.Resources[0]
	if err := resultErr(what, kerr.ErrorForCode(r.ErrorCode), deref(r.ErrorMessage)); err != nil {
		return nil, err
	}
	entries := make([]configEntry, 0, len(r.Configs))
	for _, c := range r.Configs {
		entries = append(entries, configEntry{Key: c.Name, Value: c.Value, Sensitive: c.IsSensitive, Source: c.Source})
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].Key < entries[j].Key })
	return entries, nil
}

// configChange is a set (value non-nil) or a removal of one key.
type configChange struct {
	key   string
	value *string
}

func (c configChange) String() string {
	if c.value == nil {
		return c.key + " removed"
	}
	return c.key + "=" + *c.value
}

// configChanges turns --config KEY=VALUE and --delete KEY flags into
// changes, sets first, each group sorted by key.
func configChanges(set, remove []string) ([]configChange, error) {
	values, keys, err := keyValues(set)
	if err != nil {
		return nil, err
	}
	var changes []configChange
	for _, k := range keys {
		v := values[k]
		changes = append(changes, configChange{key: k, value: &v})
	}
	sort.Strings(remove)
	for _, k := range remove {
		if _, both := values[k]; both {
			return nil, fmt.Errorf("%s is both set and removed", k)
		}
		changes = append(changes, configChange{key: k})
	}
	return changes, nil
}

// alterConfigs applies the changes to each named resource with
// IncrementalAlterConfigs and prints one line per resource changed.
func (a *admin) alterConfigs(s Streams, kind kmsg.ConfigResourceType, names []string, changes []configChange) error {
	req := kmsg.NewPtrIncrementalAlterConfigsRequest()
	for _, name := range names {
		res := kmsg.NewIncrementalAlterConfigsRequestResource()
		res.ResourceType, res.ResourceName = kind, name
		for _, c := range changes {
			cfg := kmsg.NewIncrementalAlterConfigsRequestResourceConfig()
			cfg.Name, cfg.Value = c.key, c.value
			cfg.Op = kmsg.IncrementalAlterConfigOpSet
			if c.value == nil {
				cfg.Op = kmsg.IncrementalAlterConfigOpDelete
			}
			res.Configs = append(res.Configs, cfg)
		}
		req.Resources = append(req.Resources, res)
	}
	resp, err := req.RequestWith(a.ctx, a.raw)
	if err != nil {
		return err
	}
	fails := failures{err: s.Err}
	summary := make([]string, len(changes))
	for i, c := range changes {
		summary[i] = c.String()
	}
	for _, r := range resp.Resources {
		what := fmt.Sprintf("%s %q", strings.ToLower(r.ResourceType.String()), r.ResourceName)
		if err := kerr.ErrorForCode(r.ErrorCode); err != nil {
			fails.add(resultErr("altering configs of "+what, err, deref(r.ErrorMessage)))
			continue
		}
		fmt.Fprintf(s.Out, "updated %s: %s\n", what, strings.Join(summary, ", "))
	}
	return fails.result()
}

func configGet(ctx context.Context, args []string, s Streams) error {
	f := newFlags(s, "config get", "TYPE NAME [--all]",
		"Print the configs set on the resource (for a broker, also those set cluster-wide);\n--all adds every other value with its source. Sensitive values are not shown.")
	var conn connection
	conn.register(f)
	all := f.Bool("all", false, "print every config with its source, defaults included")
	rest, err := f.parse(args)
	if err != nil {
		return err
	}
	if err := f.exactly(rest, 2, "TYPE NAME"); err != nil {
		return err
	}
	kind, err := resourceType(f, rest[0])
	if err != nil {
		return err
	}
	adm, done, err := conn.connectAdmin(ctx, s)
	if err != nil {
		return err
	}
	defer done()
	entries, err := adm.describeConfigs(kind, rest[1])
	if err != nil {
		return err
	}
	t := newTable(s.Out, "KEY", "VALUE", "SOURCE")
	for _, c := range entries {
		if *all || c.isSetOn(kind) {
			t.row(c.Key, c.value(), c.Source)
		}
	}
	t.flush()
	return nil
}

func configSet(ctx context.Context, args []string, s Streams) error {
	f := newFlags(s, "config set", "TYPE NAME [KEY=VALUE]... [--delete KEY]...",
		"Set configs of the resource and remove others (back to their defaults). Configs not\nnamed keep their values.")
	var conn connection
	conn.register(f)
	var remove repeated
	f.Var(&remove, "delete", "remove config `KEY` from the resource (repeatable)")
	rest, err := f.parse(args)
	if err != nil {
		return err
	}
	if len(rest) < 2 {
		return usagef(f.help(), "want TYPE NAME and configs")
	}
	kind, err := resourceType(f, rest[0])
	if err != nil {
		return err
	}
	changes, err := configChanges(rest[2:], remove)
	if err != nil {
		return usageError{err: err, help: f.help()}
	}
	if len(changes) == 0 {
		return usagef(f.help(), "nothing to change: give KEY=VALUE or --delete KEY")
	}
	adm, done, err := conn.connectAdmin(ctx, s)
	if err != nil {
		return err
	}
	defer done()
	return adm.alterConfigs(s, kind, []string{rest[1]}, changes)
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
