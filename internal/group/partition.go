package group

import "github.com/karst-broker/karst/internal/javahash"

// PartitionFor is the __consumer_offsets partition of a group: Java's
// String.hashCode of the group id, made non-negative as Kafka's
// Utils.abs does, modulo the partition count. It must match Kafka's
// exactly for data directories to move between the two.
func PartitionFor(groupID string, partitions int32) int32 {
	if partitions <= 0 {
		return 0
	}
	return javaAbs(javahash.String(groupID)) % partitions
}

// javaAbs is Kafka's Utils.abs: Math.abs, except MIN_VALUE maps to 0.
func javaAbs(n int32) int32 {
	if n == -1<<31 {
		return 0
	}
	if n < 0 {
		return -n
	}
	return n
}
