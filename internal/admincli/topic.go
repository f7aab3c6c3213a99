package admincli

import (
	"context"
	"encoding/base64"
	"fmt"
	"slices"

	"github.com/twmb/franz-go/pkg/kmsg"
)

const topicSummary = "Manage topics: create, list, describe, alter (partitions, configs), delete."

func runTopic(ctx context.Context, args []string, s Streams) error {
	return dispatch(ctx, "topic", topicSummary, []subcommand{
		{"create", "create topics with partitions, replication factor and configs", topicCreate},
		{"list", "list topics with their partition and replica counts", topicList},
		{"describe", "show topics' partitions, leaders, offsets and non-default configs", topicDescribe},
		{"alter", "add partitions or change a topic's configs", topicAlter},
		{"delete", "delete topics", topicDelete},
	}, args, s)
}

func topicCreate(ctx context.Context, args []string, s Streams) error {
	f := newFlags(s, "topic create", "TOPIC... [--partitions N] [--replication-factor N] [--config KEY=VALUE]...",
		"Create topics. Without --partitions or --replication-factor the broker's defaults\n(num.partitions, default.replication.factor) apply.")
	var conn connection
	conn.register(f)
	partitions := f.Int("partitions", -1, "partition `count` (-1: the broker's num.partitions)")
	replication := f.Int("replication-factor", -1, "replicas per partition (-1: the broker's default.replication.factor)")
	var configs repeated
	f.Var(&configs, "config", "topic config `KEY=VALUE` (repeatable)")
	topics, err := f.parse(args)
	if err != nil {
		return err
	}
	if err := f.atLeastOne(topics, "TOPIC"); err != nil {
		return err
	}
	values, _, err := keyValues(configs)
	if err != nil {
		return usageError{err: err, help: f.help()}
	}
	configPointers := make(map[string]*string, len(values))
	for k, v := range values {
		configPointers[k] = &v
	}
	adm, done, err := conn.connectAdmin(ctx, s)
	if err != nil {
		return err
	}
	defer done()
	resp, err := adm.CreateTopics(adm.ctx, int32(*partitions), int16(*replication), configPointers, topics...)
	if err != nil {
		return err
	}
	fails := failures{err: s.Err}
	for _, topic := range byName(topics) {
		r, answered := resp[topic]
		if !answered {
			fails.add(fmt.Errorf("creating topic %s: the broker did not answer for it", topic))
			continue
		}
		if r.Err != nil {
			fails.add(resultErr("creating topic "+r.Topic, r.Err, r.ErrMessage))
			continue
		}
		fmt.Fprintf(s.Out, "created topic %s: %d partitions, replication factor %d\n", r.Topic, r.NumPartitions, r.ReplicationFactor)
	}
	return fails.result()
}

func topicList(ctx context.Context, args []string, s Streams) error {
	f := newFlags(s, "topic list", "[--internal]", "List the cluster's topics, sorted by name.")
	var conn connection
	conn.register(f)
	internal := f.Bool("internal", false, "include internal topics (__consumer_offsets, ...)")
	_, adm, done, err := conn.parseAndConnect(ctx, f, args, s, func(operands []string) error { return f.exactly(operands, 0, "no arguments") })
	if err != nil {
		return err
	}
	defer done()
	list := adm.ListTopics
	if *internal {
		list = adm.ListTopicsWithInternal
	}
	topics, err := list(adm.ctx)
	if err != nil {
		return err
	}
	t := newTable(s.Out, "TOPIC", "PARTITIONS", "REPLICATION")
	for _, d := range topics.Sorted() {
		t.row(d.Topic, len(d.Partitions), d.Partitions.NumReplicas())
	}
	t.flush()
	return nil
}

