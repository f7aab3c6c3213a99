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
	b := NewBroker(Options{})
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
	want := map[string]int16{"metadata.version": 27, "transaction.version": 2, "group.version": 1}
	if !maps.Equal(finalized, want) {
		t.Fatalf("finalized features %v, want %v (Kafka 4.1's)", finalized, want)
	}
}

func TestAPIVersionsRejectsInvalidClientSoftware(t *testing.T) {
	for _, bad := range []string{"", "-lead", "trail.", "sp ace", "ünïcode"} {
		resp, conn := apiVersions(t, 3, bad, "1.0")
		if resp.ErrorCode != kerr.InvalidRequest.Code {
			t.Errorf("name %q: error %d, want INVALID_REQUEST", bad, resp.ErrorCode)
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
