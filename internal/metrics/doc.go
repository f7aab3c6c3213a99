// Package metrics owns Karst's Prometheus measures, named as Kafka
// operators know them (requests per API and version, request latency,
// bytes and messages in and out per topic, open connections, purgatory
// sizes, log flush latency, Go runtime), and the HTTP listener that serves
// them at /metrics (with Go's pprof at /debug/pprof/ when enabled). Other
// packages only increment; nothing here calls back into them. The
// measures read from broker state at scrape time (consumer group lag,
// partition offsets, replica health) are in the brokerstate subpackage,
// which may import the packages it reads.
package metrics
