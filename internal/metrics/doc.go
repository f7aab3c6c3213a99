// Package metrics owns Karst's Prometheus measures, named as Kafka
// operators know them (requests per API and version, request latency,
// bytes and messages in and out per topic, open connections, Go runtime),
// and the HTTP listener that serves them at /metrics (with Go's pprof at
// /debug/pprof/ when enabled). Other packages only increment; nothing here
// calls back into them.
package metrics
