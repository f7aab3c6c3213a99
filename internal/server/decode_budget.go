package server

import "github.com/twmb/franz-go/pkg/kmsg"

// Decoding a request allocates more than its frame: kmsg checks a declared
// array length against a minimum encoded size per element, but an element
// of a few bytes becomes a Go struct of tens of bytes, and an unknown
// tagged field on it becomes a map of a few hundred. A 64 MiB frame of
// empty Produce topics allocated 682 MiB; with a tag per topic it would be
// 5 GiB. Decodes therefore reserve their worst case from a budget shared
// by every connection before ReadFrom and return it after, so that many
// connections sending such frames at once are decoded a few at a time
// instead of together. A decode that cannot get its reservation waits;
// only its connection stalls.

// decodeFactor bounds the bytes ReadFrom allocates per body byte, for any
// request kmsg decodes. TestDecodeCostFactorsCoverWorstCases measures it
// over every request and version with bodies built to allocate the most
// per byte; the worst seen with kmsg v1.15.1 was 96.0 (Metadata v9: a
// topic of 4 bytes with a present empty name and one unknown tag allocates
// its 32-byte struct, a 16-byte string pointer and a 336-byte map), and
// 104.0 under the race detector, whose runtime allocates more (CI runs the
// test with -race).
const decodeFactor = 128

// decodeOverhead covers what a decode allocates whatever the body's size,
// such as size-class rounding of small slices. (The request struct is
// allocated before the decode; decoding an empty body allocates nothing.)
const decodeOverhead = 8 << 10

// smallDecodeBody is the largest body decoded against the small budget:
// typical fetch, metadata, offset and most produce requests. Small and
// large decodes draw on separate budgets so that a queue of huge frames
// never holds up ordinary requests.
const smallDecodeBody = 64 << 10

// Budget sizes. The small budget lets at least 7 decodes of the largest
// small body, and hundreds of typical ones, run at once: far more than
// there are cores to run them. The large budget lets a 1 MiB body and a
// smaller one decode at once; a larger body waits for it to be wholly free and takes
// all of it, so at any moment large decodes allocate at most
// max(DefaultDecodeBudget, decodeCost(largest frame)).
const (
	smallDecodeBudget   = 64 << 20
	DefaultDecodeBudget = 256 << 20
)

// decodeCost is the most a decode of a body of size bytes may allocate.
func decodeCost(size int) int64 { return int64(size)*decodeFactor + decodeOverhead }

// decodeBudgets are the server's two budgets; nil ones have no limit.
type decodeBudgets struct {
	small, large *byteBudget
}

// newDecodeBudgets sizes the budgets: large bytes for bodies above
// smallDecodeBody (0 means DefaultDecodeBudget), none at all when large is
// negative.
func newDecodeBudgets(large int64) decodeBudgets {
	switch {
	case large < 0:
		return decodeBudgets{}
	case large == 0:
		large = DefaultDecodeBudget
	}
	return decodeBudgets{small: newStrictBudget(smallDecodeBudget), large: newStrictBudget(large)}
}

// decode reads body into req within the budget.
func (d decodeBudgets) decode(req kmsg.Request, body []byte) error {
	budget := d.small
	if len(body) > smallDecodeBody {
		budget = d.large
	}
	n, _ := budget.acquire(decodeCost(len(body)), nil) // decodes always end, so waits do too
	err := req.ReadFrom(body)
	budget.release(n)
	return err
}
