package handler

// UpdateFeatures (key 57), versions 0–2.
//
//	v0: feature updates with allow_downgrade (which Kafka's controller
//	    ignores: every v0 entry is an upgrade) and a timeout.
//	v1: upgrade_type per entry (1 upgrade, 2 safe downgrade, 3 unsafe
//	    downgrade) instead of allow_downgrade; validate_only.
//	v2: the response carries no per-feature results.
//
// As Kafka 4.4's controller (FeatureControlManager): every entry is checked
// against the supported ranges and the levels in force, and the first one
// refused fails the whole request with INVALID_UPDATE_VERSION and "The
// update failed for all features since the following feature had an
// error: ..."; nothing is written then. Accepted levels become
// FeatureLevelRecords in __cluster_metadata in one batch, so ApiVersions
// reports them from then on; validate_only writes nothing. On success v0
// and v1 answer each entry with error 0 and message "NONE", as Kafka does.
// The timeout is not needed: the levels are in force when the response
// is sent.

import (
	"context"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/karst-broker/karst/internal/metadata"
)

func init() { register(57, 0, 2, (*Broker).handleUpdateFeatures) }

func (b *Broker) handleUpdateFeatures(_ context.Context, r *Request) Outcome {
	req := r.Body.(*kmsg.UpdateFeaturesRequest)
	resp := kmsg.NewPtrUpdateFeaturesResponse()
	if b.opts.Metadata == nil {
		resp.ErrorCode = kerr.UnknownServerError.Code
		return Ready(resp)
	}
	updates := make([]metadata.FeatureUpdate, 0, len(req.FeatureUpdates))
	for _, u := range req.FeatureUpdates {
		typ := metadata.UpgradeType(u.UpgradeType)
		if r.Version() == 0 {
			typ = metadata.UpgradeOnly
		}
		updates = append(updates, metadata.FeatureUpdate{Name: u.Feature, Level: u.MaxVersionLevel, Type: typ})
	}
	if err := b.opts.Metadata.UpdateFeatures(updates, req.ValidateOnly); err != nil {
		resp.ErrorCode = metadata.ErrorCode(err)
		msg := err.Error()
		if m := metadata.ErrorMessage(err); m != nil {
			msg = *m
		}
		msg = "The update failed for all features since the following feature had an error: " + msg
		resp.ErrorMessage = &msg
		return Ready(resp)
	}
	if r.Version() <= 1 {
		none := "NONE"
		for _, u := range req.FeatureUpdates {
			res := kmsg.NewUpdateFeaturesResponseResult()
			res.Feature, res.ErrorMessage = u.Feature, &none
			resp.Results = append(resp.Results, res)
		}
	}
	return Ready(resp)
}
