package console

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"sort"
	"strings"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
)

type groupRow struct {
	Name, State, Type, ProtocolType string
	Members                         int
	Lag                             int64 // -1: not known
}

func (s *Server) groups(ctx context.Context, k *kafka, _ *http.Request, p *page) error {
	p.Title = "Consumer groups"
	listed, err := k.admin.ListGroups(ctx)
	if err != nil || len(listed) == 0 {
		return err
	}
	lags, err := k.admin.Lag(ctx, listed.Groups()...)
	if err != nil {
		return err
	}
	var consumers []string
	for _, l := range listed {
		if l.GroupType == "consumer" {
			consumers = append(consumers, l.Group)
		}
	}
	// DescribeGroups does not describe KIP-848 groups (the broker
	// answers "not a classic group", as Kafka does), so kadm's Lag knows
	// only their name; ConsumerGroupDescribe does.
	described := map[string]*groupData{}
	if len(consumers) > 0 {
		if described, err = describeConsumerGroups(ctx, k.admin, consumers...); err != nil {
			return err
		}
	}
	var rows []groupRow
	for _, l := range listed.Sorted() {
		row := groupRow{Name: l.Group, State: l.State, Type: l.GroupType, ProtocolType: l.ProtocolType, Lag: -1}
		if d, ok := described[l.Group]; ok {
			row.Members, row.Lag, row.State = len(d.Members), d.TotalLag, d.State
		} else if gl, ok := lags[l.Group]; ok && gl.Error() == nil {
			row.Members, row.Lag, row.State = len(gl.Members), gl.Lag.Total(), gl.State
		}
		rows = append(rows, row)
	}
	p.Data = rows
	return nil
}

type groupData struct {
	Name, State, ProtocolType, Protocol string
	Coordinator                         int32
	Members                             []memberRow
	Lag                                 []lagRow
	TotalLag                            int64
}

type memberRow struct {
	ID, InstanceID, ClientID, Host string
	Assigned                       []assignedTopic
}

type assignedTopic struct {
	Topic      string
	Partitions []int32
}

type lagRow struct {
	Topic          string
	Partition      int32
	Committed, End int64
	Lag            int64
	Member         string
	Err            string
}

func (s *Server) group(ctx context.Context, k *kafka, r *http.Request, p *page) error {
	name := r.PathValue("group")
	p.Title = "Group " + name
	d, err := s.describeGroup(ctx, k, name)
	p.Data = d
	return err
}

func (s *Server) describeGroup(ctx context.Context, k *kafka, name string) (*groupData, error) {
	lags, err := k.admin.Lag(ctx, name)
	if err != nil {
		return &groupData{Name: name}, err
	}
	gl := lags[name]
	d := &groupData{Name: name, State: gl.State, ProtocolType: gl.ProtocolType, Protocol: gl.Protocol, Coordinator: gl.Coordinator.NodeID}
	if err := gl.Error(); err != nil {
		if !errors.Is(err, kerr.GroupIDNotFound) {
			return d, err
		}
		// Not a classic group: perhaps a KIP-848 one, which only
		// ConsumerGroupDescribe describes (Kafka's Admin asks both).
		described, cgErr := describeConsumerGroups(ctx, k.admin, name)
		if cg, ok := described[name]; ok && cgErr == nil {
			return cg, nil
		}
		if cgErr != nil && !errors.Is(cgErr, kerr.GroupIDNotFound) {
			return d, cgErr
		}
		return d, err
	}
	for _, m := range gl.Members {
		row := memberRow{ID: m.MemberID, ClientID: m.ClientID, Host: m.ClientHost}
		if m.InstanceID != nil {
			row.InstanceID = *m.InstanceID
		}
		if c, ok := m.Assigned.AsConsumer(); ok {
			for _, t := range c.Topics {
				parts := append([]int32(nil), t.Partitions...)
				sort.Slice(parts, func(i, j int) bool { return parts[i] < parts[j] })
				row.Assigned = append(row.Assigned, assignedTopic{Topic: t.Topic, Partitions: parts})
			}
		}
		d.Members = append(d.Members, row)
	}
	for _, l := range gl.Lag.Sorted() {
		d.Lag = append(d.Lag, lagOf(l))
	}
	d.TotalLag = gl.Lag.Total()
	return d, nil
}

