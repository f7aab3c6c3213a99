package javahash

import (
	"strings"
	"testing"
)

// Values Java prints for "...".hashCode().
func TestString(t *testing.T) {
	for s, want := range map[string]int32{
		"":                    0,
		"a":                   97,
		"metadata.version":    1098778905,
		"transaction.version": 1433551304,
		"😀":                   1772899,
	} {
		if got := String(s); got != want {
			t.Errorf("%q: %d, want %d", s, got, want)
		}
	}
}

// Tables and buckets as java.util.HashMap sizes and indexes them.
func TestHashMap(t *testing.T) {
	for n, want := range map[int]int{0: 16, 12: 16, 13: 32, 24: 32, 25: 64, 37: 64, 350: 512} {
		if got := HashMapTable(n); got != want {
			t.Errorf("table for %d: %d, want %d", n, got, want)
		}
	}
	// Kafka 4.4.0 lists these client-metrics subscriptions in this order.
	names := []string{"x1", "abc", "yy", "a9", "q"}
	SortHashMapOrder(names, func(s string) string { return s }, HashMapTable(len(names)))
	if got := strings.Join(names, ","); got != "yy,q,abc,a9,x1" {
		t.Errorf("order %s", got)
	}
}
