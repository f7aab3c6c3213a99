package admincli

import (
	"context"
	"errors"
	"fmt"

	"github.com/karst-broker/karst/internal/groupview"
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
