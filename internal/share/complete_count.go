package share

// completeCount is the DeliveryCompleteCount a write of u records over
// the state cur (ok: there is one), as Kafka's share coordinator settles
// it: a write at the same start offset cannot lower the count (a stale
// writer's smaller figure loses), a write behind the start offset (or
// naming none, -1) keeps what is held, and a write that moves the start
// offset on brings the count for the new window.
func completeCount(cur State, ok bool, u Update) int32 {
	switch {
	case !ok:
		return u.DeliveryCompleteCount
	case u.StartOffset == cur.StartOffset:
		return max(u.DeliveryCompleteCount, cur.DeliveryCompleteCount)
	case u.StartOffset < cur.StartOffset:
		return cur.DeliveryCompleteCount
	}
	return u.DeliveryCompleteCount
}

// terminalFrom counts the terminal records of the window at or above
// from, with pending (offset to its next state) applied over them: the
// DeliveryCompleteCount a write sends.
func (p *Partition) terminalFrom(from int64, pending map[int64]RecordState) int32 {
	n := int32(0)
	for o := max(from, p.start); o < p.end; o++ {
		s, ok := pending[o]
		if !ok {
			s = p.records[o-p.start].state
		}
		if s.terminal() {
			n++
		}
	}
	return n
}
