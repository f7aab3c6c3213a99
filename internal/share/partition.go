package share

import (
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/karst-broker/karst/internal/coordinator"
)

// Key names a share-partition.
type Key struct {
	Group     string
	TopicID   [16]byte
	Partition int32
}

// Config is a share-partition's settings, read at each operation so that
// a change of the group's configs applies from the next one.
type Config struct {
	// RecordLockDuration is share.record.lock.duration.ms.
	RecordLockDuration time.Duration
	// DeliveryCountLimit is share.delivery.count.limit: a record released
	// after that many deliveries is archived.
	DeliveryCountLimit int16
	// MaxRecordLocks is share.partition.max.record.locks: the bound of the
	// in-flight window.
	MaxRecordLocks int
}

// Persister keeps share-partitions' durable state: the share coordinator,
// or a test's map.
type Persister interface {
	// ReadState returns the partition's state; StartOffset is -1 when it
	// was never initialized.
	ReadState(k Key) (State, error)
	// WriteState makes u durable before it returns.
	WriteState(k Key, u Update) error
}

// ErrInvalidRecordState refuses an acknowledgement of records that are
// not acquired by the member (Kafka's INVALID_RECORD_STATE).
var ErrInvalidRecordState = errors.New("share: the records are not acquired by this member")

// ErrInvalidRequest refuses a malformed acknowledgement batch.
var ErrInvalidRequest = errors.New("share: malformed acknowledgement batch")

// AcknowledgeType is an acknowledgement's type, numbered as in ShareFetch
// and ShareAcknowledge.
type AcknowledgeType int8

const (
	AckGap     AcknowledgeType = 0
	AckAccept  AcknowledgeType = 1
	AckRelease AcknowledgeType = 2
	AckReject  AcknowledgeType = 3
	// AckRenew (KIP-1222) extends the acquisition lock.
	AckRenew AcknowledgeType = 4
)

// Ack acknowledges [FirstOffset, LastOffset]: one type for all, or one
// per offset.
type Ack struct {
	FirstOffset int64
	LastOffset  int64
	Types       []AcknowledgeType
}

// FetchedBatch is one batch of what a fetch read from the log.
// Deliverable is false for a control batch and for data a read_committed
// group must not see (aborted): those offsets are archived unseen.
type FetchedBatch struct {
	FirstOffset int64
	LastOffset  int64
	Deliverable bool
}

// AcquiredRange is a range of records acquired by one fetch, as ShareFetch's
// AcquiredRecords.
type AcquiredRange struct {
	FirstOffset   int64
	LastOffset    int64
	DeliveryCount int16
}

type record struct {
	state  RecordState
	count  int16
	member string
	lock   uint64
}

type lock struct {
	stop    func() bool
	records int
}

// Partition is one share-partition's state machine (Kafka's
// SharePartition). Its records are those of the in-flight window
// [start, end): offsets below start are all acknowledged or archived,
// offsets from end on were never acquired.
type Partition struct {
	key     Key
	config  func() Config
	clock   coordinator.Clock
	persist Persister
	onErr   func(error)

	mu      sync.Mutex
	start   int64
	end     int64
	records []record // records[i] is offset start+i
	locks   map[uint64]*lock
	lastID  uint64
	epoch   int32
	// available is closed (and replaced) when records become available
	// again, to wake a long-polling fetch.
	available chan struct{}
}

