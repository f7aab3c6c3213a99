// Package admincli is the admin command line built into the karst binary:
// topic, produce, consume, group, config and cluster commands that speak
// only the Kafka protocol (franz-go's kgo and kadm), so they work against
// Apache Kafka as well as Karst. Connection flags follow Kafka's tools:
// --bootstrap-server and --command-config FILE (client properties).
package admincli
