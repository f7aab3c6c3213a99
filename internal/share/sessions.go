package share

import (
	"bytes"
	"cmp"
	"errors"
	"slices"
	"sync"
)

// Share session epochs, as Kafka's ShareRequestMetadata numbers them.
const (
	InitialEpoch int32 = 0
	FinalEpoch   int32 = -1
)

// The errors of share sessions, Kafka's SHARE_SESSION_NOT_FOUND,
// INVALID_SHARE_SESSION_EPOCH and SHARE_SESSION_LIMIT_REACHED.
var (
	ErrSessionNotFound = errors.New("share: no share session for the member")
	ErrSessionEpoch    = errors.New("share: the share session epoch is not the one expected")
	ErrSessionLimit    = errors.New("share: the share session cache is full")
)

// SessionKey names a share session: Kafka's ShareSessionKey, a group and
// a member id (taken as the client gives it until the share group
// coordinator exists).
type SessionKey struct {
	Group  string
	Member string
}

// TopicPartition is a partition of a session, by topic id.
type TopicPartition struct {
	TopicID   [16]byte
	Partition int32
}

type session struct {
	// epoch is the epoch the next request must carry.
	epoch      int32
	partitions map[TopicPartition]bool
	// owner is the connection that opened the session, whose close ends
	// it (Kafka 4.1+'s ShareSessionCache keys sessions by connection id).
	owner any
}

// Sessions is the share session cache (Kafka's ShareSessionCache).
type Sessions struct {
	max int
	mu  sync.Mutex
	m   map[SessionKey]*session
}

// NewSessions returns a cache of at most max sessions (0: Kafka's
// default, 2000).
func NewSessions(max int) *Sessions {
	if max <= 0 {
		max = 2000
	}
	return &Sessions{max: max, m: map[SessionKey]*session{}}
}

// nextEpoch follows epoch, wrapping past the largest int32 to 1 as
// Kafka's ShareRequestMetadata.nextEpoch does.
func nextEpoch(epoch int32) int32 {
	if epoch == 1<<31-1 {
		return 1
	}
	return epoch + 1
}

// Open starts k's session with partitions (epoch 0) on the connection
// owner, replacing one it had, whose partitions are returned so that its
// records are released.
func (s *Sessions) Open(k SessionKey, owner any, partitions []TopicPartition) (replaced []TopicPartition, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	old, had := s.m[k]
	if !had && len(s.m) >= s.max {
		return nil, ErrSessionLimit
	}
	if had {
		replaced = keys(old.partitions)
	}
	ns := &session{epoch: 1, partitions: map[TopicPartition]bool{}, owner: owner}
	for _, tp := range partitions {
		ns.partitions[tp] = true
	}
	s.m[k] = ns
	return replaced, nil
}

// Next checks an incremental request's epoch, applies its added and
// forgotten partitions and returns the session's partitions.
func (s *Sessions) Next(k SessionKey, epoch int32, add, forget []TopicPartition) ([]TopicPartition, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ss, ok := s.m[k]
	if !ok {
		return nil, ErrSessionNotFound
	}
	if epoch != ss.epoch {
		return nil, ErrSessionEpoch
	}
	ss.epoch = nextEpoch(epoch)
	for _, tp := range add {
		ss.partitions[tp] = true
	}
	for _, tp := range forget {
		delete(ss.partitions, tp)
	}
	return keys(ss.partitions), nil
}

// Close ends k's session (epoch -1) and returns its partitions.
func (s *Sessions) Close(k SessionKey) ([]TopicPartition, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ss, ok := s.m[k]
	if !ok {
		return nil, ErrSessionNotFound
	}
	delete(s.m, k)
	return keys(ss.partitions), nil
}

// CloseOwned ends k's session if the connection owner opened it, and
// returns its partitions: a session reopened on another connection
// outlives the first one's close.
func (s *Sessions) CloseOwned(k SessionKey, owner any) ([]TopicPartition, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ss, ok := s.m[k]
	if !ok || ss.owner != owner {
		return nil, false
	}
	delete(s.m, k)
	return keys(ss.partitions), true
}

// Partitions are k's session's partitions, none when it has no session.
func (s *Sessions) Partitions(k SessionKey) []TopicPartition {
	s.mu.Lock()
	defer s.mu.Unlock()
	if ss, ok := s.m[k]; ok {
		return keys(ss.partitions)
	}
	return nil
}

// Len is the number of open sessions.
func (s *Sessions) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.m)
}

func keys(m map[TopicPartition]bool) []TopicPartition {
	out := make([]TopicPartition, 0, len(m))
	for tp := range m {
		out = append(out, tp)
	}
	slices.SortFunc(out, func(a, b TopicPartition) int {
		if c := bytes.Compare(a.TopicID[:], b.TopicID[:]); c != 0 {
			return c
		}
		return cmp.Compare(a.Partition, b.Partition)
	})
	return out
}
