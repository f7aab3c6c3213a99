// Package quota owns client quota enforcement, as Kafka's
// ClientQuotaManager, ClientRequestQuotaManager and
// ControllerMutationQuotaManager do it: which stored quota applies to a
// request (the user / client-id / user+client-id / default precedence of
// Kafka's DefaultQuotaCallback), the per-entity sensors that measure
// producer and consumer bytes, request handler time and controller
// mutations over Kafka's sampled windows (quota.window.num,
// quota.window.size.seconds; controller.quota.window.* for mutations), and
// the throttle time a violation earns (QuotaUtils.throttleTime, the token
// bucket's deficit for mutations). It also exports the per-entity
// byte-rate, request-time, tokens and throttle-time series.
//
// It does not mute connections or write responses: the server mutes a
// connection for the throttle time this package computes, and the handlers
// of Fetch, CreateTopics, CreatePartitions and DeleteTopics ask it for
// their own quotas. IP quotas (connection_creation_rate, KIP-612) are
// measured here too (connection_rate.go), per address over the same
// windows; the server's acceptor asks RecordConnection and closes a
// throttled connection after the delay it returns.
package quota
