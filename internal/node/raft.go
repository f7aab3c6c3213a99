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
	if err := writeFileSynced(qsPath, metadata.MarshalQuorumState(qs, m.KRaftVersion())); err != nil {
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
	records := []metadata.ControlRecord{&metadata.LeaderChangeMessage{LeaderID: node, Voters: voters, GrantingVoters: voters}}
	var voterSet *metadata.VotersRecord
	if kv := m.KRaftVersion(); kv > 0 {
		// A dynamic quorum's leader restates kraft.version and the voter
		// set, itself with its present listeners, in the same batch
		// (Kafka 4.4.0 writes LeaderChange, KRaftVersion, Voters).
		voterSet = m.localVoterSet()
		records = append(records, &metadata.KRaftVersionRecord{KRaftVersion: kv}, voterSet)
	}
	if err := m.appendDurably(metadata.BuildControlBatch(0, epoch, m.now().UnixMilli(), records...)); err != nil {
		return err
	}
	if voterSet != nil {
		m.voters.Store(voterSet)
	}
	return nil
}

// localVoterSet is the voter set with this node as its voter: its
// directory id, the listeners the config names (those of the voter set in
// force while the node's own are not known yet: before it listens), and
// the kraft.version range Karst supports.
func (m *metadataLog) localVoterSet() *metadata.VotersRecord {
	supported, _ := metadata.LookupSupportedFeature(metadata.FeatureKRaftVersion)
	voter := metadata.VoterInfo{VoterID: m.nodeID, VoterDirectoryID: m.directoryID, Endpoints: m.ownEndpoints(),
		MinKRaftVersion: supported.MinLevel, MaxKRaftVersion: supported.MaxLevel}
	return &metadata.VotersRecord{Voters: []metadata.VoterInfo{voter}}
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

// UpgradeKRaftVersion is what Kafka 4.4's raft leader appends when
// kraft.version is raised (LeaderState.maybeAppendUpgradedKRaftVersion,
// measured on a 4.4.0 node with a static quorum): one control batch of the
// KRaftVersionRecord and the VotersRecord of the voter set, this node with
// its directory id and listeners, supporting kraft.version 0-1. From then
// on the quorum is dynamic: DescribeQuorum shows the directory id, and the
// next election writes quorum-state at data_version 1. Called under the
// store's lock.
func (m *metadataLog) UpgradeKRaftVersion(level int16) error {
	if m.epoch.Load() == 0 {
		if err := m.becomeLeader(); err != nil {
			return fmt.Errorf("%s: starting a raft epoch: %w", metadataLogPartition, err)
		}
	}
	voters := m.localVoterSet()
	batch := metadata.BuildControlBatch(0, m.epoch.Load(), m.now().UnixMilli(), &metadata.KRaftVersionRecord{KRaftVersion: level}, voters)
	if err := m.appendDurably(batch); err != nil {
		return err
	}
	m.voters.Store(voters)
	m.kraftVersion.Store(int32(level))
	return nil
}
