package admincli

import (
	"context"
	"errors"
	"fmt"
	"sort"

	"github.com/karst-broker/karst/internal/groupview"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
)

const groupSummary = "Manage consumer and share groups: list, describe with lag, reset offsets, delete."

func runGroup(ctx context.Context, args []string, s Streams) error {
	return dispatch(ctx, "group", groupSummary, []subcommand{
		{"list", "list groups with their state and type", groupList},
		{"describe", "show groups' members and per-partition offsets and lag", groupDescribe},
		{"reset-offsets", "move an inactive group's committed offsets", groupResetOffsets},
		{"delete", "delete inactive groups and their offsets", groupDelete},
	}, args, s)
}

func groupList(ctx context.Context, args []string, s Streams) error {
	f := newFlags(s, "group list", "", "List the cluster's groups, sorted by name.")
	var conn connection
	conn.register(f)
	_, adm, done, err := conn.parseAndConnect(ctx, f, args, s, func(operands []string) error { return f.exactly(operands, 0, "no arguments") })
	if err != nil {
		return err
	}
	defer done()
	groups, err := adm.ListGroups(adm.ctx)
	if err != nil {
		return err
	}
	t := newTable(s.Out, "GROUP", "STATE", "TYPE", "PROTOCOL-TYPE", "COORDINATOR")
	for _, g := range groups.Sorted() {
		t.row(g.Group, orDash(g.State), orDash(g.GroupType), orDash(g.ProtocolType), g.Coordinator)
	}
	t.flush()
	return nil
}

func groupDescribe(ctx context.Context, args []string, s Streams) error {
	f := newFlags(s, "group describe", "GROUP...",
		"Show each group's state, protocol and members, and per partition its committed\noffset, the log end offset and the lag between them, as kafka-consumer-groups\n--describe does. A partition with no commit shows - for its offset and lag.\nA share group shows its members with their assignments, and per partition the\nshare-partition start offset and the lag the broker counts, as kafka-share-groups\n--describe does.")
	var conn connection
	conn.register(f)
	groups, adm, done, err := conn.parseAndConnect(ctx, f, args, s, func(operands []string) error { return f.atLeastOne(operands, "GROUP") })
	if err != nil {
		return err
	}
	defer done()
	described, err := groupview.Describe(adm.ctx, adm.Client, groups...)
	if err != nil {
		return err
	}
	fails := failures{err: s.Err}
	first := true
	for _, name := range groups {
		g := described[name]
		switch {
		case g.State == "Dead", errors.Is(g.Err, kerr.GroupIDNotFound):
			// Kafka before 4.0 answers Dead for a group it does not know.
			fails.add(fmt.Errorf("group %s does not exist", name))
			continue
		case g.Err != nil:
			fails.add(resultErr("describing group "+name, g.Err, ""))
			continue
		}
		if !first {
			fmt.Fprintln(s.Out)
		}
		first = false
		if g.Type == "share" {
			printShareGroup(s, g)
			continue
		}
		fmt.Fprintf(s.Out, "GROUP        %s\nSTATE        %s\nPROTOCOL     %s\nMEMBERS      %d\nCOORDINATOR  %d\n\n",
			g.Name, g.State, orDash(g.Protocol), len(g.Members), g.Coordinator)
		t := newTable(s.Out, "TOPIC", "PARTITION", "CURRENT-OFFSET", "LOG-END-OFFSET", "LAG", "MEMBER-ID", "CLIENT-ID", "HOST")
		for _, p := range g.Lag {
			// As kafka-consumer-groups --describe: no commit, no lag.
			current, lag := "-", "-"
			if p.Committed >= 0 {
				current, lag = fmt.Sprint(p.Committed), fmt.Sprint(p.Lag)
			}
			t.row(p.Topic, p.Partition, current, p.End, lag, orDash(p.Member), orDash(p.ClientID), orDash(p.Host))
		}
		t.flush()
	}
	return fails.result()
}

