package node

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	klog "github.com/karst-broker/karst/internal/log"
	"github.com/karst-broker/karst/internal/metadata"
)

func quorumOf(ctx context.Context, t *testing.T, cl *kgo.Client) *kmsg.DescribeQuorumResponse {
	t.Helper()
	req := kmsg.NewPtrDescribeQuorumRequest()
	rt := kmsg.NewDescribeQuorumRequestTopic()
	rt.Topic = metadata.ClusterMetadataTopic
	rt.Partitions = []kmsg.DescribeQuorumRequestTopicPartition{kmsg.NewDescribeQuorumRequestTopicPartition()}
	req.Topics = append(req.Topics, rt)
	resp, err := req.RequestWith(ctx, cl)
	if err != nil || len(resp.Topics) != 1 || len(resp.Topics[0].Partitions) != 1 || len(resp.Nodes) != 1 {
		t.Fatalf("describe quorum: %v %+v", err, resp)
	}
	return resp
}

func finalizedKRaftVersion(ctx context.Context, t *testing.T, cl *kgo.Client) int16 {
	t.Helper()
	req := kmsg.NewPtrApiVersionsRequest()
	req.ClientSoftwareName, req.ClientSoftwareVersion = "karst-test", "1"
	resp, err := req.RequestWith(ctx, cl)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range resp.FinalizedFeatures {
		if f.Name == metadata.FeatureKRaftVersion {
			return f.MaxVersionLevel
		}
	}
	return 0
}

