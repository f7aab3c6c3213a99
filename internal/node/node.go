package node

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"strconv"

	"github.com/karst-broker/karst/internal/handler"
	"github.com/karst-broker/karst/internal/server"
)

// Config is everything a node needs to start.
type Config struct {
	NodeID    int32
	ClusterID string
	// Listeners are bound in order; Advertised names the endpoints clients
	// are told about. An advertised port 0 means "the port the matching
	// listener bound".
	Listeners      []server.Listener
	Advertised     []handler.Endpoint
	MaxRequestSize int32
	Logger         *slog.Logger
}

// Node is a running broker.
type Node struct {
	srv    *server.Server
	logger *slog.Logger
}

// Start binds, builds and serves a broker.
func Start(cfg Config) (*Node, error) {
	logger := cfg.Logger
	if logger == nil {
		logger = slog.Default()
	}
	srv := server.New(server.Config{Listeners: cfg.Listeners, MaxRequestSize: cfg.MaxRequestSize, Logger: logger})
	if err := srv.Listen(); err != nil {
		return nil, err
	}
	advertised, err := resolveAdvertised(cfg.Advertised, srv)
	if err != nil {
		srv.Shutdown(context.Background())
		return nil, err
	}
	broker := handler.NewBroker(handler.Options{
		ClusterID:  cfg.ClusterID,
		NodeID:     cfg.NodeID,
		Advertised: advertised,
		Logger:     logger,
	})
	srv.Serve(broker)
	return &Node{srv: srv, logger: logger}, nil
}

// resolveAdvertised fills in ports the kernel chose for port-0 listeners.
func resolveAdvertised(eps []handler.Endpoint, srv *server.Server) ([]handler.Endpoint, error) {
	out := make([]handler.Endpoint, len(eps))
	for i, ep := range eps {
		if ep.Port == 0 {
			addr := srv.Addr(ep.ListenerName)
			if addr == nil {
				return nil, fmt.Errorf("advertised listener %s has no matching listener", ep.ListenerName)
			}
			_, port, err := net.SplitHostPort(addr.String())
			if err != nil {
				return nil, err
			}
			p, err := strconv.Atoi(port)
			if err != nil {
				return nil, err
			}
			ep.Port = int32(p)
		}
		out[i] = ep
	}
	return out, nil
}

// Addr returns the bound address of the named listener.
func (n *Node) Addr(listener string) net.Addr { return n.srv.Addr(listener) }

// Stats returns the server's counters.
func (n *Node) Stats() *server.Stats { return n.srv.Stats() }

// Shutdown stops accepting, finishes in-flight requests and closes.
func (n *Node) Shutdown(ctx context.Context) error {
	return n.srv.Shutdown(ctx)
}
