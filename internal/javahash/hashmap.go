package javahash

import "slices"

// HashMapTable is the number of buckets a java.util.HashMap holds n
// entries in: 16 to start, doubled each time the entries pass 3/4 of it.
func HashMapTable(n int) int {
	buckets := 16
	for n > buckets*3/4 {
		buckets *= 2
	}
	return buckets
}

// HashMapBucket is the bucket of a String key in a HashMap table of the
// given size (a power of two): its hashCode spread by HashMap.hash.
func HashMapBucket(key string, buckets int) int {
	h := uint32(String(key))
	h ^= h >> 16
	return int(h & uint32(buckets-1))
}

// SortHashMapOrder puts items in the iteration order of a HashMap of
// `buckets` buckets that they were put into in their present order: by
// bucket, and within a bucket in insertion order (a resize keeps the
// order of the entries it splits).
func SortHashMapOrder[T any](items []T, key func(T) string, buckets int) {
	slices.SortStableFunc(items, func(a, b T) int {
		return HashMapBucket(key(a), buckets) - HashMapBucket(key(b), buckets)
	})
}
