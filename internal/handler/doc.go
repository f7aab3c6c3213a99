// Package handler owns the dispatch table — which Kafka APIs and versions
// Karst serves — and turns each decoded request into a response by calling
// the storage and coordinator packages below it.
//
// Each API lives in a file named by its key (18_api_versions.go) that opens
// with the versions served and what each version added, and registers its
// key, version range and handler beside the code. A handler holds no state
// of its own: everything it needs hangs off Broker.
//
// A handler runs on the connection's reader goroutine, in request order, so
// its synchronous part must be short. Work that waits (an fsync, a parked
// fetch) is returned as Outcome.Later and completed by the connection's
// writer, which still sends responses in request order.
package handler
