package node

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	klog "github.com/karst-broker/karst/internal/log"
	"github.com/karst-broker/karst/internal/metadata"
)

// Karst is the only voter of its metadata quorum, as a single-node Kafka
// in combined mode (process.roles=broker,controller) is. Kafka's raft
// client, on every start, reads quorum-state, becomes leader at the next
// epoch, persists that in quorum-state and appends a LeaderChangeMessage
// control batch before anything else of the epoch. Doing the same keeps
// the log one Kafka accepts (epochs never decrease along it) and lets
// Karst continue a log Kafka wrote at a higher epoch.

// becomeLeader starts this process's epoch: one above any epoch in the
// log, its snapshots or quorum-state.
func (m *metadataLog) becomeLeader() error {
	logDir := filepath.Dir(m.log.Dir())
	mp, err := klog.ReadMetaProperties(logDir)
	if err != nil {
		return fmt.Errorf("reading meta.properties for node.id: %w", err)
	}
	node := mp.NodeID
	epoch, err := m.knownEpoch()
	if err != nil {
		return err
	}
	epoch++
	qsPath := filepath.Join(m.log.Dir(), metadata.QuorumStateFileName)

	// Persist the election before acting on it, as Kafka does.
	qs := metadata.QuorumState{LeaderID: node, LeaderEpoch: epoch, VotedID: -1, Voters: []int32{node}}
	if err := writeFileSynced(qsPath, metadata.MarshalQuorumState(qs, m.kraftVersion)); err != nil {
		return err
	}
	if m.readRecords == 0 {
		// A fresh log: leave what `kafka-storage format` leaves beside it.
		if err := writeBootstrapSnapshot(m.log.Dir(), m.now().UnixMilli()); err != nil {
			return err
		}
	}
	m.epoch.Store(epoch)
	voters := []metadata.Voter{{VoterID: node}}
	lc := &metadata.LeaderChangeMessage{LeaderID: node, Voters: voters, GrantingVoters: voters}
	return m.appendDurably(metadata.BuildControlBatch(0, epoch, m.now().UnixMilli(), lc))
}

// knownEpoch is the highest raft epoch in the log, its snapshots or
// quorum-state: the epoch of the last leader before this process.
func (m *metadataLog) knownEpoch() (int32, error) {
	epoch := max(m.lastEpoch, m.log.LatestEpoch())
	b, err := os.ReadFile(filepath.Join(m.log.Dir(), metadata.QuorumStateFileName))
	if err == nil {
		if qs, err := metadata.ParseQuorumState(b); err == nil {
			epoch = max(epoch, qs.LeaderEpoch)
		}
	} else if !errors.Is(err, os.ErrNotExist) {
		return 0, err
	}
	return epoch, nil
}

// writeBootstrapSnapshot leaves the bootstrap snapshot Kafka 4.4's format
// writes in the metadata partition directory, unless one is there.
func writeBootstrapSnapshot(partitionDir string, nowMs int64) error {
	path := filepath.Join(partitionDir, metadata.BootstrapSnapshotFileName)
	if _, err := os.Stat(path); err == nil || !errors.Is(err, os.ErrNotExist) {
		return err
	}
	return writeFileSynced(path, metadata.BootstrapSnapshot(nowMs))
}

// writeFileSynced replaces path with data through a synced temporary file
// and a rename, so a crash leaves the old or the new file, never a mix.
func writeFileSynced(path string, data []byte) error {
	tmp := path + ".tmp"
	f, err := os.OpenFile(tmp, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if d, err := os.Open(filepath.Dir(path)); err == nil {
		d.Sync()
		d.Close()
	}
	return nil
}
