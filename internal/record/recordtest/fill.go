// Package recordtest helps tests lay record batches out at chosen byte
// positions of a log, such as a batch that starts a few bytes before a
// reader's chunk boundary.
package recordtest

import "fmt"

// FillValueLens returns value lengths for one-record batches whose sizes
// add up to exactly gap bytes. sizeOf gives the size of the batch built
// with a value of that length; it must not decrease as the length grows
// (its steps, where a varint grows a byte, are stepped around).
func FillValueLens(gap int64, sizeOf func(valueLen int) int) ([]int, error) {
	const large = 64 << 10
	smallest := int64(sizeOf(0))
	if gap == 0 {
		return nil, nil
	}
	var lens []int
	for gap > 2*large {
		v := smallestReaching(large, sizeOf)
		lens = append(lens, v)
		gap -= int64(sizeOf(v))
	}
	if v, ok := exactly(gap, sizeOf); ok {
		return append(lens, v), nil
	}
	// No one batch has this size: find two that do.
	for first := 0; int64(sizeOf(first)) <= gap-smallest; first++ {
		if v, ok := exactly(gap-int64(sizeOf(first)), sizeOf); ok {
			return append(lens, first, v), nil
		}
	}
	return nil, fmt.Errorf("no one or two batches add up to %d bytes (the smallest is %d)", gap, smallest)
}

// exactly finds the value length whose batch is size bytes.
func exactly(size int64, sizeOf func(int) int) (int, bool) {
	v := smallestReaching(size, sizeOf)
	return v, int64(sizeOf(v)) == size
}

// smallestReaching is the smallest value length whose batch is at least
// size bytes.
func smallestReaching(size int64, sizeOf func(int) int) int {
	lo, hi := 0, int(size)
	for lo < hi {
		mid := (lo + hi) / 2
		if int64(sizeOf(mid)) >= size {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	return lo
}
