package main

import (
	"os"
	"path/filepath"
	"testing"
)

func TestGlobMatch(t *testing.T) {
	cases := []struct {
		pattern, key string
		want         bool
	}{
		{"Produce v0-2 * <outcome>", "Produce v1 happy/1 <outcome>", true},
		{"Produce v0-2 * <outcome>", "Produce v3 happy/1 <outcome>", false},
		{"Produce v0-2 * <outcome>", "Fetch v1 happy/1 <outcome>", false},
		{"* v* * *.ErrorMessage", "Metadata v4 x/1 Topics[Topic=a].ErrorMessage", true},
		{"* v* * *.ErrorMessage", "Metadata v4 x/1 Topics[Topic=a].ErrorCode", false},
		{"Fetch v4-18 * Topics[*].AbortedTransactions*", "Fetch v12 bad/1 Topics[Topic=diff].AbortedTransactions.len", true},
		{"Fetch v4-18 * a", "Fetch v4 s/1 a b", false}, // the last word takes the rest of the key
	}
	for _, c := range cases {
		if got := globMatch(c.pattern, c.key); got != c.want {
			t.Errorf("globMatch(%q, %q) = %v, want %v", c.pattern, c.key, got, c.want)
		}
	}
}

func TestLoadKnownDifferencesRequiresReasons(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.txt")
	if err := os.WriteFile(good, []byte("# comment\n\nProduce v0-2 * <outcome> | removed in Kafka 4\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	known, err := loadKnownDifferences(good)
	if err != nil || len(known) != 1 || known[0].reason != "removed in Kafka 4" || known[0].line != 3 {
		t.Fatalf("loaded %+v, %v", known, err)
	}
	bad := filepath.Join(dir, "bad.txt")
	if err := os.WriteFile(bad, []byte("Produce v0-2 * <outcome>\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := loadKnownDifferences(bad); err == nil {
		t.Fatal("an entry without a reason was accepted")
	}
}

// TestCheckedInAllowListLoads keeps known-differences.txt well-formed.
func TestCheckedInAllowListLoads(t *testing.T) {
	known, err := loadKnownDifferences("known-differences.txt")
	if err != nil || len(known) == 0 {
		t.Fatalf("known-differences.txt: %d entries, %v", len(known), err)
	}
}