// LoadPartition reads k's state from p; a partition never initialized
// starts at initial() (share.auto.offset.reset), which is made durable at
// once so that a restart does not move it.
func LoadPartition(k Key, config func() Config, clock coordinator.Clock, p Persister, initial func() (int64, error)) (*Partition, error) {
	st, err := p.ReadState(k)
	if err != nil {
		return nil, err
	}
	sp := &Partition{key: k, config: config, clock: clock, persist: p, locks: map[uint64]*lock{},
		available: make(chan struct{}), epoch: st.LeaderEpoch, onErr: func(error) {}}
	if st.StartOffset < 0 {
		start, err := initial()
		if err != nil {
			return nil, err
		}
		if err := p.WriteState(k, Update{LeaderEpoch: st.LeaderEpoch, StartOffset: start, DeliveryCompleteCount: 0}); err != nil {
			return nil, err
		}
		sp.start, sp.end = start, start
		return sp, nil
	}
	sp.start, sp.end = st.StartOffset, st.StartOffset
	for _, b := range st.Batches {
		if b.LastOffset+1 > sp.end {
			sp.end = b.LastOffset + 1
		}
	}
	sp.records = make([]record, sp.end-sp.start)
	for _, b := range st.Batches {
		for o := max(b.FirstOffset, sp.start); o <= b.LastOffset; o++ {
			r := &sp.records[o-sp.start]
			r.count = b.DeliveryCount
			r.state = b.DeliveryState
			if r.state == Acquired { // never persisted; read as available
				r.state = Available
			}
		}
	}
	sp.advance()
	return sp, nil
}

// OnTimerError sets where errors of lock expiries' writes go.
func (p *Partition) OnTimerError(f func(error)) {
	p.mu.Lock()
	p.onErr = f
	p.mu.Unlock()
}

// StartOffset is the share-partition start offset.
func (p *Partition) StartOffset() int64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.start
}

// Available is closed when records released or expired become available.
func (p *Partition) Available() <-chan struct{} {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.available
}

// FetchOffset is where the next fetch reads the log: the first available
// record of the window, or its end; ok is false when nothing can be
// acquired (no available record and the window is full).
func (p *Partition) FetchOffset() (offset int64, ok bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for i := range p.records {
		if p.records[i].state == Available {
			return p.start + int64(i), true
		}
	}
	return p.end, int(p.end-p.start) < p.config().MaxRecordLocks
}

// AdvanceTo moves the start offset up to the log start offset when
// retention or DeleteRecords removed records before it.
func (p *Partition) AdvanceTo(logStart int64) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if logStart <= p.start {
		return nil
	}
	u := Update{LeaderEpoch: p.epoch, StartOffset: logStart, DeliveryCompleteCount: p.terminalFrom(logStart, nil)}
	if err := p.persist.WriteState(p.key, u); err != nil {
		return err
	}
	for o := p.start; o < min(logStart, p.end); o++ {
		p.unlock(&p.records[o-p.start])
	}
	if logStart >= p.end {
		p.records = p.records[:0]
		p.end = logStart
	} else {
		p.records = p.records[logStart-p.start:]
	}
	p.start = logStart
	return nil
}

// Acquire acquires for member the available records of batches, which a
// fetch read from FetchOffset on: records of the window released or
// expired, then records past its end, up to the in-flight bound. from is
// the offset the read started at: offsets from it that no batch holds do
// not exist in the log and are archived.
// maxRecords bounds the records acquired; strict (ShareFetch v2's
// record-limit mode) makes it exact, otherwise whole batches are taken
// (batch-optimized). batchSize > 0 splits the ranges returned.
func (p *Partition) Acquire(member string, from int64, batches []FetchedBatch, maxRecords, batchSize int, strict bool) []AcquiredRange {
	p.mu.Lock()
	defer p.mu.Unlock()
	cfg := p.config()
	if maxRecords <= 0 {
		maxRecords = int(^uint(0) >> 1)
	}
	p.lastID++
	id := p.lastID
	var out []AcquiredRange
	taken := 0
	take := func(o int64, r *record) {
		r.state, r.member, r.lock = Acquired, member, id
		r.count++
		taken++
		if n := len(out); n > 0 && out[n-1].LastOffset+1 == o && out[n-1].DeliveryCount == r.count &&
			(batchSize <= 0 || out[n-1].LastOffset-out[n-1].FirstOffset+1 < int64(batchSize)) {
			out[n-1].LastOffset = o
			return
		}
		out = append(out, AcquiredRange{FirstOffset: o, LastOffset: o, DeliveryCount: r.count})
	}
	// next is the lowest offset the read still covers: offsets below a
	// batch that are not in the one before do not exist in the log
	// (compacted away, or the gap of a control record).
	next := from
	changed := map[int64]bool{}
scan:
	for _, b := range batches {
		if taken >= maxRecords {
			break
		}
		if b.FirstOffset > next {
			p.gap(next, b.FirstOffset, changed)
		}
		if b.LastOffset+1 > next {
			next = b.LastOffset + 1
		}
		if !strict && b.LastOffset >= p.end && int(p.end-p.start) >= cfg.MaxRecordLocks {
			break
		}
		for o := max(b.FirstOffset, p.start); o <= b.LastOffset; o++ {
			if strict && taken >= maxRecords {
				break scan
			}
			if o >= p.end {
				if strict && int(p.end-p.start) >= cfg.MaxRecordLocks {
					break scan
				}
				p.extend(o)
			}
			r := &p.records[o-p.start]
			if r.state != Available {
				continue
			}
			if !b.Deliverable {
				r.state = Archived
				changed[o] = true
				continue
			}
			take(o, r)
		}
	}
	if taken > 0 {
		l := &lock{records: taken}
		p.locks[id] = l
		l.stop = p.clock.AfterFunc(cfg.RecordLockDuration, func() { p.expire(id) })
	}
	if len(changed) > 0 {
		// Archiving what was never delivered needs no durability of its
		// own: lost, it is archived again by the next read.
		p.advance()
	}
	return out
}

