package metadata

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/twmb/franz-go/pkg/kerr"
)

// QuotaEntity names the entity a set of client quotas applies to: one
// component per entity type, a nil name being the type's default. It is
// kept in a canonical order (client-id, user, ip: the order Kafka's
// HashMap iterates them in) so equal entities compare equal.
type QuotaEntity []QuotaEntityData

// NewQuotaEntity returns the canonical form of components; a repeated type
// keeps its last name, as Kafka's request parsing does.
func NewQuotaEntity(components []QuotaEntityData) QuotaEntity {
	byType := map[string]*string{}
	for _, c := range components {
		byType[c.Type] = c.Name
	}
	out := make(QuotaEntity, 0, len(byType))
	for t, n := range byType {
		out = append(out, QuotaEntityData{Type: t, Name: n})
	}
	sort.Slice(out, func(i, j int) bool {
		return quotaTypeRank(out[i].Type) < quotaTypeRank(out[j].Type) || quotaTypeRank(out[i].Type) == quotaTypeRank(out[j].Type) && out[i].Type < out[j].Type
	})
	return out
}

func quotaTypeRank(t string) int {
	switch t {
	case QuotaEntityClientID:
		return 0
	case QuotaEntityUser:
		return 1
	case QuotaEntityIP:
		return 2
	}
	return 3
}

// key is a map key for the entity.
func (e QuotaEntity) key() string {
	var b strings.Builder
	for _, c := range e {
		b.WriteString(c.Type)
		if c.Name == nil {
			b.WriteString("\x00")
		} else {
			b.WriteString("=" + *c.Name)
		}
		b.WriteString("\x01")
	}
	return b.String()
}

// Name returns the entity's name for a type and whether the type is part
// of the entity.
func (e QuotaEntity) Name(entityType string) (*string, bool) {
	for _, c := range e {
		if c.Type == entityType {
			return c.Name, true
		}
	}
	return nil, false
}

// String renders the entity as Kafka's ClientQuotaEntity.toString does,
// for the messages that quote it.
func (e QuotaEntity) String() string {
	parts := make([]string, len(e))
	for i, c := range e {
		name := "null"
		if c.Name != nil {
			name = *c.Name
		}
		parts[i] = c.Type + "=" + name
	}
	return "ClientQuotaEntity(entries={" + strings.Join(parts, ", ") + "})"
}

// Quotas is the set quota values of one entity.
type Quotas struct {
	Entity QuotaEntity
	Values map[string]float64
}

// ClientQuotas returns every entity with quotas, in a stable order.
func (img *Image) ClientQuotas() []Quotas {
	keys := slices.Sorted(maps.Keys(img.quotas))
	out := make([]Quotas, len(keys))
	for i, k := range keys {
		out[i] = *img.quotas[k]
	}
	return out
}

func (b *builder) applyClientQuota(r *ClientQuotaRecord) {
	entity := NewQuotaEntity(r.Entity)
	k := entity.key()
	old := b.img.quotas[k]
	q := &Quotas{Entity: entity, Values: map[string]float64{}}
	if old != nil {
		q.Values = maps.Clone(old.Values)
	}
	if r.Remove {
		delete(q.Values, r.Key)
	} else {
		q.Values[r.Key] = r.Value
	}
	if len(q.Values) == 0 {
		delete(b.img.quotas, k)
		return
	}
	b.img.quotas[k] = q
}

// QuotaAlteration is one entry of AlterClientQuotas: a nil Value removes
// the key.
type QuotaAlteration struct {
	Entity QuotaEntity
	Ops    []QuotaOp
}

// QuotaOp sets or (Value nil) removes one quota key.
type QuotaOp struct {
	Key   string
	Value *float64
}

// QuotaResult is the outcome for one entity of AlterClientQuotas; a zero
// Err is success.
type QuotaResult struct {
	Entity QuotaEntity
	Err    *Error
}

// The type of a quota key, which bounds its values.
type quotaKeyType int

const (
	quotaLong quotaKeyType = iota
	quotaDouble
	quotaInt
)

// Kafka's QuotaConfig.userAndClientQuotaConfigs and ipConfigs.
var (
	userClientQuotaKeys = map[string]quotaKeyType{
		"producer_byte_rate": quotaLong, "consumer_byte_rate": quotaLong,
		"request_percentage": quotaDouble, "controller_mutation_rate": quotaDouble,
	}
	ipQuotaKeys = map[string]quotaKeyType{"connection_creation_rate": quotaInt}
)

