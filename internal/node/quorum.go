package node

import (
	"net"
	"slices"
	"strconv"
	"strings"

	"github.com/karst-broker/karst/internal/config"
	"github.com/karst-broker/karst/internal/handler"
	"github.com/karst-broker/karst/internal/metadata"
)

// QuorumStatus is the metadata log as DescribeQuorum reports it: this
// node leads its single-voter quorum at the current epoch (or, before
// this process first wrote, at the epoch of the last leader), with the
// voter's listeners Kafka would name.
func (m *metadataLog) QuorumStatus() handler.QuorumStatus {
	epoch := m.epoch.Load()
	if epoch == 0 {
		epoch, _ = m.knownEpoch()
	}
	s := handler.QuorumStatus{
		LeaderEpoch:   epoch,
		HighWatermark: m.log.HighWatermark(),
		LogEndOffset:  m.log.LogEndOffset(),
		Listeners:     m.voterEndpoints(),
	}
	if m.KRaftVersion() > 0 {
		s.DirectoryID = m.directoryID
	}
	return s
}

var _ handler.Quorum = (*metadataLog)(nil)

// voterEndpoints are this voter's listeners as Kafka's raft client knows
// them: under kraft.version 1 those of the last VotersRecord (which
// `kafka-storage format --standalone`, an upgrade or the start of an epoch
// wrote), else the node's controller listeners from its config.
func (m *metadataLog) voterEndpoints() []metadata.VoterEndpoint {
	if voters := m.voters.Load(); m.KRaftVersion() > 0 && voters != nil {
		if eps, ok := voters.EndpointsOf(m.nodeID); ok {
			return eps
		}
	}
	return m.ownEndpoints()
}

// ownEndpoints are the listeners this node publishes as a voter, once it
// listens; before, those the voter set in force gives it.
func (m *metadataLog) ownEndpoints() []metadata.VoterEndpoint {
	if eps := m.controllerEndpoints.Load(); eps != nil {
		return *eps
	}
	if voters := m.voters.Load(); voters != nil {
		eps, _ := voters.EndpointsOf(m.nodeID)
		return eps
	}
	return nil
}

// controllerEndpoints are the endpoints Kafka publishes for a controller:
// the listeners named in controller.listener.names, else this node's entry
// of controller.quorum.voters under the first controller listener name
// (Kafka's static voter set). Karst binds no controller listener, since
// it answers the controller's requests on its broker listeners; with
// neither configured, those broker listeners are the node's.
func controllerEndpoints(b *config.Broker, nodeID int32, advertised []handler.Endpoint) []metadata.VoterEndpoint {
	var out []metadata.VoterEndpoint
	if b != nil {
		names := b.ControllerListenerNames()
		for _, l := range b.Listeners() {
			if slices.Contains(names, l.Name) {
				out = append(out, metadata.VoterEndpoint{Name: l.Name, Host: publishedHost(l.Host), Port: uint16(l.Port)})
			}
		}
		if len(out) == 0 && len(names) > 0 {
			if host, port, ok := staticVoter(b.List("controller.quorum.voters"), nodeID); ok {
				out = append(out, metadata.VoterEndpoint{Name: names[0], Host: host, Port: port})
			}
		}
	}
	if len(out) == 0 {
		for _, ep := range advertised {
			out = append(out, metadata.VoterEndpoint{Name: ep.ListenerName, Host: ep.Host, Port: uint16(ep.Port)})
		}
	}
	return out
}

// publishedHost is the host a listener bound to every interface is
// published under, as resolveAdvertised does for broker listeners.
func publishedHost(host string) string {
	if host == "" || host == "0.0.0.0" || host == "::" {
		return "127.0.0.1"
	}
	return host
}

// staticVoter finds nodeID's "id@host:port" in controller.quorum.voters.
func staticVoter(voters []string, nodeID int32) (string, uint16, bool) {
	for _, v := range voters {
		id, addr, ok := strings.Cut(strings.TrimSpace(v), "@")
		if !ok || id != strconv.Itoa(int(nodeID)) {
			continue
		}
		host, port, err := net.SplitHostPort(addr)
		p, perr := strconv.ParseUint(port, 10, 16)
		if err != nil || perr != nil {
			return "", 0, false
		}
		return host, uint16(p), true
	}
	return "", 0, false
}