// extend grows the window to hold o as available.
func (p *Partition) extend(o int64) {
	for p.end <= o {
		p.records = append(p.records, record{})
		p.end++
	}
}

// gap archives the offsets [from, to) the log does not hold.
func (p *Partition) gap(from, to int64, changed map[int64]bool) {
	for o := max(from, p.start); o < to; o++ {
		if o >= p.end {
			p.extend(o)
		}
		if r := &p.records[o-p.start]; r.state == Available {
			r.state = Archived
			changed[o] = true
		}
	}
}

// change is one record's next state.
type change struct {
	offset int64
	state  RecordState
	count  int16
}

// Acknowledge applies member's acknowledgements, all or none: every
// offset must be acquired by member. The result is durable when it
// returns. renew says whether Renew (KIP-1222) is allowed.
func (p *Partition) Acknowledge(member string, acks []Ack, renew bool) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	cfg := p.config()
	var changes []change
	var renewed []int64
	for _, a := range acks {
		n := a.LastOffset - a.FirstOffset + 1
		if n <= 0 || len(a.Types) == 0 || len(a.Types) != 1 && int64(len(a.Types)) != n {
			return fmt.Errorf("%w: [%d, %d] with %d types", ErrInvalidRequest, a.FirstOffset, a.LastOffset, len(a.Types))
		}
		for i := int64(0); i < n; i++ {
			o := a.FirstOffset + i
			t := a.Types[0]
			if len(a.Types) > 1 {
				t = a.Types[i]
			}
			if t < AckGap || t > AckRenew || t == AckRenew && !renew {
				return fmt.Errorf("%w: acknowledge type %d", ErrInvalidRequest, t)
			}
			if o < p.start || o >= p.end {
				return fmt.Errorf("%w: offset %d is outside [%d, %d)", ErrInvalidRecordState, o, p.start, p.end)
			}
			r := &p.records[o-p.start]
			if r.state != Acquired || r.member != member {
				return fmt.Errorf("%w: offset %d is %s", ErrInvalidRecordState, o, r.state)
			}
			switch t {
			case AckAccept:
				changes = append(changes, change{o, Acknowledged, r.count})
			case AckGap, AckReject:
				changes = append(changes, change{o, Archived, r.count})
			case AckRelease:
				changes = append(changes, change{o, p.released(r, cfg), r.count})
			case AckRenew:
				renewed = append(renewed, o)
			}
		}
	}
	if len(changes) > 0 {
		if err := p.write(changes); err != nil {
			return err
		}
		p.apply(changes)
	}
	if len(renewed) > 0 {
		p.lastID++
		id := p.lastID
		l := &lock{}
		for _, o := range renewed {
			r := &p.records[o-p.start]
			p.unlock(r)
			r.lock = id
			l.records++
		}
		p.locks[id] = l
		l.stop = p.clock.AfterFunc(cfg.RecordLockDuration, func() { p.expire(id) })
	}
	p.advance()
	return nil
}

