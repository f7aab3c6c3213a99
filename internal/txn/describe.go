package txn

import (
	"regexp"
	"slices"
	"strings"

	"github.com/twmb/franz-go/pkg/kerr"

	"github.com/karst-broker/karst/internal/coordinator"
)

// Description is a transactional id's state, as DescribeTransactions
// reports it.
type Description struct {
	TransactionalID string
	State           State
	TimeoutMs       int32
	// StartMs is when the open transaction began, or -1.
	StartMs       int64
	ProducerID    int64
	ProducerEpoch int16
	Partitions    []TopicPartition
}

// Describe returns a transactional id's state; an unknown one is
// TRANSACTIONAL_ID_NOT_FOUND. An id whose InitProducerId is writing its
// first record is Empty with epoch -1, as Kafka shows it.
func (c *Coordinator) Describe(transactionalID string) (Description, error) {
	return read(c, transactionalID, kerr.TransactionalIDNotFound, func(s *stateShard) (Description, error) {
		m := s.described(transactionalID)
		if m == nil || m.state == Dead {
			return Description{TransactionalID: transactionalID}, kerr.TransactionalIDNotFound
		}
		return m.describe(), nil
	})
}

func (m *txnMeta) describe() Description {
	return Description{TransactionalID: m.id, State: m.state, TimeoutMs: m.timeoutMs, StartMs: m.startMs,
		ProducerID: m.producerID, ProducerEpoch: m.epoch, Partitions: m.sortedPartitions()}
}

// ListFilter selects transactions for ListTransactions; zero values
// select everything.
type ListFilter struct {
	States      []State
	ProducerIDs []int64
	// MinDurationMs keeps transactions running longer than this; -1 (or
	// any negative) keeps all (ListTransactions v1).
	MinDurationMs int64
	// IDPattern is a regular expression the transactional id must match
	// (ListTransactions v2); nil keeps all.
	IDPattern *regexp.Regexp
}

// Listing is one transactional id in a ListTransactions answer.
type Listing struct {
	TransactionalID string
	ProducerID      int64
	State           State
}

// List returns the transactional ids the filter selects, sorted.
func (c *Coordinator) List(f ListFilter) []Listing {
	now := c.clock.Now().UnixMilli()
	var out []Listing
	for _, p := range c.rt.Partitions() {
		coordinator.Read(c.rt, p, func(s *stateShard) (struct{}, error) {
			for _, ids := range []map[string]*txnMeta{s.txns, s.created} {
				for _, m := range ids {
					if f.selects(m, now) {
						out = append(out, Listing{TransactionalID: m.id, ProducerID: m.producerID, State: m.state})
					}
				}
			}
			return struct{}{}, nil
		})
	}
	slices.SortFunc(out, func(a, b Listing) int { return strings.Compare(a.TransactionalID, b.TransactionalID) })
	return out
}

func (f ListFilter) selects(m *txnMeta, nowMs int64) bool {
	switch {
	case m.state == Dead:
		return false
	case len(f.States) > 0 && !slices.Contains(f.States, m.state):
		return false
	case len(f.ProducerIDs) > 0 && !slices.Contains(f.ProducerIDs, m.producerID):
		return false
	case f.MinDurationMs >= 0 && nowMs-m.startMs <= f.MinDurationMs:
		return false
	case f.IDPattern != nil && !f.IDPattern.MatchString(m.id):
		return false
	}
	return true
}
