package group

import (
	"testing"

	"github.com/karst-broker/karst/internal/javahash"
)

// TestPartitionForMatchesJava: the expected values were printed by Java
// (String.hashCode, Utils.abs, % 50).
func TestPartitionForMatchesJava(t *testing.T) {
	cases := []struct {
		s    string
		hash int32
		p50  int32
	}{
		{"group", 98629247, 47},
		{"console-consumer-12345", 158455506, 6},
		{"polygenelubricants", -2147483648, 0}, // hashCode is MIN_VALUE
		{"é😀", 1996812, 12},                    // a surrogate pair
		{"my-group-7", 1806687560, 10},
	}
	for _, c := range cases {
		if got := javahash.String(c.s); got != c.hash {
			t.Errorf("hash(%q) = %d, want %d", c.s, got, c.hash)
		}
		if got := PartitionFor(c.s, 50); got != c.p50 {
			t.Errorf("partition(%q) = %d, want %d", c.s, got, c.p50)
		}
	}
}
