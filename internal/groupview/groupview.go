// Package groupview describes groups as an admin client sees them (members,
// assignments, committed offsets and lag), over the Kafka protocol with
// kadm, for both the web console and the admin CLI. Classic groups are
// read with DescribeGroups; KIP-848 consumer groups, which DescribeGroups
// does not describe ("not a classic group", as in Kafka), with
// ConsumerGroupDescribe, as Kafka's Admin does; KIP-932 share groups,
// which neither describes, with ShareGroupDescribe and
// DescribeShareGroupOffsets.
package groupview

import (
	"context"
	"errors"
	"slices"
	"strings"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
)

// Group is one described group, or why it could not be described (Err).
type Group struct {
	// Type is ListGroups' group type: classic, consumer or share.
	Type                                string
	Name, State, ProtocolType, Protocol string
	Coordinator                         int32
	Members                             []Member
	Lag                                 []PartitionLag // sorted by topic and partition
	TotalLag                            int64
	Err                                 error
	// Note says what the broker could not tell of a group otherwise
	// described: a share group's start offsets where the broker does not
	// answer DescribeShareGroupOffsets.
	Note string
}

// Member is one group member and the partitions assigned to it.
type Member struct {
	ID, InstanceID, ClientID, Host string
	Assigned                       []AssignedTopic // sorted by topic
}

// AssignedTopic is a topic's partitions assigned to a member, sorted.
type AssignedTopic struct {
	Topic      string
	Partitions []int32
}

// PartitionLag is one partition the group has committed or been assigned.
// Committed is -1 where the group never committed; Lag then counts all
// the partition holds (kadm's rule). Member, ClientID and Host are empty
// for a partition no member is assigned. In a share group Committed is
// the share-partition start offset (-1: not known) and Lag the broker's
// count of records not yet delivered and acknowledged (-1: not known).
type PartitionLag struct {
	Topic                  string
	Partition              int32
	Committed, End         int64
	Lag                    int64
	Member, ClientID, Host string
	Err                    string
}

// Describe describes the named groups, each name once in the answer. The
// error is for the whole request; a group's own failure is in its Err.
func Describe(ctx context.Context, admin *kadm.Client, names ...string) (map[string]*Group, error) {
	lags, err := admin.Lag(ctx, names...)
	if err != nil {
		return nil, err
	}
	out := map[string]*Group{}
	var notClassic []string
	for _, name := range names {
		gl, ok := lags[name]
		if !ok {
			out[name] = &Group{Name: name, Err: errors.New("no answer from the group's coordinator")}
			continue
		}
		g := &Group{Name: name, Type: "classic", State: gl.State, ProtocolType: gl.ProtocolType, Protocol: gl.Protocol, Coordinator: gl.Coordinator.NodeID, Err: gl.Error()}
		out[name] = g
		if g.Err != nil {
			if errors.Is(g.Err, kerr.GroupIDNotFound) {
				notClassic = append(notClassic, name)
			}
			continue
		}
		for _, m := range gl.Members {
			row := Member{ID: m.MemberID, ClientID: m.ClientID, Host: m.ClientHost}
			if m.InstanceID != nil {
				row.InstanceID = *m.InstanceID
			}
			if c, ok := m.Assigned.AsConsumer(); ok {
				for _, t := range c.Topics {
					parts := slices.Clone(t.Partitions)
					slices.Sort(parts)
					row.Assigned = append(row.Assigned, AssignedTopic{Topic: t.Topic, Partitions: parts})
				}
			}
			g.Members = append(g.Members, row)
		}
		for _, l := range gl.Lag.Sorted() {
			row := lagOf(l)
			if l.Member != nil {
				row.Member, row.ClientID, row.Host = l.Member.MemberID, l.Member.ClientID, l.Member.ClientHost
			}
			g.Lag = append(g.Lag, row)
		}
		g.TotalLag = gl.Lag.Total()
	}
	if len(notClassic) == 0 {
		return out, nil
	}
	consumers, err := describeConsumerGroups(ctx, admin, notClassic)
	if err != nil {
		return nil, err
	}
	var notConsumer []string
	for name, g := range consumers {
		if g.Err == nil || !errors.Is(g.Err, kerr.GroupIDNotFound) {
			out[name] = g
		} else {
			notConsumer = append(notConsumer, name)
		}
	}
	if len(notConsumer) == 0 {
		return out, nil
	}
	slices.Sort(notConsumer)
	shares, err := describeShareGroups(ctx, admin, notConsumer)
	if err != nil {
		return nil, err
	}
	for name, g := range shares {
		// A group no protocol knows keeps DescribeGroups' answer: it
		// does not exist.
		if g.Err == nil || !errors.Is(g.Err, kerr.GroupIDNotFound) {
			out[name] = g
		}
	}
	return out, nil
}

