package groupview

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
)

// describeShareGroups describes KIP-932 share groups: ShareGroupDescribe
// for the members and their assignments, DescribeShareGroupOffsets for
// each share-partition's start offset and lag, as kafka-share-groups
// --describe shows them. A broker that cannot answer the offsets request
// still gets its members described, with that error in the group's Note
// and no start offsets.
func describeShareGroups(ctx context.Context, admin *kadm.Client, names []string) (map[string]*Group, error) {
	described, err := admin.DescribeShareGroups(ctx, names...)
	if err != nil && len(described) == 0 {
		return nil, err
	}
	out, ok := answered(names, described, func(g kadm.DescribedShareGroup) error { return g.Err })
	if len(ok) == 0 {
		return out, nil
	}
	offsets, offsetsErr := admin.DescribeShareGroupOffsets(ctx, ok...)
	for _, name := range ok {
		g := described[name]
		d := &Group{Name: name, Type: "share", State: g.GroupState, ProtocolType: "share", Protocol: g.Assignor, Coordinator: g.Coordinator.NodeID}
		out[name] = d
		owner := map[string]map[int32]Member{}
		for _, m := range g.Members {
			row := Member{ID: m.MemberID, ClientID: m.ClientID, Host: m.ClientHost}
			for t, ps := range m.Assignment {
				parts := make([]int32, 0, len(ps))
				for p := range ps {
					parts = append(parts, p)
					if owner[t] == nil {
						owner[t] = map[int32]Member{}
					}
					// Share groups may assign a partition to several
					// members; the row names the first by id.
					if _, taken := owner[t][p]; !taken {
						owner[t][p] = row
					}
				}
				slices.Sort(parts)
				row.Assigned = append(row.Assigned, AssignedTopic{Topic: t, Partitions: parts})
			}
			slices.SortFunc(row.Assigned, func(a, b AssignedTopic) int { return strings.Compare(a.Topic, b.Topic) })
			d.Members = append(d.Members, row)
		}
		rows := map[string]map[int32]*PartitionLag{}
		add := func(t string, p int32) *PartitionLag {
			if rows[t] == nil {
				rows[t] = map[int32]*PartitionLag{}
			}
			if rows[t][p] == nil {
				rows[t][p] = &PartitionLag{Topic: t, Partition: p, Committed: -1, End: -1, Lag: -1}
			}
			return rows[t][p]
		}
		for t, ps := range owner {
			for p := range ps {
				add(t, p)
			}
		}
		o, found := offsets[name]
		switch {
		case offsetsErr != nil && !found:
			d.Note = fmt.Sprintf("start offsets and lag not known: %v", offsetsErr)
		case o.Err != nil && !errors.Is(o.Err, kerr.GroupIDNotFound):
			d.Err = o.Err
			continue
		default:
			for t, ps := range o.Offsets {
				for p, so := range ps {
					r := add(t, p)
					if so.Err != nil {
						r.Err = so.Err.Error()
						continue
					}
					r.Committed, r.Lag = so.StartOffset, so.Lag
				}
			}
		}
		if err := fillEnds(ctx, admin, rows); err != nil {
			return nil, err
		}
		for t, ps := range rows {
			for p, r := range ps {
				if m, assigned := owner[t][p]; assigned {
					r.Member, r.ClientID, r.Host = m.ID, m.ClientID, m.Host
				}
				d.Lag = append(d.Lag, *r)
				if r.Lag > 0 {
					d.TotalLag += r.Lag
				}
			}
		}
		slices.SortFunc(d.Lag, func(a, b PartitionLag) int {
			if c := strings.Compare(a.Topic, b.Topic); c != 0 {
				return c
			}
			return int(a.Partition - b.Partition)
		})
	}
	return out, nil
}

// fillEnds sets each row's log end offset.
func fillEnds(ctx context.Context, admin *kadm.Client, rows map[string]map[int32]*PartitionLag) error {
	if len(rows) == 0 {
		return nil
	}
	topics := make([]string, 0, len(rows))
	for t := range rows {
		topics = append(topics, t)
	}
	ends, err := admin.ListEndOffsets(ctx, topics...)
	if err != nil {
		return err
	}
	for t, ps := range rows {
		for p, r := range ps {
			if e, ok := ends.Lookup(t, p); ok && e.Err == nil {
				r.End = e.Offset
			}
		}
	}
	return nil
}
