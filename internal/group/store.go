package group

import "context"

// Record is one record of __consumer_offsets: Kafka's key and value
// encodings; a nil Value is a tombstone.
type Record struct {
	Key   []byte
	Value []byte
}

// Durable waits until appended records are on disk.
type Durable func(ctx context.Context) error

// Store persists a group's records. Append must not block for long (it is
// called with the group's lock held); the returned Durable is what waits.
type Store interface {
	Append(groupID string, records []Record) (Durable, error)
}

func noWait(context.Context) error { return nil }

// append writes records through the store, if there is one.
func (c *Coordinator) append(groupID string, recs []Record) (Durable, error) {
	if c.store == nil || len(recs) == 0 {
		return noWait, nil
	}
	return c.store.Append(groupID, recs)
}

// EnsureStorage prepares the store (creates __consumer_offsets), when it
// knows how; FindCoordinator calls it, as Kafka creates the topic then.
func (c *Coordinator) EnsureStorage() error {
	if e, ok := c.store.(interface{ Ensure() error }); ok {
		return e.Ensure()
	}
	return nil
}
