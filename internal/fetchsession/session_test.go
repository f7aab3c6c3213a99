package fetchsession

import "testing"

func TestSessionRemembersWhatWasSent(t *testing.T) {
	c := NewCache(10)
	s := c.New()
	k := Key{Topic: "t", Partition: 0}
	p := s.Upsert(Partition{Key: k, FetchOffset: 5, MaxBytes: 100})
	ans := Answer{HighWatermark: 10, LastStable: 10}
	if !p.Changed(ans) {
		t.Fatal("first answer must be sent")
	}
	if p.Changed(ans) {
		t.Fatal("an unchanged answer without records was sent again")
	}
	if !p.Changed(Answer{HighWatermark: 11, LastStable: 11}) {
		t.Fatal("a moved high watermark must be sent")
	}
	if !p.Changed(Answer{HighWatermark: 11, LastStable: 11, HasRecords: true}) {
		t.Fatal("records must be sent")
	}
	if !p.Changed(Answer{ErrorCode: 1, HighWatermark: 11, LastStable: 11}) {
		t.Fatal("errors must be sent")
	}
	s.Upsert(Partition{Key: k, FetchOffset: 7, MaxBytes: 200})
	if len(s.Partitions()) != 1 || s.Partitions()[0].FetchOffset != 7 {
		t.Fatalf("upsert did not update: %+v", s.Partitions())
	}
	s.Forget(k)
	if len(s.Partitions()) != 0 {
		t.Fatal("forget left the partition")
	}
}

func TestCacheEvictsLeastRecentlyUsed(t *testing.T) {
	c := NewCache(2)
	a, b := c.New(), c.New()
	c.Get(a.ID) // a is now the most recent
	c.New()
	if _, ok := c.Get(b.ID); ok {
		t.Fatal("least recently used session survived")
	}
	if _, ok := c.Get(a.ID); !ok {
		t.Fatal("recently used session evicted")
	}
	if NewCache(0).New() != nil {
		t.Fatal("a disabled cache created a session")
	}
}

func TestEpochWraps(t *testing.T) {
	s := &Session{Epoch: 1<<31 - 1}
	s.NextEpoch()
	if s.Epoch != 1 {
		t.Fatalf("epoch %d after MaxInt32", s.Epoch)
	}
}
