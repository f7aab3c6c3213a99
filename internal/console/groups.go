package console

import (
	"context"
	"net/http"

	"github.com/karst-broker/karst/internal/groupview"
)

type groupRow struct {
	Name, State, Type, ProtocolType string
	Members                         int
	Lag                             int64 // -1: not known
}

func (s *Server) groups(ctx context.Context, k *kafka, _ *http.Request, p *page) error {
	p.Title = "Groups"
	listed, err := k.admin.ListGroups(ctx)
	if err != nil || len(listed) == 0 {
		return err
	}
	described, err := groupview.Describe(ctx, k.admin, listed.Groups()...)
	if err != nil {
		return err
	}
	var rows []groupRow
	for _, l := range listed.Sorted() {
		row := groupRow{Name: l.Group, State: l.State, Type: l.GroupType, ProtocolType: l.ProtocolType, Lag: -1}
		if d, ok := described[l.Group]; ok && d.Err == nil {
			row.Members, row.Lag, row.State = len(d.Members), d.TotalLag, d.State
		}
		rows = append(rows, row)
	}
	p.Data = rows
	return nil
}

func (s *Server) group(ctx context.Context, k *kafka, r *http.Request, p *page) error {
	name := r.PathValue("group")
	p.Title = "Group " + name
	d, err := s.describeGroup(ctx, k, name)
	p.Data = d
	return err
}

func (s *Server) describeGroup(ctx context.Context, k *kafka, name string) (*groupview.Group, error) {
	described, err := groupview.Describe(ctx, k.admin, name)
	if err != nil {
		return &groupview.Group{Name: name}, err
	}
	d := described[name]
	return d, d.Err
}
