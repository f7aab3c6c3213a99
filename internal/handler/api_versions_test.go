package handler

import (
	"context"
	"maps"
	"testing"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

func apiVersions(t *testing.T, v int16, name, version string) (*kmsg.ApiVersionsResponse, *Conn) {
	t.Helper()
	req := kmsg.NewPtrApiVersionsRequest()
	req.SetVersion(v)
	req.ClientSoftwareName, req.ClientSoftwareVersion = name, version
	conn := &Conn{}
	b := NewBroker(Options{Metadata: newFeatureStore(t)})
	out := b.Handle(context.Background(), Lookup(18), &Request{Header: wireHeader(18, v), Body: req, Conn: conn})
	return out.Response.(*kmsg.ApiVersionsResponse), conn
}

func TestAPIVersionsRemembersClientSoftware(t *testing.T) {
	resp, conn := apiVersions(t, 3, "librdkafka", "2.11.1")
	if resp.ErrorCode != 0 {
		t.Fatalf("error %d", resp.ErrorCode)
	}
	if name, version := conn.ClientSoftware(); name != "librdkafka" || version != "2.11.1" {
		t.Fatalf("remembered %q %q", name, version)
	}
	finalized := map[string]int16{}
	for _, f := range resp.FinalizedFeatures {
		finalized[f.Name] = f.MaxVersionLevel
	}
	want := map[string]int16{"metadata.version": 33, "transaction.version": 2, "group.version": 1, "eligible.leader.replicas.version": 1}
	if !maps.Equal(finalized, want) {
		t.Fatalf("finalized features %v, want %v (Kafka 4.4's without share and streams)", finalized, want)
	}
}

func TestAPIVersionsRejectsInvalidClientSoftware(t *testing.T) {
	for _, bad := range []string{"", "-lead", "trail.", "sp ace", "ünïcode"} {
		resp, conn := apiVersions(t, 3, bad, "1.0")
		if resp.ErrorCode != kerr.InvalidRequest.Code || len(resp.ApiKeys) != 0 {
			t.Errorf("name %q: error %d with %d keys, want INVALID_REQUEST and no keys, as Kafka", bad, resp.ErrorCode, len(resp.ApiKeys))
		}
		if name, _ := conn.ClientSoftware(); name != "" {
			t.Errorf("name %q was remembered", bad)
		}
	}
}

func TestAPIVersionsV0HasNoFeatures(t *testing.T) {
	resp, _ := apiVersions(t, 0, "", "")
	if resp.ErrorCode != 0 || len(resp.SupportedFeatures) != 0 || len(resp.ApiKeys) != len(Table()) {
		t.Fatalf("v0 answer %+v", resp)
	}
}

// TestAPIVersionsV3LeavesOutFeaturesFromLevelZero: Java clients 3.3-3.7
// send v3 and fail on a supported range starting at 0, so Kafka leaves such
// features out below v4 and reports them from v4 on.
func TestAPIVersionsV3LeavesOutFeaturesFromLevelZero(t *testing.T) {
	for _, c := range []struct {
		version int16
		want    map[string]int16
	}{
		{3, map[string]int16{"metadata.version": 7}},
		{4, map[string]int16{"metadata.version": 7, "group.version": 0, "transaction.version": 0, "kraft.version": 0, "eligible.leader.replicas.version": 0}},
	} {
		resp, _ := apiVersions(t, c.version, "apache-kafka-java", "3.7.2")
		got := map[string]int16{}
		for _, f := range resp.SupportedFeatures {
			got[f.Name] = f.MinVersion
		}
		if !maps.Equal(got, c.want) {
			t.Errorf("v%d: supported features (name: min) %v, want %v", c.version, got, c.want)
		}
		if len(resp.FinalizedFeatures) != 4 {
			t.Errorf("v%d: %d finalized features, want all 4", c.version, len(resp.FinalizedFeatures))
		}
	}
}

// TestAPIVersionsV5ChecksClusterAndNode: KIP-1242, as Kafka's
// handleApiVersionsRequest and ApiVersionsRequest.isValid.
func TestAPIVersionsV5ChecksClusterAndNode(t *testing.T) {
	b := NewBroker(Options{ClusterID: "karst-cluster", NodeID: 3})
	str := func(s string) *string { return &s }
	for _, c := range []struct {
		name      string
		clusterID *string
		nodeID    int32
		want      int16
	}{
		{"bootstrapping", nil, -1, 0},
		{"this broker", str("karst-cluster"), 3, 0},
		{"another node", str("karst-cluster"), 4, kerr.RebootstrapRequired.Code},
		{"another cluster", str("other"), 3, kerr.RebootstrapRequired.Code},
		{"cluster id alone", str("karst-cluster"), -1, kerr.InvalidRequest.Code},
		{"node id alone", nil, 3, kerr.InvalidRequest.Code},
	} {
		req := kmsg.NewPtrApiVersionsRequest()
		req.SetVersion(5)
		req.ClientSoftwareName, req.ClientSoftwareVersion = "apache-kafka-java", "4.4.0"
		req.ClusterID, req.NodeID = c.clusterID, c.nodeID
		out := b.Handle(context.Background(), Lookup(18), &Request{Header: wireHeader(18, 5), Body: req, Conn: &Conn{}})
		resp := out.Response.(*kmsg.ApiVersionsResponse)
		if resp.ErrorCode != c.want {
			t.Errorf("%s: error %d, want %d", c.name, resp.ErrorCode, c.want)
		}
		if wantKeys := c.want == 0; (len(resp.ApiKeys) > 0) != wantKeys {
			t.Errorf("%s: %d api keys with error %d; Kafka lists them only without an error", c.name, len(resp.ApiKeys), resp.ErrorCode)
		}
	}
}
