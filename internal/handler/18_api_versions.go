package handler

// ApiVersions (key 18), versions 0–5.
//
//	v0: the error code and the api key ranges.
//	v1: throttle time.
//	v2: no change.
//	v3: flexible; the client announces its software name and version
//	    (KIP-511); the response carries supported and finalized features.
//	v4: no change; lets a client see UNSUPPORTED_VERSION for v4+ itself.
//	v5: the cluster id and node id the client means to reach (KIP-1242):
//	    one without the other is INVALID_REQUEST; set and not this
//	    broker's, REBOOTSTRAP_REQUIRED, so a client that remembered a
//	    stale address rebootstraps.
//
// As in Kafka, an error answer carries the error alone (no key table).
// A request above v5 is answered (by the server, before decoding) with a v0
// body carrying UNSUPPORTED_VERSION and the full table, as KIP-35 and
// KIP-511 ask, so the client can retry at a version it finds there.

import (
	"context"
	"regexp"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

func init() { register(18, 0, 5, (*Broker).handleAPIVersions) }

// clientSoftwarePattern is the rule Kafka applies to the KIP-511 fields.
var clientSoftwarePattern = regexp.MustCompile(`^[a-zA-Z0-9](?:[a-zA-Z0-9\-.]*[a-zA-Z0-9])?$`)

func (b *Broker) handleAPIVersions(_ context.Context, r *Request) Outcome {
	req := r.Body.(*kmsg.ApiVersionsRequest)
	if !validAPIVersionsRequest(req, r.Version()) {
		return Ready(apiVersionsError(r.Version(), kerr.InvalidRequest))
	}
	if r.Version() >= 5 && req.ClusterID != nil && (*req.ClusterID != b.opts.ClusterID || req.NodeID != b.opts.NodeID) {
		return Ready(apiVersionsError(r.Version(), kerr.RebootstrapRequired))
	}
	resp := APIVersionsResponse(r.Version(), 0)
	if r.Version() >= 3 {
		r.Conn.SetClientSoftware(req.ClientSoftwareName, req.ClientSoftwareVersion)
		b.addFeatures(resp, r.Version())
	}
	return Ready(resp)
}

// validAPIVersionsRequest is Kafka's ApiVersionsRequest.isValid: from v5
// the cluster id and node id come together or not at all; from v3 the
// client software fields follow clientSoftwarePattern.
func validAPIVersionsRequest(req *kmsg.ApiVersionsRequest, v int16) bool {
	if v >= 5 && (req.ClusterID == nil) != (req.NodeID == -1) {
		return false
	}
	return v < 3 || clientSoftwarePattern.MatchString(req.ClientSoftwareName) && clientSoftwarePattern.MatchString(req.ClientSoftwareVersion)
}

func apiVersionsError(v int16, err *kerr.Error) *kmsg.ApiVersionsResponse {
	resp := kmsg.NewPtrApiVersionsResponse()
	resp.SetVersion(v)
	resp.ErrorCode = err.Code
	return resp
}

// APIVersionsResponse builds an ApiVersions response at version v listing
// every API in the dispatch table.
func APIVersionsResponse(v int16, errorCode int16) *kmsg.ApiVersionsResponse {
	resp := kmsg.NewPtrApiVersionsResponse()
	resp.SetVersion(v)
	resp.ErrorCode = errorCode
	for _, a := range Table() {
		k := kmsg.NewApiVersionsResponseApiKey()
		k.ApiKey, k.MinVersion, k.MaxVersion = a.Key, a.MinVersion, a.MaxVersion
		resp.ApiKeys = append(resp.ApiKeys, k)
	}
	return resp
}