func lagOf(l kadm.GroupMemberLag) lagRow {
	row := lagRow{Topic: l.Topic, Partition: l.Partition, Committed: l.Commit.At, End: l.End.Offset, Lag: l.Lag}
	if l.Member != nil {
		row.Member = l.Member.MemberID
	}
	if l.Err != nil {
		row.Err = l.Err.Error()
	}
	return row
}

// describeConsumerGroups describes KIP-848 groups with their members,
// assignments and lag: ConsumerGroupDescribe for the members, then the
// committed offsets and the topics' start and end offsets, with kadm's lag
// rules (a partition assigned but never committed lags by all it holds).
// A group the broker could not describe is left out when others were.
func describeConsumerGroups(ctx context.Context, admin *kadm.Client, names ...string) (map[string]*groupData, error) {
	described, err := admin.DescribeConsumerGroups(ctx, names...)
	if err != nil && len(described) == 0 {
		return nil, err
	}
	out := map[string]*groupData{}
	var ok []string
	topics := kadm.TopicsSet{}
	for _, g := range described {
		if g.Err != nil {
			if len(names) == 1 {
				return nil, g.Err
			}
			continue
		}
		ok = append(ok, g.Group)
		topics.Merge(g.AssignedPartitions())
	}
	fetched := admin.FetchManyOffsets(ctx, ok...)
	topics.Merge(fetched.CommittedPartitions())
	var starts, ends kadm.ListedOffsets
	if list := topics.Topics(); len(list) > 0 {
		if starts, err = admin.ListStartOffsets(ctx, list...); err != nil {
			return nil, err
		}
		if ends, err = admin.ListEndOffsets(ctx, list...); err != nil {
			return nil, err
		}
	}
	for _, name := range ok {
		g := described[name]
		d := &groupData{Name: name, State: g.State, ProtocolType: "consumer", Protocol: g.AssignorName, Coordinator: g.Coordinator.NodeID}
		commits := kadm.OffsetResponses{}
		if f, found := fetched[name]; found {
			if f.Err != nil {
				if len(names) == 1 {
					return nil, f.Err
				}
				continue
			}
			commits = f.Fetched
		}
		owner := map[string]map[int32]string{}
		for _, m := range g.Members {
			row := memberRow{ID: m.MemberID, ClientID: m.ClientID, Host: m.ClientHost}
			if m.InstanceID != nil {
				row.InstanceID = *m.InstanceID
			}
			m.Assignment.EachPartitions(func(t string, ps []int32) {
				slices.Sort(ps)
				row.Assigned = append(row.Assigned, assignedTopic{Topic: t, Partitions: ps})
			})
			slices.SortFunc(row.Assigned, func(a, b assignedTopic) int { return strings.Compare(a.Topic, b.Topic) })
			m.Assignment.Each(func(t string, p int32) {
				if owner[t] == nil {
					owner[t] = map[int32]string{}
				}
				owner[t][p] = m.MemberID
				if _, committed := commits.Lookup(t, p); !committed {
					commits.Add(kadm.OffsetResponse{Offset: kadm.Offset{Topic: t, Partition: p, At: -1, LeaderEpoch: -1}})
				}
			})
			d.Members = append(d.Members, row)
		}
		lag := kadm.CalculateGroupLagWithStartOffsets(kadm.DescribedGroup{}, commits, starts, ends)
		for _, l := range lag.Sorted() {
			row := lagOf(l)
			row.Member = owner[l.Topic][l.Partition]
			d.Lag = append(d.Lag, row)
		}
		d.TotalLag = lag.Total()
		out[name] = d
	}
	return out, nil
}