func setKRaftVersion(ctx context.Context, t *testing.T, cl *kgo.Client, level int16, upgradeType int8) *kmsg.UpdateFeaturesResponse {
	t.Helper()
	req := kmsg.NewPtrUpdateFeaturesRequest()
	u := kmsg.NewUpdateFeaturesRequestFeatureUpdate()
	u.Feature, u.MaxVersionLevel, u.UpgradeType = metadata.FeatureKRaftVersion, level, upgradeType
	req.FeatureUpdates, req.TimeoutMillis = append(req.FeatureUpdates, u), 10000
	resp, err := req.RequestWith(ctx, cl)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

// As `kafka-features upgrade --feature kraft.version=1` on Kafka 4.4.0 with
// a static quorum: the upgrade succeeds, the raft log gets one control
// batch of a KRaftVersionRecord and a VotersRecord (the node, its
// directory id, its listeners), and from then on ApiVersions finalizes
// kraft.version 1 and DescribeQuorum shows the voter's directory id, also
// after a restart, whose quorum-state is written at data_version 1.
func TestKRaftVersionUpgradeMakesTheQuorumDynamic(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	dir := t.TempDir()
	// A controller listener as Kafka's combined-mode config names one;
	// Karst binds none, it publishes it as the voter's.
	controller := []string{"listeners=PLAINTEXT://127.0.0.1:0,CONTROLLER://127.0.0.1:19093", "controller.listener.names=CONTROLLER",
		"listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT"}
	n, cl := startTestNode(t, dir, controller...)
	if l := quorumOf(ctx, t, cl).Nodes[0].Listeners; len(l) != 1 || l[0].Name != "CONTROLLER" || l[0].Port != 19093 {
		t.Fatalf("static quorum listeners %+v", l)
	}
	if v := finalizedKRaftVersion(ctx, t, cl); v != 0 {
		t.Fatalf("a fresh node finalizes kraft.version %d", v)
	}
	if id := quorumOf(ctx, t, cl).Topics[0].Partitions[0].CurrentVoters[0].ReplicaDirectoryID; id != [16]byte{} {
		t.Fatalf("a static quorum's voter has directory id %v", id)
	}
	if resp := setKRaftVersion(ctx, t, cl, 1, 1); resp.ErrorCode != 0 {
		t.Fatalf("upgrade: %+v", resp)
	}
	mp, err := klog.ReadMetaProperties(dir)
	if err != nil {
		t.Fatal(err)
	}
	check := func(when string) {
		t.Helper()
		if v := finalizedKRaftVersion(ctx, t, cl); v != 1 {
			t.Fatalf("%s: finalized kraft.version %d", when, v)
		}
		q := quorumOf(ctx, t, cl)
		if id := metadata.UUID(q.Topics[0].Partitions[0].CurrentVoters[0].ReplicaDirectoryID); id.String() != mp.DirectoryID {
			t.Fatalf("%s: voter directory id %s, want %s", when, id, mp.DirectoryID)
		}
		if l := q.Nodes[0].Listeners; len(l) != 1 || l[0].Name != "CONTROLLER" || l[0].Host != "127.0.0.1" || l[0].Port != 19093 {
			t.Fatalf("%s: listeners %+v", when, l)
		}
	}
	check("after the upgrade")
	var voters *metadata.VotersRecord
	partitionDir := filepath.Join(dir, metadataLogPartition.String())
	for _, b := range logBatches(t, partitionDir) {
		if !b.Control || len(b.Records) != 2 {
			continue
		}
		if kt, _ := metadata.ParseControlKey(b.Records[0].Key); kt != metadata.ControlKRaftVersion {
			continue
		}
		c, err := metadata.DecodeControl(metadata.ControlKRaftVoters, b.Records[1].Value)
		if err != nil {
			t.Fatal(err)
		}
		voters = c.(*metadata.VotersRecord)
	}
	if voters == nil || len(voters.Voters) != 1 || voters.Voters[0].VoterID != 1 || voters.Voters[0].VoterDirectoryID.String() != mp.DirectoryID ||
		voters.Voters[0].MaxKRaftVersion != 1 {
		t.Fatalf("voters record %+v", voters)
	}
	stopTestNode(t, n, cl)

	n, cl = startTestNode(t, dir, controller...)
	defer stopTestNode(t, n, cl)
	check("after a restart")
	// The first write of the new epoch: quorum-state at data_version 1 and
	// a start-of-epoch batch of LeaderChange, KRaftVersion and Voters.
	if _, err := kadm.NewClient(cl).CreateTopic(ctx, 1, 1, nil, "after-restart"); err != nil {
		t.Fatal(err)
	}
	var epochStart []metadata.ControlType
	for _, b := range logBatches(t, partitionDir) {
		if b.Control && b.LeaderEpoch == 2 {
			for _, r := range b.Records {
				ct, _ := metadata.ParseControlKey(r.Key)
				epochStart = append(epochStart, ct)
			}
		}
	}
	if !slices.Equal(epochStart, []metadata.ControlType{metadata.ControlLeaderChange, metadata.ControlKRaftVersion, metadata.ControlKRaftVoters}) {
		t.Fatalf("epoch 2 starts with control records %v", epochStart)
	}
	if qs, err := os.ReadFile(filepath.Join(partitionDir, metadata.QuorumStateFileName)); err != nil || !strings.Contains(string(qs), `"data_version":1`) {
		t.Fatalf("quorum-state %s %v", qs, err)
	}
	if resp := setKRaftVersion(ctx, t, cl, 0, 2); resp.ErrorCode == 0 {
		t.Fatal("kraft.version went back to 0")
	}
}

// A data directory `kafka-storage format --standalone` of Kafka 4.4.0
// wrote (testdata/kafka440-standalone: its meta.properties and bootstrap
// checkpoint, whose KRaftVersionRecord and VotersRecord make the quorum
// dynamic) is served as Kafka serves it: kraft.version 1 finalized, the
// voter's directory id and the VotersRecord's controller listener in
// DescribeQuorum (Kafka 4.4.0 answered the same on that directory).
func TestKafkaStandaloneDirectoryIsADynamicQuorum(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	dir := t.TempDir()
	src := "testdata/kafka440-standalone"
	for _, name := range []string{"meta.properties", "__cluster_metadata-0/00000000000000000000-0000000000.checkpoint"} {
		data, err := os.ReadFile(filepath.Join(src, name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	n, cl := startTestNode(t, dir)
	defer stopTestNode(t, n, cl)
	if v := finalizedKRaftVersion(ctx, t, cl); v != 1 {
		t.Fatalf("finalized kraft.version %d, want 1", v)
	}
	q := quorumOf(ctx, t, cl)
	if id := metadata.UUID(q.Topics[0].Partitions[0].CurrentVoters[0].ReplicaDirectoryID); id.String() != "xcD5yDMTRrOD_WlqyLOh2Q" {
		t.Fatalf("voter directory id %s", id)
	}
	if l := q.Nodes[0].Listeners; len(l) != 1 || l[0].Name != "CONTROLLER" || l[0].Host != "127.0.0.1" || l[0].Port != 36893 {
		t.Fatalf("listeners %+v", l)
	}
	want := "The update failed for all features since the following feature had an error: Invalid update version 0 for feature kraft.version. Can't downgrade the version of this feature."
	if resp := setKRaftVersion(ctx, t, cl, 0, 2); resp.ErrorMessage == nil || *resp.ErrorMessage != want {
		t.Fatalf("downgrade: %+v", resp)
	}
	if resp := setKRaftVersion(ctx, t, cl, 1, 1); resp.ErrorCode != 0 {
		t.Fatalf("upgrade to the level in force: %+v", resp)
	}
}
