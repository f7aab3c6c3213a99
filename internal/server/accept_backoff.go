package server

import (
	"log/slog"
	"time"
)

// When accept fails (most often EMFILE or ENFILE: the process or the
// system is out of file descriptors) the kernel keeps the pending
// connection in the listen backlog, so the next accept fails again at
// once. Retrying straight away spins a core and, logging each failure,
// fills the disk (2.25 million lines in 12 s were measured) while nothing
// is accepted anyway. The accept loop instead waits as net/http's Serve
// does, 5 ms doubling up to 1 s, and logs at most one line per
// acceptErrorLogInterval with the count of failures it did not log.
// Established connections are served by their own goroutines throughout.

const (
	minAcceptRetryDelay    = 5 * time.Millisecond
	maxAcceptRetryDelay    = time.Second
	acceptErrorLogInterval = 10 * time.Second
)

// acceptRetry is one listener's state across failed accepts; only its
// accept loop uses it.
type acceptRetry struct {
	delay time.Duration
	// failures counts the failures since the last successful accept.
	failures int
	since    time.Time
	// log spans episodes of failures, so failures that come and go
	// cannot log faster than one line per interval either.
	log logThrottle
	// episodeLogged is set when a failure of the current episode was
	// logged; the recovery is then logged once too.
	episodeLogged bool
}

// failed records a failed accept and returns how long to wait before the
// next one.
func (r *acceptRetry) failed(logger *slog.Logger, listener string, err error, now time.Time) time.Duration {
	if r.failures == 0 {
		r.since = now
	}
	r.failures++
	if ok, notLogged := r.log.allow(now); ok {
		logger.Warn("accept failed; retrying with backoff", "listener", listener, "err", err,
			"failures_not_logged", notLogged, "failing_for", now.Sub(r.since).Round(time.Millisecond))
		r.episodeLogged = true
	}
	if r.delay == 0 {
		r.delay = minAcceptRetryDelay
	} else {
		r.delay = min(2*r.delay, maxAcceptRetryDelay)
	}
	return r.delay
}

// succeeded records a successful accept, ending an episode of failures.
func (r *acceptRetry) succeeded(logger *slog.Logger, listener string, now time.Time) {
	if r.failures == 0 {
		return
	}
	if r.episodeLogged {
		logger.Info("accepting connections again", "listener", listener,
			"failures", r.failures, "failed_for", now.Sub(r.since).Round(time.Millisecond))
	}
	r.delay, r.failures, r.episodeLogged = 0, 0, false
}

// logThrottle lets one line of a recurring event be logged per
// acceptErrorLogInterval.
type logThrottle struct {
	last      time.Time // zero before the first line
	notLogged int
}

// allow records an event and reports whether to log it, and how many
// events since the last line were not.
func (t *logThrottle) allow(now time.Time) (ok bool, notLogged int) {
	if !t.last.IsZero() && now.Sub(t.last) < acceptErrorLogInterval {
		t.notLogged++
		return false, 0
	}
	notLogged, t.last, t.notLogged = t.notLogged, now, 0
	return true, notLogged
}

// waitToRetryAccept sleeps for d, or less if shutdown begins; it reports
// whether the loop should go on.
func (s *Server) waitToRetryAccept(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-s.stopAccepting:
		return false
	}
}
