// Package javahash computes the hashes Java's standard library gives
// Kafka, where Kafka's behaviour depends on them: String.hashCode picks a
// group's __consumer_offsets partition and orders a HashMap's entries.
package javahash

// String is java.lang.String.hashCode: over UTF-16 code units, wrapping.
func String(s string) int32 {
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