func groupResetOffsets(ctx context.Context, args []string, s Streams) error {
	f := newFlags(s, "group reset-offsets", "GROUP (--topic T... | --all-topics) (--to-earliest | --to-latest | --to-offset N | --shift-by N) [--execute]",
		"Compute new committed offsets for the group's partitions of the topics and print\nthem; with --execute, commit them. The group must have no members (Kafka's rule).\nOffsets are kept inside each partition's log start and end.")
	var conn connection
	conn.register(f)
	var topics repeated
	f.Var(&topics, "topic", "reset the partitions of `TOPIC` (repeatable)")
	allTopics := f.Bool("all-topics", false, "reset every topic the group has offsets for")
	toEarliest := f.Bool("to-earliest", false, "to each partition's log start")
	toLatest := f.Bool("to-latest", false, "to each partition's log end")
	toOffset := f.Int64("to-offset", -1, "to `OFFSET`")
	shiftBy := f.Int64("shift-by", 0, "move the committed offsets by `N` (negative: back)")
	execute := f.Bool("execute", false, "commit the offsets (without it, only print them)")
	rest, err := f.parse(args)
	if err != nil {
		return err
	}
	if err := f.exactly(rest, 1, "GROUP"); err != nil {
		return err
	}
	group := rest[0]
	if (len(topics) > 0) == *allTopics {
		return usagef(f.help(), "give --topic or --all-topics")
	}
	chosen := 0
	for _, on := range []bool{*toEarliest, *toLatest, *toOffset >= 0, *shiftBy != 0} {
		if on {
			chosen++
		}
	}
	if chosen != 1 {
		return usagef(f.help(), "give one of --to-earliest, --to-latest, --to-offset, --shift-by")
	}
	adm, done, err := conn.connectAdmin(ctx, s)
	if err != nil {
		return err
	}
	defer done()
	described, err := groupview.Describe(adm.ctx, adm.Client, group)
	if err != nil {
		return err
	}
	if d := described[group]; d.Err != nil {
		return resultErr("describing group "+group, d.Err, "")
	} else if *execute && d.State != "Empty" && d.State != "Dead" {
		return fmt.Errorf("offsets of group %s can only be reset while it has no members, but its state is %s", group, d.State)
	}
	current, err := adm.fetchOffsets(group)
	if err != nil {
		return err
	}
	if *allTopics {
		for t := range current {
			topics = append(topics, t)
		}
		sort.Strings(topics)
		if len(topics) == 0 {
			return fmt.Errorf("group %s has no committed offsets", group)
		}
	}
	starts, err := adm.ListStartOffsets(adm.ctx, topics...)
	if err != nil {
		return err
	}
	ends, err := adm.ListEndOffsets(adm.ctx, topics...)
	if err != nil {
		return err
	}
	if err := ends.Error(); err != nil {
		return err
	}
	next := kadm.Offsets{}
	t := newTable(s.Out, "GROUP", "TOPIC", "PARTITION", "NEW-OFFSET")
	for _, topic := range topics {
		parts := make([]int32, 0, len(ends[topic]))
		for p := range ends[topic] {
			parts = append(parts, p)
		}
		sort.Slice(parts, func(i, j int) bool { return parts[i] < parts[j] })
		for _, p := range parts {
			start, end := starts[topic][p].Offset, ends[topic][p].Offset
			at := end
			switch {
			case *toEarliest:
				at = start
			case *toOffset >= 0:
				at = *toOffset
			case *shiftBy != 0:
				if c, ok := current.Lookup(topic, p); ok && c.At >= 0 {
					at = c.At + *shiftBy
				}
			}
			at = min(max(at, start), end)
			next.Add(kadm.Offset{Topic: topic, Partition: p, At: at, LeaderEpoch: -1})
			t.row(group, topic, p, at)
		}
	}
	t.flush()
	if !*execute {
		fmt.Fprintln(s.Err, "dry run: pass --execute to commit these offsets")
		return nil
	}
	resp, err := adm.CommitOffsets(adm.ctx, group, next)
	if err != nil {
		return err
	}
	if err := resp.Error(); err != nil {
		return fmt.Errorf("committing offsets of group %s: %w", group, err)
	}
	fmt.Fprintf(s.Err, "committed %d offsets for group %s\n", len(next.Sorted()), group)
	return nil
}

func groupDelete(ctx context.Context, args []string, s Streams) error {
	f := newFlags(s, "group delete", "GROUP...", "Delete groups that have no members, with their committed offsets.")
	var conn connection
	conn.register(f)
	groups, adm, done, err := conn.parseAndConnect(ctx, f, args, s, func(operands []string) error { return f.atLeastOne(operands, "GROUP") })
	if err != nil {
		return err
	}
	defer done()
	resp, err := adm.DeleteGroups(adm.ctx, groups...)
	if err != nil {
		return err
	}
	fails := failures{err: s.Err}
	for _, r := range resp.Sorted() {
		if r.Err != nil {
			fails.add(resultErr("deleting group "+r.Group, r.Err, r.ErrMessage))
			continue
		}
		fmt.Fprintf(s.Out, "deleted group %s\n", r.Group)
	}
	return fails.result()
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
