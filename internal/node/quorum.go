package node

import "github.com/karst-broker/karst/internal/handler"

// QuorumStatus is the metadata log as DescribeQuorum reports it: this
// node leads its single-voter quorum at the current epoch (or, before
// this process first wrote, at the epoch of the last leader).
func (m *metadataLog) QuorumStatus() handler.QuorumStatus {
	epoch := m.epoch.Load()
	if epoch == 0 {
		epoch, _ = m.knownEpoch()
	}
	s := handler.QuorumStatus{
		LeaderEpoch:   epoch,
		HighWatermark: m.log.HighWatermark(),
		LogEndOffset:  m.log.LogEndOffset(),
	}
	if m.kraftVersion > 0 {
		s.DirectoryID = m.directoryID
	}
	return s
}

var _ handler.Quorum = (*metadataLog)(nil)