// AlterClientQuotas returns the ClientQuotaRecords of alterations and one
// result per distinct entity, in the order the entities first appear, as
// Kafka's ClientQuotaControlManager decides them: the records of entities
// that pass are kept even when a later alteration of the same entity is
// refused as a duplicate. validIP says whether an ip entity's name is an
// address or a resolvable host.
func (img *Image) AlterClientQuotas(alterations []QuotaAlteration, validIP func(string) bool) ([]Record, []QuotaResult) {
	var records []Record
	results := map[string]*QuotaResult{}
	var order []string
	for _, alt := range alterations {
		k := alt.Entity.key()
		res, seen := results[k]
		if !seen {
			res = &QuotaResult{Entity: alt.Entity}
			results[k] = res
			order = append(order, k)
		}
		values := map[string]*float64{}
		var keys []string
		duplicateKey := false
		for _, op := range alt.Ops {
			if _, dup := values[op.Key]; dup || slices.Contains(keys, op.Key) {
				duplicateKey = true
				continue
			}
			values[op.Key] = op.Value
			keys = append(keys, op.Key)
		}
		if seen || duplicateKey {
			res.Err = opError(kerr.InvalidRequest, "Ignoring duplicate entity "+alt.Entity.String())
			continue
		}
		recs, err := img.alterEntityQuotas(alt.Entity, keys, values, validIP)
		res.Err = err
		records = append(records, recs...)
	}
	out := make([]QuotaResult, len(order))
	for i, k := range order {
		out[i] = *results[k]
	}
	return records, out
}

func (img *Image) alterEntityQuotas(entity QuotaEntity, keys []string, values map[string]*float64, validIP func(string) bool) ([]Record, *Error) {
	if len(entity) == 0 {
		return nil, opError(kerr.InvalidRequest, "Invalid empty client quota entity")
	}
	for _, c := range entity {
		switch c.Type {
		case QuotaEntityUser, QuotaEntityClientID, QuotaEntityIP:
		default:
			return nil, opError(kerr.InvalidRequest, "Unhandled client quota entity type: "+c.Type)
		}
		if c.Name != nil && *c.Name == "" {
			return nil, opError(kerr.InvalidRequest, "Empty "+c.Type+" not supported")
		}
	}
	validKeys := userClientQuotaKeys
	if ip, hasIP := entity.Name(QuotaEntityIP); hasIP {
		if len(entity) > 1 {
			return nil, opError(kerr.InvalidRequest, "Invalid quota entity combination, IP entity shouldnot be combined with User or ClientId")
		}
		if ip != nil && !validIP(*ip) {
			return nil, opError(kerr.InvalidRequest, *ip+" is not a valid IP or resolvable host.")
		}
		validKeys = ipQuotaKeys
	}
	var current map[string]float64
	if q := img.quotas[entity.key()]; q != nil {
		current = q.Values
	}
	var records []Record
	for _, key := range keys {
		v := values[key]
		if v == nil {
			if _, had := current[key]; had {
				records = append(records, &ClientQuotaRecord{Entity: slices.Clone(entity), Key: key, Remove: true})
			}
			continue
		}
		if e := validateQuotaValue(validKeys, key, *v); e != nil {
			return nil, e
		}
		if old, had := current[key]; !had || old != *v {
			records = append(records, &ClientQuotaRecord{Entity: slices.Clone(entity), Key: key, Value: *v})
		}
	}
	return records, nil
}

// validateQuotaValue applies ClientQuotaControlManager.validateQuotaKeyValue.
func validateQuotaValue(validKeys map[string]quotaKeyType, key string, v float64) *Error {
	t, ok := validKeys[key]
	if !ok {
		return opError(kerr.InvalidRequest, "Invalid configuration key "+key)
	}
	if v <= 0 {
		return opError(kerr.InvalidRequest, fmt.Sprintf("Quota %s must be greater than 0", key))
	}
	switch t {
	case quotaInt:
		if v > math.MaxInt32 {
			return opError(kerr.InvalidRequest, fmt.Sprintf("Proposed value for %s is too large for an INT.", key))
		}
	case quotaLong:
		if v > math.MaxInt64 {
			return opError(kerr.InvalidRequest, fmt.Sprintf("Proposed value for %s is too large for a LONG.", key))
		}
	case quotaDouble:
		return nil
	}
	if math.Abs(math.Mod(v, 1)) > 1e-6 {
		return opError(kerr.InvalidRequest, key+" cannot be a fractional value.")
	}
	return nil
}
