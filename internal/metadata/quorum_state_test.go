package metadata

import (
	"encoding/json"
	"testing"
)

func TestQuorumState(t *testing.T) {
	q := QuorumState{LeaderID: 1, LeaderEpoch: 5, VotedID: -1, VotedDirectoryID: did, Voters: []int32{1}}
	v0 := MarshalQuorumState(q, 0)
	want0 := `{"clusterId":"","leaderId":1,"leaderEpoch":5,"votedId":-1,"appliedOffset":0,"currentVoters":[{"voterId":1}],"data_version":0}`
	if string(v0) != want0 {
		t.Fatalf("v0 %s", v0)
	}
	v1 := MarshalQuorumState(q, 1)
	var m map[string]any
	if err := json.Unmarshal(v1, &m); err != nil || m["votedDirectoryId"] != did.String() || m["data_version"] != 1.0 {
		t.Fatalf("v1 %s", v1)
	}
	if got, _ := ParseQuorumState(v0); len(got.Voters) != 1 || got.Voters[0] != 1 {
		t.Fatalf("v0 voters %v", got.Voters)
	}
	for _, b := range [][]byte{v0, v1} {
		got, err := ParseQuorumState(b)
		if err != nil || got.LeaderID != 1 || got.LeaderEpoch != 5 || got.VotedID != -1 {
			t.Fatalf("parse %s: %+v %v", b, got, err)
		}
	}
	// Kafka's own example (FileQuorumStateStore javadoc, version 1).
	got, err := ParseQuorumState([]byte(`{"leaderId":-1,"leaderEpoch":2,"votedId":1,"votedDirectoryId":"J8aAPcfLQt2bqs1JT_rMgQ","data_version":1}`))
	if err != nil || got.LeaderEpoch != 2 || got.VotedID != 1 || got.VotedDirectoryID.String() != "J8aAPcfLQt2bqs1JT_rMgQ" {
		t.Fatalf("kafka example: %+v %v", got, err)
	}
	for _, bad := range []string{`{}`, `{"data_version":2}`, `nope`, `{"data_version":1,"votedDirectoryId":"x"}`} {
		if _, err := ParseQuorumState([]byte(bad)); err == nil {
			t.Errorf("%s parsed", bad)
		}
	}
}
