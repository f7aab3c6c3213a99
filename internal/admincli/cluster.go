package admincli

import (
	"context"
	"fmt"
)

func runCluster(ctx context.Context, args []string, s Streams) error {
	return dispatch(ctx, "cluster", "Show what the cluster says about itself.", []subcommand{
		{"info", "print the cluster id, controller, brokers and topic count", clusterInfo},
	}, args, s)
}

func clusterInfo(ctx context.Context, args []string, s Streams) error {
	f := newFlags(s, "cluster info", "", "Print the cluster id, the controller's node id, the topic count and the brokers\n(id, host, port, rack) from a Metadata request.")
	var conn connection
	conn.register(f)
	_, adm, done, err := conn.parseAndConnect(ctx, f, args, s, func(operands []string) error { return f.exactly(operands, 0, "no arguments") })
	if err != nil {
		return err
	}
	defer done()
	m, err := adm.Metadata(adm.ctx)
	if err != nil {
		return err
	}
	fmt.Fprintf(s.Out, "CLUSTER     %s\nCONTROLLER  %d\nTOPICS      %d\n\n", m.Cluster, m.Controller, len(m.Topics))
	t := newTable(s.Out, "BROKER", "HOST", "PORT", "RACK")
	for _, b := range m.Brokers {
		rack := "-"
		if b.Rack != nil {
			rack = *b.Rack
		}
		t.row(b.NodeID, b.Host, b.Port, rack)
	}
	t.flush()
	return nil
}
