// Package fetchsession keeps the incremental fetch sessions of KIP-227: for
// each session, the partitions a client fetches with their offsets and
// limits, and what the last response told the client about each, so that
// the next response can leave out every partition with nothing new.
//
// The cache is bounded (max.incremental.fetch.session.cache.slots); when it
// is full, the least recently used session is evicted and its client gets
// FETCH_SESSION_ID_NOT_FOUND on its next fetch, after which it starts a new
// full session, as with Apache Kafka.
package fetchsession
