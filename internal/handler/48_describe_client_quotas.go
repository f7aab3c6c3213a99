package handler

// DescribeClientQuotas (key 48), versions 0–1 (v1: flexible).
//
// Answers from the ClientQuotaRecords in the cluster metadata, filtered as
// Kafka's ClientQuotasImage.describe filters: each component names an
// entity type (user, client-id, ip) and a match type: EXACT (that name),
// DEFAULT (the type's default entity) or SPECIFIED (any entity with the
// type); strict keeps only entities with no other types. A filter Kafka
// refuses fails the whole request with its code and message and no
// entries. Quotas are stored, not enforced.

import (
	"context"
	"maps"
	"slices"
	"strconv"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/karst-broker/karst/internal/metadata"
)

func init() { register(48, 0, 1, (*Broker).handleDescribeClientQuotas) }

// Match types of a DescribeClientQuotas component.
const (
	quotaMatchExact     = 0
	quotaMatchDefault   = 1
	quotaMatchSpecified = 2
)

func (b *Broker) handleDescribeClientQuotas(_ context.Context, r *Request) Outcome {
	req := r.Body.(*kmsg.DescribeClientQuotasRequest)
	resp := kmsg.NewPtrDescribeClientQuotasResponse()
	filter, err := parseQuotaFilter(req)
	if err != nil {
		resp.ErrorCode, resp.ErrorMessage = err.Code(), &err.Message
		return Ready(resp)
	}
	resp.Entries = []kmsg.DescribeClientQuotasResponseEntry{}
	for _, q := range b.image().ClientQuotas() {
		if !filter.matches(q.Entity, req.Strict) {
			continue
		}
		entry := kmsg.NewDescribeClientQuotasResponseEntry()
		for _, c := range q.Entity {
			e := kmsg.NewDescribeClientQuotasResponseEntryEntity()
			e.Type, e.Name = c.Type, c.Name
			entry.Entity = append(entry.Entity, e)
		}
		for _, key := range slices.Sorted(maps.Keys(q.Values)) {
			v := kmsg.NewDescribeClientQuotasResponseEntryValue()
			v.Key, v.Value = key, q.Values[key]
			entry.Values = append(entry.Values, v)
		}
		resp.Entries = append(resp.Entries, entry)
	}
	return Ready(resp)
}

// quotaFilter is a parsed DescribeClientQuotas filter: exact maps a type to
// the name it must have (nil: the default entity); specified lists types
// that must be present with any name.
type quotaFilter struct {
	exact     map[string]*string
	specified map[string]bool
}

func parseQuotaFilter(req *kmsg.DescribeClientQuotasRequest) (*quotaFilter, *metadata.Error) {
	f := &quotaFilter{exact: map[string]*string{}, specified: map[string]bool{}}
	refuse := func(code *kerr.Error, msg string) (*quotaFilter, *metadata.Error) {
		return nil, &metadata.Error{Err: code, Message: msg}
	}
	for _, c := range req.Components {
		_, inExact := f.exact[c.EntityType]
		switch {
		case c.EntityType == "":
			return refuse(kerr.InvalidRequest, "Invalid empty entity type.")
		case inExact || f.specified[c.EntityType]:
			return refuse(kerr.InvalidRequest, "Entity type "+c.EntityType+" cannot appear more than once in the filter.")
		case c.EntityType != metadata.QuotaEntityIP && c.EntityType != metadata.QuotaEntityUser && c.EntityType != metadata.QuotaEntityClientID:
			return refuse(kerr.UnsupportedVersion, "Unsupported entity type "+c.EntityType)
		}
		switch c.MatchType {
		case quotaMatchExact:
			if c.Match == nil {
				return refuse(kerr.InvalidRequest, "Request specified MATCH_TYPE_EXACT, but set match string to null.")
			}
			f.exact[c.EntityType] = c.Match
		case quotaMatchDefault:
			if c.Match != nil {
				return refuse(kerr.InvalidRequest, "Request specified MATCH_TYPE_DEFAULT, but also specified a match string.")
			}
			f.exact[c.EntityType] = nil
		case quotaMatchSpecified:
			if c.Match != nil {
				return refuse(kerr.InvalidRequest, "Request specified MATCH_TYPE_SPECIFIED, but also specified a match string.")
			}
			f.specified[c.EntityType] = true
		default:
			return refuse(kerr.InvalidRequest, "Unknown match type "+strconv.Itoa(int(c.MatchType)))
		}
	}
	if f.has(metadata.QuotaEntityIP) && (f.has(metadata.QuotaEntityUser) || f.has(metadata.QuotaEntityClientID)) {
		return refuse(kerr.InvalidRequest, "Invalid entity filter component combination. IP filter component should not be used with user or clientId filter component.")
	}
	return f, nil
}

func (f *quotaFilter) has(entityType string) bool {
	_, exact := f.exact[entityType]
	return exact || f.specified[entityType]
}

func (f *quotaFilter) matches(e metadata.QuotaEntity, strict bool) bool {
	if strict && len(e) != len(f.exact)+len(f.specified) {
		return false
	}
	for t, want := range f.exact {
		name, ok := e.Name(t)
		if !ok || (name == nil) != (want == nil) || name != nil && *name != *want {
			return false
		}
	}
	for t := range f.specified {
		if _, ok := e.Name(t); !ok {
			return false
		}
	}
	return true
}
