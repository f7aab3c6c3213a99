package metadata

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"
)

// RecordLog is the __cluster_metadata-0 log as the Store needs it. The
// lead wires it to internal/log; tests use an in-memory fake.
type RecordLog interface {
	// AppendRecords appends the framed records of one operation durably
	// and atomically: Kafka's controller writes them as one batch (see
	// BuildMetadataBatch), so a reader sees all of them or none.
	AppendRecords(records [][]byte) error
	// ReadAll calls fn with the value of every record of every data
	// batch, in offset order, skipping control batches (see
	// ForEachMetadataRecord). fn's slice is only valid during the call.
	ReadAll(fn func(recordValue []byte) error) error
}

// StoreOptions configures a Store.
type StoreOptions struct {
	Node Node
	// OnCommit, if set, runs after each commit with the image before and
	// after and the records applied, on the committing goroutine while
	// other writers wait: keep it short (e.g. create or drop partition
	// logs).
	OnCommit func(prev, next *Image, records []Record)
}

// Store owns the metadata image and the log it comes from. Readers call
// Image at any time without locking; writers (the operations) are
// serialized so that each validates against the image it extends.
type Store struct {
	log  RecordLog
	opts StoreOptions

	mu  sync.Mutex // held by writers across validate, append, swap
	cur atomic.Pointer[Image]
}

// OpenStore replays the log into an image. An empty log is bootstrapped
// with BootstrapRecords, as Kafka's controller does on first activation. A
// metadata transaction left open at the end of the log is discarded and
// closed with an AbortTransactionRecord. A log another process (Apache
// Kafka) left behind is then taken over with ActivationRecords.
func OpenStore(log RecordLog, opts StoreOptions) (*Store, error) {
	s := &Store{log: log, opts: opts}
	b := newBuilder(EmptyImage())
	var (
		count   int
		inTxn   bool
		pending []Record
	)
	err := log.ReadAll(func(value []byte) error {
		count++
		rec, err := Decode(value)
		if err != nil {
			return fmt.Errorf("record %d: %w", count-1, err)
		}
		switch rec.(type) {
		case *BeginTransactionRecord:
			if inTxn {
				return fmt.Errorf("record %d: metadata transaction begins inside another", count-1)
			}
			inTxn = true
			return nil
		case *EndTransactionRecord:
			if !inTxn {
				return fmt.Errorf("record %d: metadata transaction ends without beginning", count-1)
			}
			inTxn = false
			for _, p := range pending {
				if err := b.apply(p); err != nil {
					return fmt.Errorf("transaction ending at record %d: %w", count-1, err)
				}
			}
			pending = pending[:0]
			return nil
		case *AbortTransactionRecord:
			inTxn = false
			pending = pending[:0]
			return nil
		}
		if inTxn {
			pending = append(pending, rec)
			return nil
		}
		if err := b.apply(rec); err != nil {
			return fmt.Errorf("record %d: %w", count-1, err)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("metadata: loading __cluster_metadata: %w", err)
	}
	if mv := b.img.MetadataVersion(); mv > MaxMetadataVersion || mv != 0 && mv < MinMetadataVersion {
		// Kafka refuses to run at a metadata.version it does not know;
		// newer levels may carry records this package would misread.
		return nil, fmt.Errorf("metadata: the log is at metadata.version level %d, outside the levels %d (3.3-IV3) to %d (4.4-IV2) Karst supports", mv, MinMetadataVersion, MaxMetadataVersion)
	}
	s.cur.Store(b.img)
	if inTxn {
		reason := "Controller failover"
		if err := s.Commit([]Record{&AbortTransactionRecord{Reason: &reason}}); err != nil {
			return nil, err
		}
	}
	if count == 0 {
		if err := s.Commit(BootstrapRecords()); err != nil {
			return nil, err
		}
	}
	if recs := s.Image().ActivationRecords(opts.Node); len(recs) > 0 {
		if err := s.Commit(recs); err != nil {
			return nil, fmt.Errorf("metadata: taking over the log: %w", err)
		}
	}
	return s, nil
}

// Image returns the current image; it never changes once returned.
func (s *Store) Image() *Image { return s.cur.Load() }

// Node returns the node the operations act for.
func (s *Store) Node() Node { return s.opts.Node }

// Commit appends records to the log and swaps in the image they produce.
// Records that do not replay on the current image are refused before
// anything is written, so the log never holds what cannot be loaded.
func (s *Store) Commit(records []Record) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.commitLocked(records)
}

func (s *Store) commitLocked(records []Record) error {
	if len(records) == 0 {
		return nil
	}
	prev := s.cur.Load()
	next, err := replayWithTransactions(prev, records)
	if err != nil {
		return err
	}
	values := make([][]byte, len(records))
	for i, r := range records {
		values[i] = Encode(r)
	}
	if err := s.log.AppendRecords(values); err != nil {
		return fmt.Errorf("metadata: appending to __cluster_metadata: %w", err)
	}
	s.cur.Store(next)
	if s.opts.OnCommit != nil {
		s.opts.OnCommit(prev, next, records)
	}
	return nil
}

// replayWithTransactions replays records that are either plain or one
// complete metadata transaction (Begin first, End last, as
// BootstrapRecords); a lone abort marker is accepted for closing a
// transaction left open in the log.
func replayWithTransactions(img *Image, records []Record) (*Image, error) {
	var plain []Record
	markers := 0
	for _, r := range records {
		switch r.(type) {
		case *BeginTransactionRecord, *EndTransactionRecord, *AbortTransactionRecord:
			markers++
		default:
			plain = append(plain, r)
		}
	}
	_, begins := records[0].(*BeginTransactionRecord)
	_, ends := records[len(records)-1].(*EndTransactionRecord)
	_, abort := records[0].(*AbortTransactionRecord)
	switch {
	case markers == 0:
	case markers == 2 && begins && ends:
	case markers == 1 && abort && len(records) == 1:
	default:
		return nil, errors.New("metadata: commit must hold plain records or one complete transaction")
	}
	return img.Replay(plain...)
}

// The operations below validate against the current image and commit the
// result; see the Image methods of the same names for the rules.

// CreateTopic creates a topic and returns its id.
func (s *Store) CreateTopic(req CreateTopicRequest) (UUID, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	recs, id, err := s.cur.Load().CreateTopic(s.opts.Node, req)
	if err != nil {
		return UUID{}, err
	}
	return id, s.commitLocked(recs)
}

// DeleteTopic deletes a topic by name and returns its id.
func (s *Store) DeleteTopic(name string) (UUID, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	recs, id, err := s.cur.Load().DeleteTopic(name)
	if err != nil {
		return UUID{}, err
	}
	return id, s.commitLocked(recs)
}

// DeleteTopicByID deletes a topic by id and returns its name.
func (s *Store) DeleteTopicByID(id UUID) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	recs, name, err := s.cur.Load().DeleteTopicByID(id)
	if err != nil {
		return name, err
	}
	return name, s.commitLocked(recs)
}

