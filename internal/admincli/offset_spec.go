package admincli

import (
	"fmt"
	"strconv"

	"github.com/twmb/franz-go/pkg/kgo"
)

// offsetSpec is consume's --offset: beginning, end, an offset, or -N
// records before the end (kcat's -o).
type offsetSpec struct {
	kind offsetKind
	n    int64
}

type offsetKind int

const (
	offsetBeginning offsetKind = iota
	offsetEnd
	offsetAbsolute
	offsetFromEnd
)

func parseOffsetSpec(s string) (offsetSpec, error) {
	switch s {
	case "beginning", "earliest":
		return offsetSpec{kind: offsetBeginning}, nil
	case "end", "latest":
		return offsetSpec{kind: offsetEnd}, nil
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return offsetSpec{}, fmt.Errorf("--offset %q: want beginning, end, an offset or -N (N before the end)", s)
	}
	if n < 0 {
		return offsetSpec{kind: offsetFromEnd, n: -n}, nil
	}
	return offsetSpec{kind: offsetAbsolute, n: n}, nil
}

// resolve is the offset to read from in a partition whose records are
// [start, end).
func (o offsetSpec) resolve(start, end int64) int64 {
	switch o.kind {
	case offsetBeginning:
		return start
	case offsetEnd:
		return end
	case offsetFromEnd:
		return max(start, end-o.n)
	}
	return min(max(o.n, start), end)
}

// reset is the spec as the group consumer's reset for partitions without a
// committed offset.
func (o offsetSpec) reset() kgo.Offset {
	switch o.kind {
	case offsetBeginning:
		return kgo.NewOffset().AtStart()
	case offsetEnd:
		return kgo.NewOffset().AtEnd()
	case offsetFromEnd:
		return kgo.NewOffset().AtEnd().Relative(-o.n)
	}
	return kgo.NewOffset().At(o.n)
}
