package server

import (
	"errors"
	"fmt"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// Decoding a request allocates more than its frame: kmsg checks a declared
// array length against a minimum encoded size per element, but an element
// of a few bytes becomes a Go struct of tens of bytes, and an unknown
// tagged field on it becomes a map of a few hundred. A 64 MiB frame of
// empty Produce topics allocated 682 MiB; with a tag per topic it would be
// 5 GiB. Decodes therefore reserve their worst case from a budget shared
// by every connection before ReadFrom and return it after, so that many
// connections sending such frames at once are decoded a few at a time
// instead of together. A decode that cannot get its reservation waits;
// only its connection stalls. A body whose reservation is larger than
// its whole budget is refused and its connection closed, so one frame
// cannot go past the budget either; Produce, whose large frames are
// records that decode into slices of the frame, is counted instead of
// charged decodeFactor per byte.

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
// smaller one decode at once; a body that could allocate more than all of
// it is refused (2 MiB, or a Produce request of any size that its
// count of topics, partitions and tags does not make that costly), so at
// any moment decodes allocate at most the two budgets together.
const (
	smallDecodeBudget   = 64 << 20
	DefaultDecodeBudget = 256 << 20
)

// decodeCost is the most a decode of a body of size bytes may allocate.
func decodeCost(size int) int64 { return int64(size)*decodeFactor + decodeOverhead }

// errDecodeTooCostly refuses a body whose decode could allocate more than
// its whole budget. Such a body once decoded alone, holding all of the
// budget, and still allocated up to decodeFactor times its size above it:
// a 16 MiB Metadata request of empty names with unknown tags reached
// 3.7 GB. Refusing it bounds what decodes allocate at once by the budgets
// whatever the frame size.
var errDecodeTooCostly = errors.New("decoding the body could allocate more than the decode budget")

// bodyDecodeCost is the most decoding body into req may allocate, or an
// error for a body refused before decoding.
func bodyDecodeCost(req kmsg.Request, body []byte) (int64, error) {
	if req.Key() == produceKey {
		n, err := produceDecodeCost(req.GetVersion(), body)
		return n + decodeOverhead, err
	}
	return decodeCost(len(body)), nil
}

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

// decode reads body into req within the budget. It refuses a body whose
// decode could exceed the budget it would draw on, and one that Kafka's
// parser refuses although kmsg would decode it (a null in a non-nullable
// field, a collection above Kafka's caps).
func (d decodeBudgets) decode(req kmsg.Request, body []byte) error {
	cost, err := bodyDecodeCost(req, body)
	if err != nil {
		return err
	}
	budget := d.small
	if cost > decodeCost(smallDecodeBody) {
		budget = d.large
	}
	if budget != nil && cost > budget.limit {
		return fmt.Errorf("%w: %d bytes of body could allocate %d, the budget is %d", errDecodeTooCostly, len(body), cost, budget.limit)
	}
	// Walked after the cheap refusal above, so a body refused for its
	// size is not walked first.
	walked := req.Key() == produceKey // produceDecodeCost walked it
	if !walked {
		if walked, err = refuseBeforeDecoding(req, body); err != nil {
			return err
		}
	}
	n, _ := budget.acquire(cost, nil) // decodes always end, so waits do too
	err = req.ReadFrom(body)
	budget.release(n)
	if err == nil && !walked {
		err = refuseNulls(req, body)
	}
	return err
}
