package txn

import (
	"sync"
)

// ProducerIDBlockSize is how many ids one ProducerIdsRecord reserves, as
// in Kafka.
const ProducerIDBlockSize = 1000

// ProducerIDs hands out producer ids from reserved blocks. Reserving a
// block writes to the metadata log; the ids in between cost a mutex.
type ProducerIDs struct {
	reserve func() (first int64, err error)

	mu   sync.Mutex
	next int64
	end  int64 // exclusive
}

// NewProducerIDs returns an allocator; reserve returns the first id of a
// newly reserved block of ProducerIDBlockSize ids.
func NewProducerIDs(reserve func() (int64, error)) *ProducerIDs {
	return &ProducerIDs{reserve: reserve}
}

// Next returns an unused producer id.
func (p *ProducerIDs) Next() (int64, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.next >= p.end {
		first, err := p.reserve()
		if err != nil {
			return -1, err
		}
		p.next, p.end = first, first+ProducerIDBlockSize
	}
	id := p.next
	p.next++
	return id, nil
}
