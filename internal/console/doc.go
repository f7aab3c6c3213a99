// Package console is the broker's web console: server-rendered pages of
// topics, messages, consumer groups and broker health. It is a Kafka
// client of the broker it runs in (franz-go's kgo and kadm against the
// broker's own listener), so what it shows is what any client is
// answered, and nothing in the broker calls back into it. Throughput and
// latency come from sampling the broker's metrics counters.
package console
