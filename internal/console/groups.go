package console

import (
	"context"
	"net/http"
	"sort"

	"github.com/twmb/franz-go/pkg/kadm"
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
	var rows []groupRow
	for _, l := range listed.Sorted() {
		row := groupRow{Name: l.Group, State: l.State, Type: l.GroupType, ProtocolType: l.ProtocolType, Lag: -1}
		if gl, ok := lags[l.Group]; ok && gl.Error() == nil {
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
