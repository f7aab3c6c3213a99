package admincli

import (
	"fmt"
	"strings"

	"github.com/karst-broker/karst/internal/groupview"
)

// printShareGroup writes a share group as group describe shows one: the
// members with their assignments, then per share-partition its start
// offset, the log end and the broker's lag, - where not known.
func printShareGroup(s Streams, g *groupview.Group) {
	fmt.Fprintf(s.Out, "GROUP        %s\nTYPE         share\nSTATE        %s\nASSIGNOR     %s\nMEMBERS      %d\nCOORDINATOR  %d\n\n",
		g.Name, g.State, orDash(g.Protocol), len(g.Members), g.Coordinator)
	if len(g.Members) > 0 {
		t := newTable(s.Out, "MEMBER-ID", "CLIENT-ID", "HOST", "ASSIGNMENT")
		for _, m := range g.Members {
			var assigned []string
			for _, a := range m.Assigned {
				assigned = append(assigned, a.Topic+":"+joinInt32s(a.Partitions))
			}
			t.row(m.ID, orDash(m.ClientID), orDash(m.Host), orDash(strings.Join(assigned, ";")))
		}
		t.flush()
		fmt.Fprintln(s.Out)
	}
	if g.Note != "" {
		fmt.Fprintf(s.Err, "group %s: %s\n", g.Name, g.Note)
	}
	t := newTable(s.Out, "TOPIC", "PARTITION", "START-OFFSET", "LOG-END-OFFSET", "LAG", "MEMBER-ID")
	for _, p := range g.Lag {
		start, end, lag := "-", "-", "-"
		if p.Committed >= 0 {
			start = fmt.Sprint(p.Committed)
		}
		if p.End >= 0 {
			end = fmt.Sprint(p.End)
		}
		if p.Lag >= 0 {
			lag = fmt.Sprint(p.Lag)
		}
		t.row(p.Topic, p.Partition, start, end, lag, orDash(p.Member))
		if p.Err != "" {
			fmt.Fprintf(s.Err, "%s partition %d: %s\n", p.Topic, p.Partition, p.Err)
		}
	}
	t.flush()
}
