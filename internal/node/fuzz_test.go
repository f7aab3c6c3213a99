package node

import (
	"testing"

	"github.com/karst-broker/karst/internal/metadata"
)

// FuzzReplayBatches feeds arbitrary bytes, as a snapshot file or a log
// read would, to the metadata log's batch walker: errors, never panics.
func FuzzReplayBatches(f *testing.F) {
	voters := []metadata.Voter{{VoterID: 1}}
	f.Add(metadata.BuildControlBatch(0, 1, 0, &metadata.LeaderChangeMessage{LeaderID: 1, Voters: voters, GrantingVoters: voters}))
	f.Add(metadata.BuildSnapshot(2, 0, 0, []metadata.Record{&metadata.NoOpRecord{}}, &metadata.KRaftVersionRecord{KRaftVersion: 1}))
	f.Add(metadata.BuildMetadataBatch(5, 1, 0, metadata.BootstrapRecords()))
	f.Fuzz(func(t *testing.T, data []byte) {
		m := &metadataLog{}
		_ = m.replayBatches(data, 0, func(v []byte) error {
			_, _ = metadata.Decode(v)
			return nil
		})
	})
}
