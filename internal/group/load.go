package group

import "time"

// Replayer feeds every stored record to fn, in log order (OffsetsTopic
// is one).
type Replayer interface {
	Replay(fn func(key, value []byte) error) error
}

// Load rebuilds committed offsets and group state from stored records.
// Classic groups come back Empty with their generation, protocol type and
// protocol: members are not restored (in Kafka they would only time out),
// so returning members join again. Malformed records are counted and
// skipped, so one bad record cannot keep the broker from starting.
func (c *Coordinator) Load(r Replayer) (skipped int, err error) {
	now := c.clock.Now()
	err = r.Replay(func(key, value []byte) error {
		if c.loadConsumerRecord(key, value, now) {
			return nil
		}
		d, err := decodeRecord(key, value)
		if err != nil {
			skipped++
			return nil
		}
		c.apply(d, now)
		return nil
	})
	// A group whose last record was a tombstone and has no offsets left
	// is gone.
	c.mu.Lock()
	for id, g := range c.groups {
		if g.state == Dead {
			delete(c.groups, id)
		}
	}
	c.mu.Unlock()
	return skipped, err
}

func (c *Coordinator) apply(d decoded, now time.Time) {
	switch d.kind {
	case keyOffsetCommit:
		g := c.group(d.group, true)
		g.mu.Lock()
		if g.state == Dead {
			g.state = Empty
		}
		if d.offset == nil {
			delete(g.offsets, d.tp)
		} else {
			g.offsets[d.tp] = *d.offset
		}
		g.mu.Unlock()
	case keyGroupMetadata:
		g := c.group(d.group, true)
		g.mu.Lock()
		if d.meta == nil {
			g.generation, g.protocolType, g.protocol = 0, "", ""
			if len(g.offsets) == 0 {
				g.state = Dead
			}
		} else {
			g.state = Empty
			g.generation = d.meta.Generation
			g.protocolType = d.meta.ProtocolType
			g.protocol = ""
			if len(d.meta.Members) > 0 && d.meta.Protocol != nil {
				g.protocol = *d.meta.Protocol
			}
			if d.meta.CurrentStateTimestamp > 0 {
				g.stateSince = time.UnixMilli(d.meta.CurrentStateTimestamp)
			} else {
				g.stateSince = now
			}
		}
		g.mu.Unlock()
	}
}