// CreatePartitions grows a topic to count partitions.
func (s *Store) CreatePartitions(name string, count int32, assignments [][]int32) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	recs, err := s.cur.Load().CreatePartitions(s.opts.Node, name, count, assignments)
	if err != nil {
		return err
	}
	return s.commitLocked(recs)
}

// IncrementalAlterConfigs changes some configs of one resource.
func (s *Store) IncrementalAlterConfigs(res ConfigResource, ops []ConfigOp) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	recs, err := s.cur.Load().IncrementalAlterConfigs(s.opts.Node, res, ops)
	if err != nil {
		return err
	}
	return s.commitLocked(recs)
}

// AlterConfigs replaces all configs of one resource.
func (s *Store) AlterConfigs(res ConfigResource, configs map[string]string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	recs, err := s.cur.Load().AlterConfigs(s.opts.Node, res, configs)
	if err != nil {
		return err
	}
	return s.commitLocked(recs)
}

// AllocateProducerIDs reserves the next block of producer ids for a broker
// and returns its first id; the block holds ProducerIDBlockSize ids.
func (s *Store) AllocateProducerIDs(brokerID int32, brokerEpoch int64) (int64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	recs, first, err := s.cur.Load().AllocateProducerIDs(brokerID, brokerEpoch)
	if err != nil {
		return 0, err
	}
	return first, s.commitLocked(recs)
}

// OffsetLog is a RecordLog that knows its offsets, such as the
// __cluster_metadata-0 partition log.
type OffsetLog interface {
	// LastOffset is the offset of the last record (control records
	// included), -1 when the log is empty.
	LastOffset() int64
}

