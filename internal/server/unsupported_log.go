package server

import (
	"log/slog"
	"sync"
)

// maxUnsupportedLogged bounds how many distinct (client software, request)
// pairs are remembered, so clients inventing names cannot grow the set
// without end; past it the lines go to DEBUG.
const maxUnsupportedLogged = 1024

// unsupportedLog writes one INFO line per client software, software
// version and unsupported request (API and version), not one per
// connection: every Kafka Java client opens each connection with
// ApiVersions at its newest version, which a broker that serves an older
// one refuses, so a line per connection buries everything else.
type unsupportedLog struct {
	mu   sync.Mutex
	seen map[unsupportedRequest]struct{}
	full bool
}

// unsupportedRequest is what one line reports.
type unsupportedRequest struct {
	softwareName, softwareVersion string
	// api is the API's name, or "" for a key Karst does not serve.
	api        string
	apiKey     int16
	apiVersion int16
}

// firstTime reports whether r has not been logged before, remembering it.
// Once the set is full it reports false, after logging that once.
func (u *unsupportedLog) firstTime(logger *slog.Logger, r unsupportedRequest) bool {
	u.mu.Lock()
	defer u.mu.Unlock()
	if _, ok := u.seen[r]; ok {
		return false
	}
	if len(u.seen) >= maxUnsupportedLogged {
		if !u.full {
			u.full = true
			logger.Info("requests at unsupported versions from more client software than remembered: further ones are logged at DEBUG",
				"remembered", maxUnsupportedLogged)
		}
		return false
	}
	if u.seen == nil {
		u.seen = map[unsupportedRequest]struct{}{}
	}
	u.seen[r] = struct{}{}
	return true
}

// noteUnsupported records a request Karst answered UNSUPPORTED_VERSION.
// The client's software is known only from ApiVersions v3+, which usually
// comes right after the refused one, so the line waits until the client
// names itself or the connection ends (logUnsupported).
func (c *conn) noteUnsupported(api string, key, version int16) {
	c.unsupported = append(c.unsupported, unsupportedRequest{api: api, apiKey: key, apiVersion: version})
	if name, _ := c.info.ClientSoftware(); name != "" {
		c.logUnsupported()
	}
}

// logUnsupported writes the held lines the broker has not written for this
// client software before. It runs on the reader goroutine, which owns
// c.unsupported.
func (c *conn) logUnsupported() {
	if len(c.unsupported) == 0 {
		return
	}
	name, version := c.info.ClientSoftware()
	logger := c.logger()
	for _, r := range c.unsupported {
		r.softwareName, r.softwareVersion = name, version
		level := slog.LevelDebug
		if c.s.unsupported.firstTime(logger, r) {
			level = slog.LevelInfo
		}
		if r.api == "" {
			logger.Log(c.s.ctx, level, "request for an API Karst does not serve (logged once per client software)",
				"api_key", r.apiKey, "api_version", r.apiVersion)
		} else {
			logger.Log(c.s.ctx, level, "request at an unsupported version (logged once per client software)",
				"api", r.api, "api_version", r.apiVersion)
		}
	}
	c.unsupported = c.unsupported[:0]
}
