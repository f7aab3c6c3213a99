// Command differential sends the same Kafka requests to Apache Kafka and to Karst and compares
// the answers field by field.
//
// Every API key and version that Karst lists in its ApiVersions answer is exercised by one or
// more scenarios (a happy path and error paths); each scenario is a short sequence of requests
// built with franz-go's kmsg, run once against each broker on its own connection. The kmsg
// response structs are flattened into path=value pairs, values that legitimately differ between
// two brokers (node ports and hosts, cluster and topic ids, member and producer ids, timestamps,
// throttle times, error messages) are normalized, and the two flattenings are compared.
//
// A difference is accepted when it matches an entry of the allow-list
// (known-differences.txt), each of which gives its reason; any other difference fails the run.
// interop/differential/run.sh starts both brokers and runs this program; interop/run runs it as
// the suite "differential". Nothing here starts a broker from `go test`.
package main