// LastOffset returns the metadata log offset of the newest record in the
// image: what Kafka reports as the finalized features epoch (its image's
// highest offset). It is -1 for a log that does not know its offsets.
func (s *Store) LastOffset() int64 {
	if l, ok := s.log.(OffsetLog); ok {
		return l.LastOffset()
	}
	return -1
}

// KRaftVersionLog is a RecordLog that knows the kraft.version of its raft
// quorum, which Kafka keeps in KRaftVersionRecord control records rather
// than in FeatureLevelRecords.
type KRaftVersionLog interface {
	KRaftVersion() int16
	// UpgradeKRaftVersion moves the quorum to a higher kraft.version as
	// Kafka's raft leader does: one control batch of a KRaftVersionRecord
	// and the VotersRecord of the voter set, durable before it returns.
	UpgradeKRaftVersion(level int16) error
}

// KRaftVersion returns the finalized kraft.version: 0 (a static quorum)
// unless the log says otherwise.
func (s *Store) KRaftVersion() int16 {
	if l, ok := s.log.(KRaftVersionLog); ok {
		return l.KRaftVersion()
	}
	return 0
}

// AlterClientQuotas applies quota alterations (or only validates them) and
// returns one result per entity; see Image.AlterClientQuotas.
func (s *Store) AlterClientQuotas(alterations []QuotaAlteration, validIP func(string) bool, validateOnly bool) ([]QuotaResult, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	recs, results := s.cur.Load().AlterClientQuotas(alterations, validIP)
	if validateOnly {
		return results, nil
	}
	return results, s.commitLocked(recs)
}

// AlterScramCredentials applies AlterUserScramCredentials' deletions and
// upsertions; see Image.AlterScramCredentials.
func (s *Store) AlterScramCredentials(deletions []ScramDeletion, upsertions []ScramUpsertion) ([]ScramAlterResult, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	recs, results := s.cur.Load().AlterScramCredentials(deletions, upsertions)
	return results, s.commitLocked(recs)
}

// CreateDelegationToken creates a token; see Image.CreateDelegationToken.
func (s *Store) CreateDelegationToken(settings DelegationTokenSettings, req CreateDelegationTokenRequest, now time.Time) (DelegationToken, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	recs, t, e := s.cur.Load().CreateDelegationToken(settings, req, now)
	if e != nil {
		return DelegationToken{}, e
	}
	return t, s.commitLocked(recs)
}

// RenewDelegationToken renews the token with HMAC mac and returns its new
// expiry; see Image.RenewDelegationToken.
func (s *Store) RenewDelegationToken(settings DelegationTokenSettings, mac []byte, renewer string, period time.Duration, now time.Time) (int64, error) {
	return s.changeDelegationToken((*Image).RenewDelegationToken, settings, mac, renewer, period, now)
}

// ExpireDelegationToken changes the expiry of the token with HMAC mac, or
// removes it; see Image.ExpireDelegationToken.
func (s *Store) ExpireDelegationToken(settings DelegationTokenSettings, mac []byte, renewer string, period time.Duration, now time.Time) (int64, error) {
	return s.changeDelegationToken((*Image).ExpireDelegationToken, settings, mac, renewer, period, now)
}

func (s *Store) changeDelegationToken(change func(*Image, DelegationTokenSettings, []byte, string, time.Duration, time.Time) ([]Record, int64, *Error),
	settings DelegationTokenSettings, mac []byte, renewer string, period time.Duration, now time.Time) (int64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	recs, expiry, e := change(s.cur.Load(), settings, mac, renewer, period, now)
	if e != nil {
		return 0, e
	}
	return expiry, s.commitLocked(recs)
}

// RemoveExpiredDelegationTokens removes every token expired at now and
// returns how many.
func (s *Store) RemoveExpiredDelegationTokens(now time.Time) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	recs := s.cur.Load().ExpiredDelegationTokens(now)
	return len(recs), s.commitLocked(recs)
}

// CreateACLs adds ACLs and returns one result per ACL (nil for success);
// see Image.CreateACLs.
func (s *Store) CreateACLs(acls []ACL) ([]*Error, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	recs, results := s.cur.Load().CreateACLs(acls)
	return results, s.commitLocked(recs)
}

// DeleteACLs removes the ACLs the filters select; see Image.DeleteACLs.
func (s *Store) DeleteACLs(filters []ACLFilter) ([]ACLDeletion, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	recs, results := s.cur.Load().DeleteACLs(filters)
	return results, s.commitLocked(recs)
}
