package quota

import "github.com/karst-broker/karst/internal/metadata"

// The quota keys of user and client-id entities this package enforces.
const (
	ProducerByteRate       = "producer_byte_rate"
	ConsumerByteRate       = "consumer_byte_rate"
	RequestPercentage      = "request_percentage"
	ControllerMutationRate = "controller_mutation_rate"
)

// part is one component of an entity: absent, a name, or the default.
type part struct {
	set, isDefault bool
	name           string
}

func named(n string) part { return part{set: true, name: n} }

var (
	defaultPart = part{set: true, isDefault: true}
	absent      = part{}
)

// entity is a user / client-id quota entity (Kafka's KafkaQuotaEntity).
type entity struct{ user, client part }

// Which kinds of entity have a quota, as Kafka's QuotaTypes bits.
const (
	clientIDQuotas   = 1
	userQuotas       = 2
	userClientQuotas = 4
)

// limits are the values of one quota key by entity, and the kinds of
// entity that have ever had one (Kafka's quotaTypesEnabled, which only
// grows while the broker runs).
type limits struct {
	values  map[entity]float64
	enabled int
}

// limitsOf picks key's values out of the stored quotas; entities with an
// ip component are connection quotas and are skipped.
func limitsOf(quotas []metadata.Quotas, key string, enabledBefore int) *limits {
	l := &limits{values: map[entity]float64{}, enabled: enabledBefore}
	for _, q := range quotas {
		v, ok := q.Values[key]
		if !ok {
			continue
		}
		var e entity
		skip := false
		for _, c := range q.Entity {
			p := defaultPart
			if c.Name != nil {
				p = named(*c.Name)
			}
			switch c.Type {
			case metadata.QuotaEntityUser:
				e.user = p
			case metadata.QuotaEntityClientID:
				e.client = p
			default:
				skip = true
			}
		}
		if skip || !e.user.set && !e.client.set {
			continue
		}
		l.values[e] = v
		switch {
		case e.user.set && e.client.set:
			l.enabled |= userClientQuotas
		case e.user.set:
			l.enabled |= userQuotas
		default:
			l.enabled |= clientIDQuotas
		}
	}
	return l
}

func (l *limits) has(e entity) bool { _, ok := l.values[e]; return ok }

// Tags name the sensor a request is measured by, as Kafka's quota metric
// tags: an empty user or client-id is not part of the entity.
type Tags struct{ User, ClientID string }

// tags is DefaultQuotaCallback.quotaMetricTags: the most specific entity
// with a quota for this user and client-id decides which of the two the
// sensor is shared by.
func (l *limits) tags(user, clientID string) Tags {
	switch l.enabled {
	case 0, clientIDQuotas:
		return Tags{ClientID: clientID}
	case userQuotas:
		return Tags{User: user}
	case userClientQuotas:
		return Tags{User: user, ClientID: clientID}
	}
	u, c := named(user), named(clientID)
	switch {
	case l.has(entity{u, c}), l.has(entity{u, defaultPart}):
		return Tags{User: user, ClientID: clientID}
	case l.has(entity{u, absent}):
		return Tags{User: user}
	case l.has(entity{defaultPart, c}), l.has(entity{defaultPart, defaultPart}):
		return Tags{User: user, ClientID: clientID}
	case l.has(entity{defaultPart, absent}):
		return Tags{User: user}
	}
	return Tags{ClientID: clientID}
}

// limit is DefaultQuotaCallback.quotaLimit: the quota of the sensor named
// by t, looked up from the most specific entity to the defaults.
func (l *limits) limit(t Tags) (float64, bool) {
	var order []entity
	u, c := named(t.User), named(t.ClientID)
	switch {
	case t.User != "" && t.ClientID != "":
		order = []entity{{u, c}, {u, defaultPart}, {defaultPart, c}, {defaultPart, defaultPart}}
	case t.User != "":
		order = []entity{{u, absent}, {defaultPart, absent}}
	case t.ClientID != "":
		order = []entity{{absent, c}, {absent, defaultPart}}
	}
	for _, e := range order {
		if v, ok := l.values[e]; ok {
			return v, true
		}
	}
	return 0, false
}
