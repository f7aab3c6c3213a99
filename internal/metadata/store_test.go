package metadata

import (
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
)

// memLog is a RecordLog that keeps real RecordBatch v2 bytes, as
// __cluster_metadata-0 would: a LeaderChangeMessage control batch first,
// then one data batch per append.
type memLog struct {
	mu      sync.Mutex
	data    []byte
	next    int64
	epoch   int32
	failErr error
}

func newMemLog() *memLog {
	l := &memLog{epoch: 1}
	lc := &LeaderChangeMessage{LeaderID: 1, Voters: []Voter{{VoterID: 1}}, GrantingVoters: []Voter{{VoterID: 1}}}
	l.data = BuildControlBatch(0, l.epoch, 0, lc)
	l.next = 1
	return l
}

func (l *memLog) AppendRecords(values [][]byte) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.failErr != nil {
		return l.failErr
	}
	rs := make([]BatchRecord, len(values))
	for i, v := range values {
		rs[i] = BatchRecord{Value: v}
	}
	l.data = append(l.data, BuildBatch(BatchHeader{BaseOffset: l.next, LeaderEpoch: l.epoch, Timestamp: 1}, rs)...)
	l.next += int64(len(values))
	return nil
}

func (l *memLog) ReadAll(fn func([]byte) error) error {
	l.mu.Lock()
	data := l.data
	l.mu.Unlock()
	return ForEachMetadataRecord(data, fn)
}

func (l *memLog) appendRaw(recs ...Record) {
	vals := make([][]byte, len(recs))
	for i, r := range recs {
		vals[i] = Encode(r)
	}
	if err := l.AppendRecords(vals); err != nil {
		panic(err)
	}
}

