package javahash

import "testing"

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
