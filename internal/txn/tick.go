package txn

import (
	"context"
	"time"
)

// Tick applies the passage of time: every
// transaction.abort.timed.out.transaction.cleanup.interval.ms, open
// transactions past their timeout are aborted with an epoch bump (which
// fences their producer); every
// transaction.remove.expired.transaction.cleanup.interval.ms,
// transactional ids idle for transactional.id.expiration.ms are
// forgotten (a tombstone in __transaction_state); and completions whose
// markers could not be written are tried again.
func (c *Coordinator) Tick() {
	now := c.clock.Now()
	c.mu.Lock()
	defer c.unlock()
	for _, m := range c.txns {
		if m.state.preparing() && !m.markersInFlight && !m.pending && !now.Before(m.retryAt) {
			c.startCompletion(m)
		}
	}
	if now.Sub(c.lastAbortScan) >= c.cfg.AbortTimedOutInterval {
		c.lastAbortScan = now
		c.abortTimedOut(now)
	}
	if now.Sub(c.lastExpiryScan) >= c.cfg.RemoveExpiredInterval {
		c.lastExpiryScan = now
		c.expireIDs(now)
	}
}

// abortTimedOut starts the abort of every open transaction older than its
// timeout; the caller holds c.mu.
func (c *Coordinator) abortTimedOut(now time.Time) {
	for _, m := range c.txns {
		if m.state != Ongoing || m.pending || m.startMs < 0 || now.UnixMilli() < m.startMs+int64(m.timeoutMs) {
			continue
		}
		c.logger.Info("aborting a timed-out transaction", "transactional.id", m.id,
			"producer.id", m.producerID, "producer.epoch", m.epoch)
		c.queueWrite(m, func(next *txnMeta) {
			next.fenceEpoch()
			next.state, next.lastUpdateMs = PrepareAbort, now.UnixMilli()
		}, func(m *txnMeta) { c.startCompletion(m) })
	}
}

// expireIDs forgets transactional ids idle longer than
// transactional.id.expiration.ms; the caller holds c.mu.
func (c *Coordinator) expireIDs(now time.Time) {
	for id, m := range c.txns {
		if !m.state.completed() || m.pending || m.markersInFlight ||
			now.UnixMilli() < m.lastUpdateMs+c.cfg.IDExpiration.Milliseconds() {
			continue
		}
		if c.store == nil {
			delete(c.txns, id)
			continue
		}
		d, err := c.store.Append(id, []Record{{Key: EncodeKey(id)}})
		if err != nil {
			c.logger.Warn("expiring a transactional id", "transactional.id", id, "err", err)
			continue
		}
		m.pending = true
		c.queued = append(c.queued, func() {
			err := d(context.Background())
			c.mu.Lock()
			defer c.unlock()
			m.pending = false
			if err == nil && c.txns[id] == m {
				delete(c.txns, id)
			}
		})
	}
}

// queueWrite persists a change to m from background work: edit makes the
// new state, the write goes out now (under c.mu, in order), and the wait
// for disk and then done run once c.mu is released. The caller holds
// c.mu.
func (c *Coordinator) queueWrite(m *txnMeta, edit func(next *txnMeta), done func(m *txnMeta)) {
	next := m.clone()
	edit(next)
	d, err := c.append(next)
	if err != nil {
		c.logger.Warn("writing transaction state", "transactional.id", m.id, "err", err)
		return
	}
	m.pending = true
	c.queued = append(c.queued, func() {
		err := d(context.Background())
		c.mu.Lock()
		defer c.unlock()
		m.pending = false
		c.signalSettled()
		if err != nil {
			c.logger.Warn("writing transaction state", "transactional.id", m.id, "err", err)
			return
		}
		inFlight := m.markersInFlight
		*m = *next
		m.pending, m.markersInFlight = false, inFlight
		done(m)
	})
}

// Run calls Tick every interval until ctx ends.
func (c *Coordinator) Run(ctx context.Context, interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			c.Tick()
		}
	}
}
