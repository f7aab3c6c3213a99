package group

// PartitionFor is the __consumer_offsets partition of a group: Java's
// String.hashCode of the group id, made non-negative as Kafka's
// Utils.abs does, modulo the partition count. It must match Kafka's
// exactly for data directories to move between the two.
func PartitionFor(groupID string, partitions int32) int32 {
	if partitions <= 0 {
		return 0
	}
	return javaAbs(javaStringHash(groupID)) % partitions
}

// javaStringHash is String.hashCode: over UTF-16 code units, wrapping.
func javaStringHash(s string) int32 {
	var h int32
	for _, r := range s {
		if r >= 0x10000 {
			r -= 0x10000
			h = 31*h + int32(0xD800+(r>>10))
			h = 31*h + int32(0xDC00+(r&0x3FF))
			continue
		}
		h = 31*h + int32(r)
	}
	return h
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
