package handler

import (
	"testing"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

func TestDescribeClusterAnswersForTheListener(t *testing.T) {
	f := newAdminFixture(t, nil)
	for v := int16(0); v <= 2; v++ {
		req := kmsg.NewPtrDescribeClusterRequest()
		resp := f.callOn("EXTERNAL", req, v).(*kmsg.DescribeClusterResponse)
		if resp.ErrorCode != 0 || resp.ClusterID != "admin-cluster" || resp.ControllerID != 1 || resp.EndpointType != 1 {
			t.Fatalf("v%d: %+v", v, resp)
		}
		if len(resp.Brokers) != 1 || resp.Brokers[0].NodeID != 1 || resp.Brokers[0].Host != "broker.example" || resp.Brokers[0].Port != 19092 || resp.Brokers[0].IsFenced {
			t.Fatalf("v%d brokers %+v", v, resp.Brokers)
		}
		if resp.ClusterAuthorizedOperations != authorizedOperationsNotRequested {
			t.Fatalf("v%d authorized operations %d without asking", v, resp.ClusterAuthorizedOperations)
		}
	}
}

func TestDescribeClusterAuthorizedOperations(t *testing.T) {
	f := newAdminFixture(t, nil)
	req := kmsg.NewPtrDescribeClusterRequest()
	req.IncludeClusterAuthorizedOperations = true
	resp := f.call(req, 2).(*kmsg.DescribeClusterResponse)
	// CREATE, ALTER, DESCRIBE, CLUSTER_ACTION, DESCRIBE_CONFIGS, ALTER_CONFIGS, IDEMPOTENT_WRITE
	if resp.ClusterAuthorizedOperations != 8096 {
		t.Fatalf("authorized operations %d, want 8096", resp.ClusterAuthorizedOperations)
	}
}

func TestDescribeClusterEndpointTypes(t *testing.T) {
	f := newAdminFixture(t, nil)
	for _, c := range []struct {
		endpointType int8
		want         int16
	}{{1, 0}, {2, kerr.MismatchedEndpointType.Code}, {0, kerr.UnsupportedEndpointType.Code}, {7, kerr.UnsupportedEndpointType.Code}} {
		req := kmsg.NewPtrDescribeClusterRequest()
		req.EndpointType = c.endpointType
		resp := f.call(req, 1).(*kmsg.DescribeClusterResponse)
		if resp.ErrorCode != c.want {
			t.Errorf("endpoint type %d: error %d, want %d", c.endpointType, resp.ErrorCode, c.want)
		}
		if c.want != 0 && (resp.ErrorMessage == nil || len(resp.Brokers) != 0) {
			t.Errorf("endpoint type %d: %+v", c.endpointType, resp)
		}
	}
	// v0 has no endpoint type: a zero value decoded from the wire is brokers.
	req := kmsg.NewPtrDescribeClusterRequest()
	req.EndpointType = 0
	if resp := f.call(req, 0).(*kmsg.DescribeClusterResponse); resp.ErrorCode != 0 {
		t.Fatalf("v0: error %d", resp.ErrorCode)
	}
}