func lagOf(l kadm.GroupMemberLag) PartitionLag {
	row := PartitionLag{Topic: l.Topic, Partition: l.Partition, Committed: l.Commit.At, End: l.End.Offset, Lag: l.Lag}
	if l.Err != nil {
		row.Err = l.Err.Error()
	}
	return row
}

// describeConsumerGroups describes KIP-848 groups: ConsumerGroupDescribe
// for the members, then the committed offsets and the topics' start and
// end offsets, with kadm's lag rules (a partition assigned but never
// committed lags by all it holds).
func describeConsumerGroups(ctx context.Context, admin *kadm.Client, names []string) (map[string]*Group, error) {
	described, err := admin.DescribeConsumerGroups(ctx, names...)
	if err != nil && len(described) == 0 {
		return nil, err
	}
	out, ok := answered(names, described, func(g kadm.DescribedConsumerGroup) error { return g.Err })
	topics := kadm.TopicsSet{}
	for _, name := range ok {
		g := described[name]
		topics.Merge(g.AssignedPartitions())
	}
	if len(ok) == 0 {
		return out, nil
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
		d := &Group{Name: name, Type: "consumer", State: g.State, ProtocolType: "consumer", Protocol: g.AssignorName, Coordinator: g.Coordinator.NodeID}
		out[name] = d
		commits := kadm.OffsetResponses{}
		if f, found := fetched[name]; found {
			if f.Err != nil {
				d.Err = f.Err
				continue
			}
			commits = f.Fetched
		}
		owner := map[string]map[int32]Member{}
		for _, m := range g.Members {
			row := Member{ID: m.MemberID, ClientID: m.ClientID, Host: m.ClientHost}
			if m.InstanceID != nil {
				row.InstanceID = *m.InstanceID
			}
			m.Assignment.EachPartitions(func(t string, ps []int32) {
				ps = slices.Clone(ps)
				slices.Sort(ps)
				row.Assigned = append(row.Assigned, AssignedTopic{Topic: t, Partitions: ps})
			})
			slices.SortFunc(row.Assigned, func(a, b AssignedTopic) int { return strings.Compare(a.Topic, b.Topic) })
			m.Assignment.Each(func(t string, p int32) {
				if owner[t] == nil {
					owner[t] = map[int32]Member{}
				}
				owner[t][p] = row
				if _, committed := commits.Lookup(t, p); !committed {
					commits.Add(kadm.OffsetResponse{Offset: kadm.Offset{Topic: t, Partition: p, At: -1, LeaderEpoch: -1}})
				}
			})
			d.Members = append(d.Members, row)
		}
		lag := kadm.CalculateGroupLagWithStartOffsets(kadm.DescribedGroup{}, commits, starts, ends)
		for _, l := range lag.Sorted() {
			row := lagOf(l)
			if m, assigned := owner[l.Topic][l.Partition]; assigned {
				row.Member, row.ClientID, row.Host = m.ID, m.ClientID, m.Host
			}
			d.Lag = append(d.Lag, row)
		}
		d.TotalLag = lag.Total()
	}
	return out, nil
}

// answered splits names by their describe answers: ok are those described,
// out holds the others, each with why it was not.
func answered[T any](names []string, described map[string]T, errOf func(T) error) (out map[string]*Group, ok []string) {
	out = map[string]*Group{}
	for _, name := range names {
		g, found := described[name]
		switch {
		case !found:
			out[name] = &Group{Name: name, Err: errors.New("no answer from the group's coordinator")}
		case errOf(g) != nil:
			out[name] = &Group{Name: name, Err: errOf(g)}
		default:
			ok = append(ok, name)
		}
	}
	return out, ok
}
