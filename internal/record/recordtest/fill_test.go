package recordtest

import "testing"

func TestFillValueLensAddsUpExactly(t *testing.T) {
	// Sizes with the steps a varint length makes: +2 at 64 and at 8192.
	sizeOf := func(v int) int {
		n := 70 + v
		if v >= 64 {
			n += 2
		}
		if v >= 8192 {
			n += 2
		}
		return n
	}
	for _, gap := range []int64{0, 70, 71, 133, 136, 140, 8261, 8262, 8263, 8264, 1 << 20, 1<<20 - 17} {
		lens, err := FillValueLens(gap, sizeOf)
		if err != nil {
			t.Fatalf("gap %d: %v", gap, err)
		}
		var sum int64
		for _, v := range lens {
			sum += int64(sizeOf(v))
		}
		if sum != gap {
			t.Fatalf("gap %d: batches add up to %d", gap, sum)
		}
	}
	for _, gap := range []int64{69, 134, 135} { // below the smallest, between one batch and two
		if lens, err := FillValueLens(gap, sizeOf); err == nil {
			t.Fatalf("gap %d filled with %v", gap, lens)
		}
	}
}