// released is the state of a record given back: archived once it has
// been delivered share.delivery.count.limit times.
func (p *Partition) released(r *record, cfg Config) RecordState {
	if r.count >= cfg.DeliveryCountLimit {
		return Archived
	}
	return Available
}

// ReleaseMember gives back every record member holds (its session closed,
// or it left the group or was fenced).
func (p *Partition) ReleaseMember(member string) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.releaseWhere(func(r *record) bool { return r.member == member })
}

// expire releases the records still held under lock id.
func (p *Partition) expire(id uint64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if _, ok := p.locks[id]; !ok {
		return
	}
	if err := p.releaseWhere(func(r *record) bool { return r.lock == id }); err != nil {
		p.onErr(err)
	}
}

// releaseWhere releases the acquired records match selects. The release
// applies even when its write fails: lost, a restart reads those records
// as available all the same.
func (p *Partition) releaseWhere(match func(*record) bool) error {
	cfg := p.config()
	var changes []change
	for i := range p.records {
		r := &p.records[i]
		if r.state == Acquired && match(r) {
			changes = append(changes, change{p.start + int64(i), p.released(r, cfg), r.count})
		}
	}
	if len(changes) == 0 {
		return nil
	}
	err := p.write(changes)
	p.apply(changes)
	p.advance()
	return err
}

// write makes changes durable, with the start offset they lead to.
func (p *Partition) write(changes []change) error {
	start := p.start
	pending := map[int64]RecordState{}
	for _, c := range changes {
		pending[c.offset] = c.state
	}
	for start < p.end {
		s, ok := pending[start]
		if !ok {
			s = p.records[start-p.start].state
		}
		if !s.terminal() {
			break
		}
		start++
	}
	u := Update{LeaderEpoch: p.epoch, StartOffset: start, DeliveryCompleteCount: p.terminalFrom(start, pending)}
	for _, c := range changes {
		if c.offset < start {
			continue
		}
		if n := len(u.Batches); n > 0 {
			b := &u.Batches[n-1]
			if b.LastOffset+1 == c.offset && b.DeliveryState == c.state && b.DeliveryCount == c.count {
				b.LastOffset = c.offset
				continue
			}
		}
		u.Batches = append(u.Batches, StateBatch{FirstOffset: c.offset, LastOffset: c.offset, DeliveryState: c.state, DeliveryCount: c.count})
	}
	return p.persist.WriteState(p.key, u)
}

func (p *Partition) apply(changes []change) {
	woke := false
	for _, c := range changes {
		r := &p.records[c.offset-p.start]
		p.unlock(r)
		r.state, r.count, r.member = c.state, c.count, ""
		if c.state == Available {
			woke = true
		}
	}
	if woke {
		close(p.available)
		p.available = make(chan struct{})
	}
}

// unlock takes r out of its acquisition lock, stopping the lock's timer
// once it holds no record.
func (p *Partition) unlock(r *record) {
	if r.lock == 0 {
		return
	}
	if l, ok := p.locks[r.lock]; ok {
		l.records--
		if l.records <= 0 {
			l.stop()
			delete(p.locks, r.lock)
		}
	}
	r.lock = 0
}

// advance moves the start offset past acknowledged and archived records.
func (p *Partition) advance() {
	i := 0
	for i < len(p.records) && p.records[i].state.terminal() {
		i++
	}
	p.records = p.records[i:]
	p.start += int64(i)
}

// Snapshot is the in-flight state, for tests and describing.
type Snapshot struct {
	StartOffset int64
	EndOffset   int64
	Records     []SnapshotRecord
	Locks       int
}

// SnapshotRecord is one in-flight record.
type SnapshotRecord struct {
	Offset int64
	State  RecordState
	Count  int16
	Member string
}

// Snapshot returns the partition's in-flight state.
func (p *Partition) Snapshot() Snapshot {
	p.mu.Lock()
	defer p.mu.Unlock()
	s := Snapshot{StartOffset: p.start, EndOffset: p.end, Locks: len(p.locks)}
	for i, r := range p.records {
		s.Records = append(s.Records, SnapshotRecord{Offset: p.start + int64(i), State: r.state, Count: r.count, Member: r.member})
	}
	return s
}
