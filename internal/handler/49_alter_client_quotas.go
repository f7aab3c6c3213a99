package handler

// AlterClientQuotas (key 49), versions 0–1 (v1: flexible).
//
// Sets and removes quota keys of user, client-id and ip entities, checked
// and stored as Kafka's ClientQuotaControlManager does (see
// metadata.Image.AlterClientQuotas): ClientQuotaRecords in the cluster
// metadata, one per key whose value changes, none for validate_only. The
// answer has one entry per distinct entity. An ip entity must be an
// address or a host name that resolves, as Java's InetAddress.getByName
// requires. Quotas are stored, not enforced.

import (
	"context"
	"net"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/karst-broker/karst/internal/metadata"
)

func init() { register(49, 0, 1, (*Broker).handleAlterClientQuotas) }

// quotaHostLookupTimeout bounds the resolution of an ip entity's host name.
const quotaHostLookupTimeout = 5 * time.Second

func (b *Broker) handleAlterClientQuotas(ctx context.Context, r *Request) Outcome {
	req := r.Body.(*kmsg.AlterClientQuotasRequest)
	resp := kmsg.NewPtrAlterClientQuotasResponse()
	alterations := make([]metadata.QuotaAlteration, 0, len(req.Entries))
	for _, e := range req.Entries {
		var components []metadata.QuotaEntityData
		for _, c := range e.Entity {
			components = append(components, metadata.QuotaEntityData{Type: c.Type, Name: c.Name})
		}
		alt := metadata.QuotaAlteration{Entity: metadata.NewQuotaEntity(components)}
		for _, op := range e.Ops {
			qop := metadata.QuotaOp{Key: op.Key}
			if !op.Remove {
				v := op.Value
				qop.Value = &v
			}
			alt.Ops = append(alt.Ops, qop)
		}
		alterations = append(alterations, alt)
	}
	validIP := func(host string) bool { return resolvableHost(ctx, host) }
	results, err := b.opts.Metadata.AlterClientQuotas(alterations, validIP, req.ValidateOnly)
	for _, res := range results {
		entry := kmsg.NewAlterClientQuotasResponseEntry()
		for _, c := range res.Entity {
			e := kmsg.NewAlterClientQuotasResponseEntryEntity()
			e.Type, e.Name = c.Type, c.Name
			entry.Entity = append(entry.Entity, e)
		}
		switch {
		case res.Err != nil:
			entry.ErrorCode, entry.ErrorMessage = res.Err.Code(), &res.Err.Message
		case err != nil:
			msg := err.Error()
			entry.ErrorCode, entry.ErrorMessage = kerr.UnknownServerError.Code, &msg
		}
		resp.Entries = append(resp.Entries, entry)
	}
	if err == nil && !req.ValidateOnly && len(results) > 0 {
		b.logger.Info("altered client quotas", "entities", len(results))
	}
	return Ready(resp)
}

// resolvableHost reports whether host is an IP address or a name that
// resolves.
func resolvableHost(ctx context.Context, host string) bool {
	if net.ParseIP(host) != nil {
		return true
	}
	ctx, cancel := context.WithTimeout(ctx, quotaHostLookupTimeout)
	defer cancel()
	addrs, err := net.DefaultResolver.LookupHost(ctx, host)
	return err == nil && len(addrs) > 0
}
