// Package bench is the engine of `karst bench`: bounded load generators that
// measure a Kafka-protocol broker (Karst or Apache Kafka) from the client's
// side on this machine's loopback interface.
//
// Every generator stops by itself, after a request or record count or after
// a duration, whichever comes first, and returns a Result: one line of
// key=value pairs (or one JSON object) that scripts/bench parses. The modes:
//
//   - APIVersions: ApiVersions requests per second, pipelined on raw TCP
//     connections (the cheapest request a broker answers; it measures the
//     connection and framing path, not storage).
//   - Connections: many idle connections, and what they cost the broker in
//     resident memory (read from /proc/PID/status).
//   - Startup: time from launching a broker process to its first answered
//     ApiVersions.
//   - Produce, Consume, E2E: records through franz-go clients; throughput,
//     and for E2E the latency from send to receive at a fixed rate.
//   - Txn: transactional producers committing small transactions back to
//     back; transactions per second and the time of one transaction.
//     Consume's Isolation (read_committed) measures what transaction
//     markers and the last stable offset cost a reader.
//
// Latencies go into a Histogram, a small log-linear (HDR-style) histogram
// with a bounded relative error, so percentiles cost constant memory however
// long a run is. The package only ever dials the address it is given; the
// CLI and scripts point it at loopback brokers.
package bench