func topicDescribe(ctx context.Context, args []string, s Streams) error {
	f := newFlags(s, "topic describe", "TOPIC...",
		"Show each topic's id, partitions (leader, epoch, replicas, in-sync replicas, log start\nand end offsets) and the configs set on it (not broker defaults).")
	var conn connection
	conn.register(f)
	topics, adm, done, err := conn.parseAndConnect(ctx, f, args, s, func(operands []string) error { return f.atLeastOne(operands, "TOPIC") })
	if err != nil {
		return err
	}
	defer done()
	details, err := adm.ListTopics(adm.ctx, topics...)
	if err != nil {
		return err
	}
	var known []string
	fails := failures{err: s.Err}
	for _, name := range topics {
		if d := details[name]; d.Err != nil {
			fails.add(resultErr("describing topic "+name, d.Err, ""))
		} else {
			known = append(known, name)
		}
	}
	if len(known) == 0 {
		return fails.result()
	}
	starts, err := adm.ListStartOffsets(adm.ctx, known...)
	if err != nil {
		return err
	}
	ends, err := adm.ListEndOffsets(adm.ctx, known...)
	if err != nil {
		return err
	}
	for i, name := range known {
		if i > 0 {
			fmt.Fprintln(s.Out)
		}
		d := details[name]
		fmt.Fprintf(s.Out, "TOPIC        %s\nID           %s\nPARTITIONS   %d\nREPLICATION  %d\n", name, kafkaUUID(d.ID), len(d.Partitions), d.Partitions.NumReplicas())
		entries, err := adm.describeConfigs(kmsg.ConfigResourceTypeTopic, name)
		fails.add(err)
		fmt.Fprintln(s.Out, "CONFIGS")
		for _, c := range entries {
			if c.isSetOn(kmsg.ConfigResourceTypeTopic) {
				fmt.Fprintf(s.Out, "  %s=%s\n", c.Key, c.value())
			}
		}
		fmt.Fprintln(s.Out)
		t := newTable(s.Out, "PARTITION", "LEADER", "EPOCH", "REPLICAS", "ISR", "LOG-START", "LOG-END")
		for _, p := range d.Partitions.Sorted() {
			start, _ := starts.Lookup(name, p.Partition)
			end, _ := ends.Lookup(name, p.Partition)
			t.row(p.Partition, p.Leader, p.LeaderEpoch, joinInt32s(p.Replicas), joinInt32s(p.ISR), start.Offset, end.Offset)
		}
		t.flush()
	}
	return fails.result()
}

func topicAlter(ctx context.Context, args []string, s Streams) error {
	f := newFlags(s, "topic alter", "TOPIC... [--partitions N] [--config KEY=VALUE]... [--delete-config KEY]...",
		"Grow topics to a partition count and set or remove their configs (incrementally:\nconfigs not named keep their values).")
	var conn connection
	conn.register(f)
	partitions := f.Int("partitions", 0, "the new partition `count` (only growth is possible)")
	var set, remove repeated
	f.Var(&set, "config", "set topic config `KEY=VALUE` (repeatable)")
	f.Var(&remove, "delete-config", "remove the topic's own value of config `KEY`, back to the default (repeatable)")
	topics, err := f.parse(args)
	if err != nil {
		return err
	}
	if err := f.atLeastOne(topics, "TOPIC"); err != nil {
		return err
	}
	changes, err := configChanges(set, remove)
	if err != nil {
		return usageError{err: err, help: f.help()}
	}
	if *partitions == 0 && len(changes) == 0 {
		return usagef(f.help(), "nothing to alter: give --partitions, --config or --delete-config")
	}
	adm, done, err := conn.connectAdmin(ctx, s)
	if err != nil {
		return err
	}
	defer done()
	fails := failures{err: s.Err}
	if *partitions != 0 {
		resp, err := adm.UpdatePartitions(adm.ctx, *partitions, topics...)
		if err != nil {
			return err
		}
		for _, r := range resp.Sorted() {
			if r.Err != nil {
				fails.add(resultErr("setting partitions of "+r.Topic, r.Err, r.ErrMessage))
				continue
			}
			fmt.Fprintf(s.Out, "topic %s: %d partitions\n", r.Topic, *partitions)
		}
	}
	if len(changes) > 0 {
		fails.keep(adm.alterConfigs(s, kmsg.ConfigResourceTypeTopic, topics, changes))
	}
	return fails.result()
}

func topicDelete(ctx context.Context, args []string, s Streams) error {
	f := newFlags(s, "topic delete", "TOPIC...", "Delete topics and their records.")
	var conn connection
	conn.register(f)
	topics, adm, done, err := conn.parseAndConnect(ctx, f, args, s, func(operands []string) error { return f.atLeastOne(operands, "TOPIC") })
	if err != nil {
		return err
	}
	defer done()
	resp, err := adm.DeleteTopics(adm.ctx, topics...)
	if err != nil {
		return err
	}
	fails := failures{err: s.Err}
	for _, topic := range byName(topics) {
		r, answered := resp[topic]
		if !answered {
			fails.add(fmt.Errorf("deleting topic %s: the broker did not answer for it", topic))
			continue
		}
		if r.Err != nil {
			fails.add(resultErr("deleting topic "+r.Topic, r.Err, r.ErrMessage))
			continue
		}
		fmt.Fprintf(s.Out, "deleted topic %s\n", r.Topic)
	}
	return fails.result()
}

// byName lists the topics a command named, sorted and each once. kadm's
// Sorted orders create and delete answers by topic id first, which is random,
// so the output would change from run to run.
func byName(topics []string) []string {
	sorted := slices.Clone(topics)
	slices.Sort(sorted)
	return slices.Compact(sorted)
}

// kafkaUUID prints a topic id as Kafka's Uuid.toString does: URL-safe
// base64 without padding, 22 characters.
func kafkaUUID(id [16]byte) string {
	return base64.RawURLEncoding.EncodeToString(id[:])
}