func openStore(t *testing.T, l RecordLog) *Store {
	t.Helper()
	s, err := OpenStore(l, StoreOptions{Node: testNode})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestStoreBootstrapAndReopen(t *testing.T) {
	l := newMemLog()
	s := openStore(t, l)
	if s.Image().MetadataVersion() != MaxMetadataVersion || s.Image().FeatureLevel(FeatureGroupVersion) != 1 {
		t.Fatalf("bootstrap features %v", s.Image().Features())
	}
	id, err := s.CreateTopic(CreateTopicRequest{Name: "orders", NumPartitions: 2, ReplicationFactor: 1, Configs: map[string]*string{"retention.ms": strp("9")}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.CreateTopic(CreateTopicRequest{Name: "orders", NumPartitions: 2, ReplicationFactor: 1}); !errors.Is(err, kerr.TopicAlreadyExists) {
		t.Fatalf("duplicate create: %v", err)
	}
	if err := s.CreatePartitions("orders", 4, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := s.CreateTopic(CreateTopicRequest{Name: "tmp", NumPartitions: 1, ReplicationFactor: 1}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.DeleteTopic("tmp"); err != nil {
		t.Fatal(err)
	}
	if err := s.IncrementalAlterConfigs(ConfigResource{ConfigResourceBroker, ""}, []ConfigOp{{Key: "num.partitions", Op: ConfigSet, Value: strp("3")}}); err != nil {
		t.Fatal(err)
	}
	if err := s.AlterConfigs(ConfigResource{ConfigResourceTopic, "orders"}, map[string]string{"segment.ms": "1"}); err != nil {
		t.Fatal(err)
	}
	first, err := s.AllocateProducerIDs(1, SingleNodeBrokerEpoch)
	if err != nil || first != 0 {
		t.Fatalf("producer ids: %d %v", first, err)
	}

	// Reopening replays the same log to the same image.
	s2 := openStore(t, l)
	img := s2.Image()
	top := mustTopic(t, img, "orders")
	if top.ID != id || len(top.Partitions) != 4 {
		t.Fatalf("reopened topic %+v", top)
	}
	if _, ok := img.Topic("tmp"); ok {
		t.Fatal("deleted topic came back")
	}
	if c := img.TopicConfigs("orders"); len(c) != 1 || c["segment.ms"] != "1" {
		t.Fatalf("topic configs %v", c)
	}
	if img.BrokerConfigs("")["num.partitions"] != "3" || img.NextProducerID() != ProducerIDBlockSize || img.MetadataVersion() != MaxMetadataVersion || img.BrokerConfigs("")["min.insync.replicas"] != "1" {
		t.Fatal("reopened image lost state")
	}
	if first, _ := s2.AllocateProducerIDs(1, SingleNodeBrokerEpoch); first != ProducerIDBlockSize {
		t.Fatalf("producer id block reused: %d", first)
	}
	// Bootstrap is written once.
	n := 0
	_ = l.ReadAll(func(v []byte) error {
		if r, _ := Decode(v); r.APIKey() == KeyBeginTransaction {
			n++
		}
		return nil
	})
	if n != 1 {
		t.Fatalf("%d bootstrap transactions", n)
	}
}

func TestStoreTransactions(t *testing.T) {
	l := newMemLog()
	openStore(t, l) // bootstrap
	name := "x"
	// A committed transaction applies, an aborted one does not.
	l.appendRaw(&BeginTransactionRecord{Name: &name}, &TopicRecord{Name: "kept", TopicID: tid})
	l.appendRaw(partitionRec(tid, 0), &EndTransactionRecord{})
	l.appendRaw(&BeginTransactionRecord{}, &TopicRecord{Name: "dropped", TopicID: did}, &AbortTransactionRecord{})
	// An open transaction at the end is discarded and closed.
	l.appendRaw(&BeginTransactionRecord{}, &TopicRecord{Name: "open", TopicID: UUID{9}})
	s := openStore(t, l)
	img := s.Image()
	if top, ok := img.Topic("kept"); !ok || len(top.Partitions) != 1 {
		t.Fatal("committed transaction lost")
	}
	if _, ok := img.Topic("dropped"); ok {
		t.Fatal("aborted transaction applied")
	}
	if _, ok := img.Topic("open"); ok {
		t.Fatal("open transaction applied")
	}
	// After the abort marker the next load sees the same.
	if _, ok := openStore(t, l).Image().Topic("open"); ok {
		t.Fatal("open transaction applied on second load")
	}
}

func TestStoreRejectsBadLog(t *testing.T) {
	l := newMemLog()
	l.appendRaw(partitionRec(tid, 0)) // partition of an unknown topic
	if _, err := OpenStore(l, StoreOptions{Node: testNode}); err == nil {
		t.Fatal("inconsistent log loaded")
	}
	l2 := newMemLog()
	_ = l2.AppendRecords([][]byte{{0x01, 0x02}}) // truncated record
	if _, err := OpenStore(l2, StoreOptions{Node: testNode}); err == nil {
		t.Fatal("corrupt record loaded")
	}
}

func TestStoreAppendFailureKeepsImage(t *testing.T) {
	l := newMemLog()
	s := openStore(t, l)
	before := s.Image()
	l.failErr = errors.New("disk full")
	if _, err := s.CreateTopic(CreateTopicRequest{Name: "t", NumPartitions: 1, ReplicationFactor: 1}); err == nil || ErrorCode(err) != kerr.UnknownServerError.Code {
		t.Fatalf("create with failing log: %v", err)
	}
	if s.Image() != before {
		t.Fatal("image changed although the append failed")
	}
	l.failErr = nil
	if err := s.Commit([]Record{partitionRec(did, 0)}); err == nil {
		t.Fatal("commit of records that do not replay succeeded")
	}
	for _, recs := range [][]Record{
		{&BeginTransactionRecord{}, &NoOpRecord{}},
		{&NoOpRecord{}, &EndTransactionRecord{}},
		{&NoOpRecord{}, &AbortTransactionRecord{}},
	} {
		if err := s.Commit(recs); err == nil {
			t.Fatalf("commit of broken transaction %v succeeded", recs)
		}
	}
	if err := s.Commit([]Record{&BeginTransactionRecord{}, &NoOpRecord{}, &EndTransactionRecord{}}); err != nil {
		t.Fatal(err)
	}
}

func TestStoreOnCommit(t *testing.T) {
	var got []string
	s, err := OpenStore(newMemLog(), StoreOptions{Node: testNode, OnCommit: func(prev, next *Image, recs []Record) {
		got = append(got, fmt.Sprintf("%d->%d", prev.TopicCount(), next.TopicCount()))
	}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.CreateTopic(CreateTopicRequest{Name: "t", NumPartitions: 1, ReplicationFactor: 1}); err != nil {
		t.Fatal(err)
	}
	// Bootstrap, the node's registration, the topic.
	if fmt.Sprint(got) != "[0->0 0->0 0->1]" {
		t.Fatalf("commits %v", got)
	}
}

// TestStoreConcurrentReaders runs readers against writers; run with -race.
func TestStoreConcurrentReaders(t *testing.T) {
	s := openStore(t, newMemLog())
	deadline := time.Now().Add(20 * time.Second)
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for r := 0; r < 4; r++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				img := s.Image()
				for _, top := range img.Topics() {
					if tt, ok := img.TopicByID(top.ID); !ok || tt.Name != top.Name {
						t.Errorf("inconsistent image: %s", top.Name)
						return
					}
					_ = img.TopicConfigs(top.Name)["retention.ms"]
				}
			}
		}()
	}
	for i := 0; i < 200 && time.Now().Before(deadline); i++ {
		name := fmt.Sprintf("t%d", i)
		if _, err := s.CreateTopic(CreateTopicRequest{Name: name, NumPartitions: 1, ReplicationFactor: 1}); err != nil {
			t.Fatal(err)
		}
		if err := s.IncrementalAlterConfigs(ConfigResource{ConfigResourceTopic, name}, []ConfigOp{{Key: "retention.ms", Op: ConfigSet, Value: strp("1")}}); err != nil {
			t.Fatal(err)
		}
		if i%3 == 0 {
			if _, err := s.DeleteTopic(name); err != nil {
				t.Fatal(err)
			}
		}
	}
	close(stop)
	wg.Wait()
	if n := s.Image().TopicCount(); n != 133 {
		t.Fatalf("%d topics", n)
	}
}

func TestStoreRefusesNewerMetadataVersion(t *testing.T) {
	l := newMemLog()
	l.appendRaw(&FeatureLevelRecord{Name: FeatureMetadataVersion, FeatureLevel: MaxMetadataVersion + 1})
	if _, err := OpenStore(l, StoreOptions{Node: testNode}); err == nil {
		t.Fatal("opened a log at a newer metadata.version")
	}
}

func TestStoreUpdateFeaturesSurvivesReopen(t *testing.T) {
	l := newMemLog()
	s := openStore(t, l)
	if err := s.UpdateFeatures([]FeatureUpdate{{Name: FeatureTransaction, Level: 1, Type: SafeDowngrade}}, true); err != nil {
		t.Fatal(err)
	}
	if s.Image().FeatureLevel(FeatureTransaction) != 2 {
		t.Fatal("validate only changed the level")
	}
	if err := s.UpdateFeatures([]FeatureUpdate{{Name: FeatureTransaction, Level: 1, Type: SafeDowngrade}}, false); err != nil {
		t.Fatal(err)
	}
	if got := openStore(t, l).Image().FeatureLevel(FeatureTransaction); got != 1 {
		t.Fatalf("reopened at transaction.version %d, want 1", got)
	}
}

func TestStoreRefusesMetadataVersionBelow33IV3(t *testing.T) {
	l := newMemLog()
	l.appendRaw(&FeatureLevelRecord{Name: FeatureMetadataVersion, FeatureLevel: MinMetadataVersion - 1})
	if _, err := OpenStore(l, StoreOptions{Node: testNode}); err == nil {
		t.Fatal("opened a log at a metadata.version below 3.3-IV3")
	}
	l = newMemLog()
	l.appendRaw(&FeatureLevelRecord{Name: FeatureMetadataVersion, FeatureLevel: MaxMetadataVersion})
	if _, err := OpenStore(l, StoreOptions{Node: testNode}); err != nil {
		t.Fatalf("a log at 4.4-IV2: %v", err)
	}
}
