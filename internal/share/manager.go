package share

import (
	"errors"
	"sync"

	"github.com/karst-broker/karst/internal/coordinator"
)

// Manager holds the share-partitions led by this broker (Kafka's
// SharePartitionManager) and the share sessions.
type Manager struct {
	persist  Persister
	clock    coordinator.Clock
	Sessions *Sessions
	onErr    func(Key, error)

	mu    sync.Mutex
	parts map[Key]*loading
}

// loading is a share-partition being loaded or loaded; done is closed
// once part or err is set, so a slow load holds back only its own
// partition.
type loading struct {
	done chan struct{}
	part *Partition
	err  error
}

// NewManager returns a manager persisting through p; maxSessions bounds
// the share sessions (group.share.max.share.sessions). onErr hears the
// failed writes of lock expiries, which no request waits for.
func NewManager(p Persister, clock coordinator.Clock, maxSessions int, onErr func(Key, error)) *Manager {
	if clock == nil {
		clock = coordinator.SystemClock{}
	}
	if onErr == nil {
		onErr = func(Key, error) {}
	}
	return &Manager{persist: p, clock: clock, Sessions: NewSessions(maxSessions), onErr: onErr, parts: map[Key]*loading{}}
}

// Partition returns k's share-partition, loading it on first use: its
// durable state, or initial() when it has none.
func (m *Manager) Partition(k Key, config func() Config, initial func() (int64, error)) (*Partition, error) {
	m.mu.Lock()
	l, ok := m.parts[k]
	if !ok {
		l = &loading{done: make(chan struct{})}
		m.parts[k] = l
	}
	m.mu.Unlock()
	if ok {
		<-l.done
		return l.part, l.err
	}
	l.part, l.err = LoadPartition(k, config, m.clock, m.persist, initial)
	if l.err != nil {
		// Not kept: the next fetch tries again.
		m.mu.Lock()
		delete(m.parts, k)
		m.mu.Unlock()
	} else {
		l.part.OnTimerError(func(err error) { m.onErr(k, err) })
	}
	close(l.done)
	return l.part, l.err
}

// loaded returns the share-partitions of group that are loaded.
func (m *Manager) loaded(group string) []*Partition {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []*Partition
	for k, l := range m.parts {
		if k.Group != group {
			continue
		}
		select {
		case <-l.done:
			if l.part != nil {
				out = append(out, l.part)
			}
		default:
		}
	}
	return out
}

// ReleaseMember gives back the records member holds in every
// share-partition of group: the call the share group coordinator makes
// when a member leaves or is fenced.
func (m *Manager) ReleaseMember(group, member string) error {
	var errs []error
	for _, p := range m.loaded(group) {
		if err := p.ReleaseMember(member); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}
