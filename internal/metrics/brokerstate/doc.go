// Package brokerstate exports the measures that are read from the
// broker's state when Prometheus scrapes, rather than counted as requests
// go by: consumer group lag and committed offsets (named as kafka-exporter
// names them), partition offsets and sizes, and the replica health gauges
// Kafka operators alert on (under-replicated and offline partitions). It
// also feeds the log flush histogram from the logs' fsync rounds.
//
// Nothing here runs on a timer: a scrape asks the group coordinator, the
// storage and the metadata image for their current values, so an idle
// broker does no work for metrics.
package brokerstate
