package log

import "testing"

// The names Kafka's UnifiedLog.parseTopicPartitionName accepts for a
// directory inside a log dir, and some it refuses (Kafka's start fails on
// those: "… is not in the form of topic-partition …").
func TestIsKafkaLogDirName(t *testing.T) {
	for name, want := range map[string]bool{
		"orders-0": true, "my-topic-12": true, "__consumer_offsets-49": true, "__cluster_metadata-0": true,
		"orders-0.0c1d3f2a9b8e4d7c8a6b5f4e3d2c1b0a-delete": true, "orders-0.d-delete": true,
		"orders-3.1f2e3d4c5b6a79880f1e2d3c4b5a6978-future": true, "orders-1.abc-stray": true,
		".lock": false, "lost+found": false, "orders": false, "orders-": false, "-1": false, "topic-x": false,
		"orders-0-delete": false, "orders-0.-delete": false, "orders-x.abc-future": false,
	} {
		if got := IsKafkaLogDirName(name); got != want {
			t.Errorf("IsKafkaLogDirName(%q) = %v, want %v", name, got, want)
		}
	}
}
