package log

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unsafe"
)

// TestIndexMappingIsRandomAccess checks the kernel was told an index mapping
// is touched at random (VmFlags "rr" in /proc/self/smaps): without it, every
// first touch of a preallocated index page read ahead around it, which made
// producing to 1,000 partitions 10-20 times slower.
func TestIndexMappingIsRandomAccess(t *testing.T) {
	idx, err := openIndex(filepath.Join(t.TempDir(), "00000000000000000000.index"), 0, 8)
	if err != nil {
		t.Fatal(err)
	}
	defer idx.close()
	if err := idx.resize(1 << 20); err != nil {
		t.Fatal(err)
	}
	flags, err := mappingFlags(uintptr(unsafe.Pointer(&idx.data[0])))
	if err != nil {
		t.Skipf("no /proc/self/smaps here: %v", err)
	}
	if !strings.Contains(" "+flags+" ", " rr ") {
		t.Fatalf("index mapping VmFlags %q lack rr (MADV_RANDOM)", flags)
	}
}

// mappingFlags returns the VmFlags of the mapping that starts at addr.
func mappingFlags(addr uintptr) (string, error) {
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		return "", err
	}
	defer f.Close()
	start := fmt.Sprintf("%x-", addr)
	in := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, start) {
			in = true
			continue
		}
		if in && strings.HasPrefix(line, "VmFlags:") {
			return strings.TrimSpace(strings.TrimPrefix(line, "VmFlags:")), nil
		}
	}
	if err := sc.Err(); err != nil {
		return "", err
	}
	return "", fmt.Errorf("mapping at %x not found", addr)
}
