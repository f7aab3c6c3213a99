package share

// What the share-offsets admin APIs need of the share-partitions: the
// delivered count that DescribeShareGroupOffsets v1's lag subtracts, and
// forgetting the share-partitions loaded here whose durable state an
// admin request replaced or deleted, so that the next fetch reads it anew.

// DeliveryComplete is the number of records at or past the start offset
// whose delivery is complete (acknowledged or archived): Kafka's
// deliveryCompleteCount, by which the lag (end offset - start offset -
// count) leaves out what is already done.
func (s State) DeliveryComplete() int64 {
	var n int64
	for _, b := range s.Batches {
		first := max(b.FirstOffset, s.StartOffset)
		if b.DeliveryState.terminal() && b.LastOffset >= first {
			n += b.LastOffset - first + 1
		}
	}
	return n
}

// Forget drops k's share-partition if it is loaded, stopping its lock
// timers: its state changed underneath it.
func (m *Manager) Forget(k Key) {
	m.mu.Lock()
	l, ok := m.parts[k]
	delete(m.parts, k)
	m.mu.Unlock()
	if !ok {
		return
	}
	<-l.done
	if p := l.part; p != nil {
		p.retire()
	}
}

// retire stops p's lock timers; p is no longer served.
func (p *Partition) retire() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for id, l := range p.locks {
		l.stop()
		delete(p.locks, id)
	}
}
