package handler

// AlterConfigs (key 33), versions 0–2 (deprecated by
// IncrementalAlterConfigs, still used by older tools and clients).
//
//	v0: per resource, the complete new set of configs; validate_only.
//	v1: no change (throttling after the response).
//	v2: flexible.
//
// Each resource's configs are replaced: keys not named are deleted. The
// checks, messages and stored records are those of IncrementalAlterConfigs
// (see 44_incremental_alter_configs.go), as Kafka's controller shares them.

import (
	"context"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/karst-broker/karst/internal/config"
)

func init() { register(33, 0, 2, (*Broker).handleAlterConfigs) }

func (b *Broker) handleAlterConfigs(_ context.Context, r *Request) Outcome {
	req := r.Body.(*kmsg.AlterConfigsRequest)
	resp := kmsg.NewPtrAlterConfigsResponse()
	dups := duplicateResources(len(req.Resources), func(i int) (int8, string) {
		return int8(req.Resources[i].ResourceType), req.Resources[i].ResourceName
	})
	for i, rr := range req.Resources {
		out := kmsg.NewAlterConfigsResponseResource()
		out.ResourceType, out.ResourceName = rr.ResourceType, rr.ResourceName
		if dups[i] == dupLater {
			continue
		}
		var changes []config.ConfigChange
		for _, c := range rr.Configs {
			changes = append(changes, config.ConfigChange{Name: c.Name, Op: config.OpSet, Value: c.Value})
		}
		out.ErrorCode, out.ErrorMessage = b.alterConfigResource(int8(rr.ResourceType), rr.ResourceName, changes, true, req.ValidateOnly, dups[i] == dupFirst)
		resp.Resources = append(resp.Resources, out)
	}
	return Ready(resp)
}
