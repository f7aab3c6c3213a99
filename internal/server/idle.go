package server

import "time"

// Idle connections are closed after connections.max.idle.ms, as Kafka's
// socket server does: a client that went away without closing (a host
// that vanished, a NAT that dropped the flow) would otherwise hold its
// socket and goroutine for good. A connection with a request in flight
// (a parked long poll, a produce waiting for fsync) is not idle.

// touch records activity on c: a request read or a response written.
func (c *conn) touch() { c.lastActive.Store(time.Now().UnixNano()) }

// idleFor is how long c has had no activity and no request in flight.
func (c *conn) idleFor(now time.Time) time.Duration {
	// A frame whose body is awaited holds a slot but is not in flight, so
	// a client that stalls mid-frame is still idle. (receiving is set
	// after its slot is taken and cleared before it is given back, so a
	// race only ever makes a connection look busy.)
	inFlight := len(c.slots)
	if c.receiving.Load() {
		inFlight--
	}
	if inFlight > 0 {
		return 0
	}
	return now.Sub(time.Unix(0, c.lastActive.Load()))
}

// sweepInterval is how often idle connections are looked for: a tenth of
// the limit, so one is closed at most 10% late, between 10 ms and 30 s.
func sweepInterval(limit time.Duration) time.Duration {
	return min(max(limit/10, 10*time.Millisecond), 30*time.Second)
}

// closeIdle runs until shutdown, closing connections idle longer than
// Config.IdleTimeout.
func (s *Server) closeIdle() {
	limit := s.cfg.IdleTimeout
	t := time.NewTicker(sweepInterval(limit))
	defer t.Stop()
	for {
		select {
		case <-s.ctx.Done():
			return
		case now := <-t.C:
			s.mu.Lock()
			for c := range s.conns {
				if idle := c.idleFor(now); idle > limit {
					s.logger.Debug("closing idle connection", "remote", c.info.RemoteAddr, "principal", c.info.Principal().String(), "idle", idle.Round(time.Millisecond))
					s.stats.ConnectionsIdleClosed.Add(1)
					c.nc.Close()
				}
			}
			s.mu.Unlock()
		}
	}
}
