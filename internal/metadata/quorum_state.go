package metadata

import (
	"encoding/json"
	"fmt"
)

// QuorumStateFileName is the raft election state file inside
// __cluster_metadata-0.
const QuorumStateFileName = "quorum-state"

// QuorumState is the election state Kafka's FileQuorumStateStore keeps:
// QuorumStateData as JSON plus a data_version field. A node leading its own
// single-node quorum has LeaderID = itself and VotedID = -1.
type QuorumState struct {
	LeaderID         int32
	LeaderEpoch      int32
	VotedID          int32
	VotedDirectoryID UUID    // data_version 1 only
	Voters           []int32 // currentVoters, data_version 0 only
}

type quorumStateV0 struct {
	ClusterID     string   `json:"clusterId"`
	LeaderID      int32    `json:"leaderId"`
	LeaderEpoch   int32    `json:"leaderEpoch"`
	VotedID       int32    `json:"votedId"`
	AppliedOffset int64    `json:"appliedOffset"`
	CurrentVoters *[]voter `json:"currentVoters"`
	DataVersion   int16    `json:"data_version"`
}

type voter struct {
	VoterID int32 `json:"voterId"`
}

type quorumStateV1 struct {
	LeaderID         int32  `json:"leaderId"`
	LeaderEpoch      int32  `json:"leaderEpoch"`
	VotedID          int32  `json:"votedId"`
	VotedDirectoryID string `json:"votedDirectoryId"`
	DataVersion      int16  `json:"data_version"`
}

// MarshalQuorumState renders the file as Kafka does for kraft.version 0
// (data_version 0, static quorum) or 1 (data_version 1, dynamic quorum).
func MarshalQuorumState(q QuorumState, kraftVersion int16) []byte {
	var v any
	if kraftVersion == 0 {
		voters := make([]voter, len(q.Voters))
		for i, id := range q.Voters {
			voters[i] = voter{VoterID: id}
		}
		v = quorumStateV0{LeaderID: q.LeaderID, LeaderEpoch: q.LeaderEpoch, VotedID: q.VotedID, CurrentVoters: &voters}
	} else {
		v = quorumStateV1{LeaderID: q.LeaderID, LeaderEpoch: q.LeaderEpoch, VotedID: q.VotedID,
			VotedDirectoryID: q.VotedDirectoryID.String(), DataVersion: 1}
	}
	b, err := json.Marshal(v)
	if err != nil {
		panic(err) // plain structs always marshal
	}
	return b
}

// ParseQuorumState reads a quorum-state file of data_version 0 or 1.
func ParseQuorumState(b []byte) (QuorumState, error) {
	var raw struct {
		LeaderID         *int32  `json:"leaderId"`
		LeaderEpoch      *int32  `json:"leaderEpoch"`
		VotedID          *int32  `json:"votedId"`
		VotedDirectoryID *string `json:"votedDirectoryId"`
		CurrentVoters    []voter `json:"currentVoters"`
		DataVersion      *int16  `json:"data_version"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		return QuorumState{}, fmt.Errorf("metadata: quorum-state: %w", err)
	}
	if raw.DataVersion == nil || *raw.DataVersion < 0 || *raw.DataVersion > 1 {
		return QuorumState{}, fmt.Errorf("metadata: quorum-state: missing or unsupported data_version")
	}
	q := QuorumState{LeaderID: -1, LeaderEpoch: -1, VotedID: -1}
	if raw.LeaderID != nil {
		q.LeaderID = *raw.LeaderID
	}
	if raw.LeaderEpoch != nil {
		q.LeaderEpoch = *raw.LeaderEpoch
	}
	if raw.VotedID != nil {
		q.VotedID = *raw.VotedID
	}
	if raw.VotedDirectoryID != nil {
		id, err := ParseUUID(*raw.VotedDirectoryID)
		if err != nil {
			return QuorumState{}, err
		}
		q.VotedDirectoryID = id
	}
	for _, v := range raw.CurrentVoters {
		q.Voters = append(q.Voters, v.VoterID)
	}
	return q, nil
}
