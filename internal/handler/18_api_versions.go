package handler

// ApiVersions (key 18), versions 0–4.
//
//	v0: the error code and the api key ranges.
//	v1: throttle time.
//	v2: no change.
//	v3: flexible; the client announces its software name and version
//	    (KIP-511); the response carries supported and finalized features.
//	v4: no change; lets a client see UNSUPPORTED_VERSION for v4+ itself.
//
// A request above v4 is answered (by the server, before decoding) with a v0
// body carrying UNSUPPORTED_VERSION and the full table, as KIP-35 and
// KIP-511 ask, so the client can retry at a version it finds there.

import (
	"context"
	"regexp"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

func init() { register(18, 0, 4, (*Broker).handleAPIVersions) }

// clientSoftwarePattern is the rule Kafka applies to the KIP-511 fields.
var clientSoftwarePattern = regexp.MustCompile(`^[a-zA-Z0-9](?:[a-zA-Z0-9\-.]*[a-zA-Z0-9])?$`)

func (b *Broker) handleAPIVersions(_ context.Context, r *Request) Outcome {
	req := r.Body.(*kmsg.ApiVersionsRequest)
	if r.Version() >= 3 && (!clientSoftwarePattern.MatchString(req.ClientSoftwareName) || !clientSoftwarePattern.MatchString(req.ClientSoftwareVersion)) {
		// Kafka answers an invalid request with the error alone: no key table.
		resp := kmsg.NewPtrApiVersionsResponse()
		resp.SetVersion(r.Version())
		resp.ErrorCode = kerr.InvalidRequest.Code
		return Ready(resp)
	}
	resp := APIVersionsResponse(r.Version(), 0)
	if r.Version() >= 3 {
		r.Conn.SetClientSoftware(req.ClientSoftwareName, req.ClientSoftwareVersion)
		addFeatures(resp, r.Version())
	}
	return Ready(resp)
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
