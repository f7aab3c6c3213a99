// Package server owns listeners and client connections: it reads frames off
// each socket, answers what cannot be dispatched (unknown APIs, unsupported
// versions, undecodable bodies, short frames) itself, hands every decodable
// request to the handler layer in arrival order, and writes the responses
// back in that same order, however their work finishes.
//
// Each connection has one reader goroutine. A writer goroutine exists only
// while responses are queued, so an idle connection costs one parked
// goroutine and a few hundred bytes. A connection can have at most
// Config.MaxInFlight requests queued; past that its reader stops reading and
// TCP pushes back on the client, so a slow or hostile peer only ever stalls
// itself.
//
// Memory that sockets make the server use is bounded in two ways shared by
// all connections: queued.max.request.bytes (Config.QueuedMaxRequestBytes,
// off by default as in Kafka) caps the bytes of request frames read and
// not yet handled, and reading stops while it is exhausted; and decode
// budgets cap what decoding request bodies, which can allocate up to ~100
// times their size, may allocate at once (decode_budget.go).
package server
