package metadata

import "sync"

// MemoryLog is a RecordLog that keeps records in memory: for tests and
// tools that need a Store without a log directory.
type MemoryLog struct {
	mu      sync.Mutex
	records [][]byte
}

// AppendRecords keeps the records.
func (m *MemoryLog) AppendRecords(rs [][]byte) error {
	m.mu.Lock()
	m.records = append(m.records, rs...)
	m.mu.Unlock()
	return nil
}

// ReadAll calls fn with every record kept, in order.
func (m *MemoryLog) ReadAll(fn func([]byte) error) error {
	m.mu.Lock()
	records := m.records
	m.mu.Unlock()
	for _, r := range records {
		if err := fn(r); err != nil {
			return err
		}
	}
	return nil
}

// LastOffset is the index of the last record kept, -1 when empty.
func (m *MemoryLog) LastOffset() int64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	return int64(len(m.records)) - 1
}
