// Package integration holds end-to-end tests that drive an in-process
// Karst (see karsttest) with real Go Kafka clients: franz-go, sarama,
// segmentio/kafka-go and confluent-kafka-go (librdkafka).
package integration
