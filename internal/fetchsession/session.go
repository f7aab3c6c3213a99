package fetchsession

import (
	"container/list"
	"math/rand/v2"
	"sync"
)

// Key names a partition in a session: by topic name before Fetch v13, by
// topic id from v13 on (the other field is zero).
type Key struct {
	Topic     string
	TopicID   [16]byte
	Partition int32
}

// Partition is what a session remembers about one partition.
type Partition struct {
	Key
	FetchOffset        int64
	MaxBytes           int32
	CurrentLeaderEpoch int32
	LastFetchedEpoch   int32
	LogStartOffset     int64

	// What the last response said; a partition whose answer would repeat
	// all of it with no records is left out of an incremental response.
	sent           bool
	highWatermark  int64
	lastStable     int64
	logStartOffset int64
}

// Answer is what a response is about to say of a partition.
type Answer struct {
	ErrorCode      int16
	HighWatermark  int64
	LastStable     int64
	LogStartOffset int64
	HasRecords     bool
}

// Changed reports whether ans must be sent in an incremental response,
// and records it as sent when so.
func (p *Partition) Changed(ans Answer) bool {
	if !ans.HasRecords && ans.ErrorCode == 0 && p.sent && ans.HighWatermark == p.highWatermark &&
		ans.LastStable == p.lastStable && ans.LogStartOffset == p.logStartOffset {
		return false
	}
	p.sent = true
	p.highWatermark, p.lastStable, p.logStartOffset = ans.HighWatermark, ans.LastStable, ans.LogStartOffset
	return true
}

// Session is one client's fetch session. Its methods must be called with
// the session locked (Lock/Unlock); a client sends one fetch at a time per
// session, so the lock is uncontended.
type Session struct {
	sync.Mutex
	ID int32
	// Epoch is the epoch the next incremental request must carry.
	Epoch int32

	order []*Partition
	byKey map[Key]*Partition
	elem  *list.Element
}

// Partitions returns the session's partitions in the order they joined.
func (s *Session) Partitions() []*Partition { return s.order }

// Upsert adds a partition or updates its fetch position and limits.
func (s *Session) Upsert(p Partition) *Partition {
	if cur, ok := s.byKey[p.Key]; ok {
		cur.FetchOffset, cur.MaxBytes = p.FetchOffset, p.MaxBytes
		cur.CurrentLeaderEpoch, cur.LastFetchedEpoch, cur.LogStartOffset = p.CurrentLeaderEpoch, p.LastFetchedEpoch, p.LogStartOffset
		return cur
	}
	np := p
	s.byKey[p.Key] = &np
	s.order = append(s.order, &np)
	return &np
}

// Forget removes a partition from the session.
func (s *Session) Forget(k Key) {
	if _, ok := s.byKey[k]; !ok {
		return
	}
	delete(s.byKey, k)
	for i, p := range s.order {
		if p.Key == k {
			s.order = append(s.order[:i], s.order[i+1:]...)
			break
		}
	}
}

// NextEpoch advances the epoch after a successful incremental fetch, as
// KIP-227 wraps it: after MaxInt32 comes 1.
func (s *Session) NextEpoch() {
	if s.Epoch == 1<<31-1 {
		s.Epoch = 1
	} else {
		s.Epoch++
	}
}

// Cache holds sessions, least recently used evicted first.
type Cache struct {
	mu       sync.Mutex
	maxSlots int
	sessions map[int32]*Session
	lru      *list.List // front = most recently used
}

// NewCache returns a cache of at most maxSlots sessions; 0 disables
// sessions (every full fetch is answered with session id 0).
func NewCache(maxSlots int) *Cache {
	return &Cache{maxSlots: maxSlots, sessions: map[int32]*Session{}, lru: list.New()}
}

// New creates a session with epoch 1 next, evicting the least recently
// used session when the cache is full; nil when sessions are disabled.
func (c *Cache) New() *Session {
	if c.maxSlots <= 0 {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for len(c.sessions) >= c.maxSlots {
		oldest := c.lru.Back().Value.(*Session)
		c.removeLocked(oldest.ID)
	}
	var id int32
	for id == 0 || c.sessions[id] != nil {
		id = rand.Int32()
	}
	s := &Session{ID: id, Epoch: 1, byKey: map[Key]*Partition{}}
	s.elem = c.lru.PushFront(s)
	c.sessions[id] = s
	return s
}

// Get returns a session and marks it used.
func (c *Cache) Get(id int32) (*Session, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	s, ok := c.sessions[id]
	if ok {
		c.lru.MoveToFront(s.elem)
	}
	return s, ok
}

// Remove drops a session.
func (c *Cache) Remove(id int32) {
	c.mu.Lock()
	c.removeLocked(id)
	c.mu.Unlock()
}

func (c *Cache) removeLocked(id int32) {
	if s, ok := c.sessions[id]; ok {
		c.lru.Remove(s.elem)
		delete(c.sessions, id)
	}
}

// Len is the number of sessions.
func (c *Cache) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.sessions)
}
