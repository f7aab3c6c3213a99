package handler

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/karst-broker/karst/internal/config"
	"github.com/karst-broker/karst/internal/metadata"
	"github.com/karst-broker/karst/internal/record"
	"github.com/karst-broker/karst/internal/txn"
)

// txnFixture is a broker with a transaction coordinator over real logs.
type txnFixture struct {
	*adminFixture
	tc *txn.Coordinator
}

func newTxnFixture(t *testing.T) *txnFixture {
	f := newAdminFixture(t, nil)
	cfg := txn.DefaultConfig()
	cfg.StatePartitions = 3
	var next int64
	tc := txn.New(cfg, txn.Options{
		Logs:    txn.NewStateLogs(f.store, f.mgr, stateLogConfigs(f.t, cfg.StatePartitions)),
		Markers: txn.NewLogMarkers(f.store, f.mgr),
		ProducerIDs: txn.NewProducerIDs(func() (int64, error) {
			next += txn.ProducerIDBlockSize
			return next, nil
		}),
		Logger: f.b.logger,
	})
	f.b.opts.Txns = tc
	f.b.opts.ProducerIDs = txn.NewProducerIDs(func() (int64, error) { return 1 << 40, nil })
	return &txnFixture{adminFixture: f, tc: tc}
}

// stateLogConfigs are the log configurations of a broker whose
// __transaction_state has the given partition count.
func stateLogConfigs(t *testing.T, partitions int32) *config.LogConfigs {
	t.Helper()
	settings, _, err := config.FromProperties(map[string]string{"node.id": "1",
		"transaction.state.log.num.partitions": strconv.Itoa(int(partitions))})
	if err != nil {
		t.Fatal(err)
	}
	return config.NewLogConfigs(settings)
}

// do runs a request, waiting for an answer that waits for the disk.
func (f *txnFixture) do(req kmsg.Request, v int16) kmsg.Response {
	f.t.Helper()
	req.SetVersion(v)
	api := Lookup(req.Key())
	if api == nil || !api.Supports(v) {
		f.t.Fatalf("%s v%d is not served", kmsg.NameForKey(req.Key()), v)
	}
	out := f.b.Handle(context.Background(), api, &Request{Header: wireHeader(req.Key(), v), Body: req, Conn: &Conn{ListenerName: "PLAINTEXT"}})
	if out.Later == nil {
		return out.Response
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return out.Later(ctx)
}

func (f *txnFixture) initTxn(id string, v int16) *kmsg.InitProducerIDResponse {
	req := kmsg.NewPtrInitProducerIDRequest()
	req.TransactionalID, req.TransactionTimeoutMillis = &id, 60000
	return f.do(req, v).(*kmsg.InitProducerIDResponse)
}

func (f *txnFixture) addPartitions(id string, pid int64, epoch int16, v int16, topic string, parts ...int32) []int16 {
	req := kmsg.NewPtrAddPartitionsToTxnRequest()
	rt := kmsg.NewAddPartitionsToTxnRequestTopic()
	rt.Topic, rt.Partitions = topic, parts
	req.TransactionalID, req.ProducerID, req.ProducerEpoch = id, pid, epoch
	req.Topics = []kmsg.AddPartitionsToTxnRequestTopic{rt}
	resp := f.do(req, v).(*kmsg.AddPartitionsToTxnResponse)
	var codes []int16
	for _, t := range resp.Topics {
		for _, p := range t.Partitions {
			codes = append(codes, p.ErrorCode)
		}
	}
	return codes
}

func (f *txnFixture) endTxn(id string, pid int64, epoch int16, commit bool, v int16) *kmsg.EndTxnResponse {
	req := kmsg.NewPtrEndTxnRequest()
	req.TransactionalID, req.ProducerID, req.ProducerEpoch, req.Commit = id, pid, epoch, commit
	return f.do(req, v).(*kmsg.EndTxnResponse)
}

// waitState waits until the coordinator reports the state.
func (f *txnFixture) waitState(id string, want txn.State) txn.Description {
	f.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		d, err := f.tc.Describe(id)
		if err == nil && d.State == want {
			return d
		}
		if time.Now().After(deadline) {
			f.t.Fatalf("%s: %+v %v, want %v", id, d, err, want)
		}
		time.Sleep(time.Millisecond)
	}
}

func TestFindTransactionCoordinatorCreatesTheStateTopic(t *testing.T) {
	f := newTxnFixture(t)
	for v := int16(1); v <= 6; v++ {
		req := kmsg.NewPtrFindCoordinatorRequest()
		req.CoordinatorType = 1
		if v < 4 {
			req.CoordinatorKey = "tx"
			resp := f.do(req, v).(*kmsg.FindCoordinatorResponse)
			if resp.ErrorCode != 0 || resp.NodeID != 1 || resp.Port != 9092 {
				t.Fatalf("v%d: %+v", v, resp)
			}
			continue
		}
		req.CoordinatorKeys = []string{"tx", "ty"}
		resp := f.do(req, v).(*kmsg.FindCoordinatorResponse)
		if len(resp.Coordinators) != 2 || resp.Coordinators[1].ErrorCode != 0 || resp.Coordinators[1].NodeID != 1 {
			t.Fatalf("v%d: %+v", v, resp)
		}
	}
	topic, ok := f.store.Image().Topic(metadata.TransactionStateTopic)
	if !ok || len(topic.Partitions) != 3 {
		t.Fatalf("__transaction_state: %+v", topic)
	}
	if c := f.store.Image().TopicConfigs(metadata.TransactionStateTopic)["cleanup.policy"]; c != "compact" {
		t.Fatalf("cleanup.policy %q", c)
	}
}

func TestInitProducerIDTransactionalEveryVersion(t *testing.T) {
	f := newTxnFixture(t)
	for v := int16(0); v <= 5; v++ {
		resp := f.initTxn("tx", v)
		if resp.ErrorCode != 0 || resp.ProducerID != 1000 || resp.ProducerEpoch != v {
			t.Fatalf("v%d: %+v", v, resp)
		}
	}
	// KIP-360: an old epoch is fenced; v3 still says INVALID_PRODUCER_EPOCH.
	for v, want := range map[int16]int16{3: kerr.InvalidProducerEpoch.Code, 4: kerr.ProducerFenced.Code} {
		req := kmsg.NewPtrInitProducerIDRequest()
		id := "tx"
		req.TransactionalID, req.TransactionTimeoutMillis, req.ProducerID, req.ProducerEpoch = &id, 1000, 1000, 1
		if resp := f.do(req, v).(*kmsg.InitProducerIDResponse); resp.ErrorCode != want || resp.ProducerID != -1 {
			t.Fatalf("v%d stale epoch: %+v", v, resp)
		}
	}
	req := kmsg.NewPtrInitProducerIDRequest()
	id := "tx"
	req.TransactionalID, req.TransactionTimeoutMillis = &id, 900001
	if resp := f.do(req, 4).(*kmsg.InitProducerIDResponse); resp.ErrorCode != kerr.InvalidTransactionTimeout.Code {
		t.Fatalf("timeout over the maximum: %+v", resp)
	}
	// Idempotent producers are unchanged.
	req = kmsg.NewPtrInitProducerIDRequest()
	if resp := f.do(req, 4).(*kmsg.InitProducerIDResponse); resp.ErrorCode != 0 || resp.ProducerID != 1<<40 {
		t.Fatalf("idempotent: %+v", resp)
	}
}

func TestTransactionEveryVersion(t *testing.T) {
	f := newTxnFixture(t)
	f.createTopic("t", 2, nil)
	init := f.initTxn("tx", 4)
	pid, epoch := init.ProducerID, init.ProducerEpoch
	for v := int16(0); v <= 5; v++ {
		commit := v%2 == 0
		var codes []int16
		if v < 4 {
			codes = f.addPartitions("tx", pid, epoch, v, "t", 0, 1)
		} else {
			req := kmsg.NewPtrAddPartitionsToTxnRequest()
			rx := kmsg.NewAddPartitionsToTxnRequestTransaction()
			rx.TransactionalID, rx.ProducerID, rx.ProducerEpoch = "tx", pid, epoch
			rt := kmsg.NewAddPartitionsToTxnRequestTransactionTopic()
			rt.Topic, rt.Partitions = "t", []int32{0, 1}
			rx.Topics = []kmsg.AddPartitionsToTxnRequestTransactionTopic{rt}
			req.Transactions = []kmsg.AddPartitionsToTxnRequestTransaction{rx}
			resp := f.do(req, v).(*kmsg.AddPartitionsToTxnResponse)
			for _, p := range resp.Transactions[0].Topics[0].Partitions {
				codes = append(codes, p.ErrorCode)
			}
		}
		if len(codes) != 2 || codes[0] != 0 || codes[1] != 0 {
			t.Fatalf("AddPartitionsToTxn v%d: %v", v, codes)
		}
		if v <= 4 {
			req := kmsg.NewPtrAddOffsetsToTxnRequest()
			req.TransactionalID, req.ProducerID, req.ProducerEpoch, req.Group = "tx", pid, epoch, "g"
			if resp := f.do(req, v).(*kmsg.AddOffsetsToTxnResponse); resp.ErrorCode != 0 {
				t.Fatalf("AddOffsetsToTxn v%d: %+v", v, resp)
			}
		}
		d := f.waitState("tx", txn.Ongoing)
		if n := len(d.Partitions); n != 2 && !(v <= 4 && n == 3) {
			t.Fatalf("v%d: %+v", v, d)
		}
		end0 := f.log("t", 0).HighWatermark()
		resp := f.endTxn("tx", pid, epoch, commit, v)
		if resp.ErrorCode != 0 {
			t.Fatalf("EndTxn v%d: %+v", v, resp)
		}
		markerEpoch := epoch
		if v >= 5 {
			// Transaction version 2: the commit or abort bumps the epoch.
			markerEpoch++
			if resp.ProducerID != pid || resp.ProducerEpoch != markerEpoch {
				t.Fatalf("EndTxn v%d: %+v", v, resp)
			}
		}
		want := txn.CompleteAbort
		if commit {
			want = txn.CompleteCommit
		}
		f.waitState("tx", want)
		if got := f.log("t", 0).HighWatermark(); got != end0+1 {
			t.Fatalf("v%d: no marker in t-0: %d -> %d", v, end0, got)
		}
	}
	// The markers are Kafka's control batches.
	data, _, err := f.log("t", 1).ReadBytes(nil, 0, 1<<20, true)
	if err != nil {
		t.Fatal(err)
	}
	s := record.NewSplitter(data, 0)
	for i := 0; ; i++ {
		b, err := s.Next()
		if err != nil || b == nil {
			if i != 6 {
				t.Fatalf("%d markers, %v", i, err)
			}
			break
		}
		m, err := record.ParseMarker(b)
		wantEpoch := epoch
		if i == 5 {
			wantEpoch++ // written by EndTxn v5
		}
		if err != nil || m.ProducerID != pid || m.ProducerEpoch != wantEpoch || (m.Type == record.ControlCommit) != (i%2 == 0) {
			t.Fatalf("marker %d: %+v %v", i, m, err)
		}
	}
}

func TestTransactionRefusals(t *testing.T) {
	f := newTxnFixture(t)
	f.createTopic("t", 1, nil)
	init := f.initTxn("tx", 4)
	pid, epoch := init.ProducerID, init.ProducerEpoch
	if c := f.addPartitions("tx", pid, epoch, 3, "t", 0, 5); c[0] != kerr.OperationNotAttempted.Code || c[1] != kerr.UnknownTopicOrPartition.Code {
		t.Fatalf("unknown partition: %v", c)
	}
	if c := f.addPartitions("tx", pid, epoch, 3, "nope", 0); c[0] != kerr.UnknownTopicOrPartition.Code {
		t.Fatalf("unknown topic: %v", c)
	}
	if c := f.addPartitions("tx", pid, epoch+1, 1, "t", 0); c[0] != kerr.InvalidProducerEpoch.Code {
		t.Fatalf("v1 fenced: %v", c)
	}
	if c := f.addPartitions("tx", pid, epoch+1, 2, "t", 0); c[0] != kerr.ProducerFenced.Code {
		t.Fatalf("v2 fenced: %v", c)
	}
	if c := f.addPartitions("other", pid, epoch, 3, "t", 0); c[0] != kerr.InvalidProducerIDMapping.Code {
		t.Fatalf("unknown transactional id: %v", c)
	}
	if resp := f.endTxn("tx", pid, epoch, true, 3); resp.ErrorCode != kerr.InvalidTxnState.Code {
		t.Fatalf("EndTxn without a transaction: %+v", resp)
	}
	if resp := f.endTxn("tx", pid, epoch+1, true, 1); resp.ErrorCode != kerr.InvalidProducerEpoch.Code {
		t.Fatalf("EndTxn v1 fenced: %+v", resp)
	}
	// verify_only answers per partition.
	f.addPartitions("tx", pid, epoch, 3, "t", 0)
	f.createTopic("u", 1, nil)
	req := kmsg.NewPtrAddPartitionsToTxnRequest()
	rx := kmsg.NewAddPartitionsToTxnRequestTransaction()
	rx.TransactionalID, rx.ProducerID, rx.ProducerEpoch, rx.VerifyOnly = "tx", pid, epoch, true
	for _, name := range []string{"t", "u"} {
		rt := kmsg.NewAddPartitionsToTxnRequestTransactionTopic()
		rt.Topic, rt.Partitions = name, []int32{0}
		rx.Topics = append(rx.Topics, rt)
	}
	req.Transactions = []kmsg.AddPartitionsToTxnRequestTransaction{rx}
	resp := f.do(req, 5).(*kmsg.AddPartitionsToTxnResponse)
	if tps := resp.Transactions[0].Topics; tps[0].Partitions[0].ErrorCode != 0 || tps[1].Partitions[0].ErrorCode != kerr.TransactionAbortable.Code {
		t.Fatalf("verify only: %+v", resp)
	}
	if d, _ := f.tc.Describe("tx"); len(d.Partitions) != 1 {
		t.Fatalf("verify_only added a partition: %+v", d)
	}
}

func TestDescribeAndListTransactions(t *testing.T) {
	f := newTxnFixture(t)
	f.createTopic("t", 2, nil)
	a := f.initTxn("a", 4)
	f.initTxn("b", 4)
	f.addPartitions("a", a.ProducerID, a.ProducerEpoch, 3, "t", 1, 0)
	req := kmsg.NewPtrDescribeTransactionsRequest()
	req.TransactionalIDs = []string{"a", "zz", ""}
	resp := f.do(req, 0).(*kmsg.DescribeTransactionsResponse)
	sa, sz, empty := resp.TransactionStates[0], resp.TransactionStates[1], resp.TransactionStates[2]
	if sa.ErrorCode != 0 || sa.State != "Ongoing" || sa.ProducerID != a.ProducerID || sa.TimeoutMillis != 60000 ||
		sa.StartTimestamp <= 0 || len(sa.Topics) != 1 || len(sa.Topics[0].Partitions) != 2 {
		t.Fatalf("describe a: %+v", sa)
	}
	// Kafka answers an unknown id with every other field at 0.
	if sz.ErrorCode != kerr.TransactionalIDNotFound.Code || sz.ProducerID != 0 || sz.ProducerEpoch != 0 || sz.StartTimestamp != 0 || sz.TimeoutMillis != 0 {
		t.Fatalf("describe zz: %+v", sz)
	}
	if empty.ErrorCode != kerr.InvalidRequest.Code {
		t.Fatalf("describe of an empty id: %+v", empty)
	}
	list := func(v int16, states []string, pids []int64, duration int64, pattern *string) *kmsg.ListTransactionsResponse {
		req := kmsg.NewPtrListTransactionsRequest()
		req.StateFilters, req.ProducerIDFilters, req.DurationFilterMillis, req.TransactionalIDPattern = states, pids, duration, pattern
		return f.do(req, v).(*kmsg.ListTransactionsResponse)
	}
	names := func(r *kmsg.ListTransactionsResponse) []string {
		var out []string
		for _, s := range r.TransactionStates {
			out = append(out, s.TransactionalID+":"+s.TransactionState)
		}
		return out
	}
	if got := names(list(0, nil, nil, -1, nil)); len(got) != 2 || got[0] != "a:Ongoing" || got[1] != "b:Empty" {
		t.Fatalf("list: %v", got)
	}
	r := list(0, []string{"Empty", "Bogus"}, nil, -1, nil)
	if got := names(r); len(got) != 1 || got[0] != "b:Empty" || len(r.UnknownStateFilters) != 1 {
		t.Fatalf("by state: %v %v", got, r.UnknownStateFilters)
	}
	if got := names(list(0, nil, []int64{a.ProducerID}, -1, nil)); len(got) != 1 || got[0] != "a:Ongoing" {
		t.Fatalf("by producer: %v", got)
	}
	if got := names(list(1, []string{"Ongoing"}, nil, 3_600_000, nil)); len(got) != 0 {
		t.Fatalf("running over an hour: %v", got)
	}
	pattern := "a.*"
	if got := names(list(2, nil, nil, -1, &pattern)); len(got) != 1 || got[0] != "a:Ongoing" {
		t.Fatalf("by pattern: %v", got)
	}
	bad := "("
	if r := list(2, nil, nil, -1, &bad); r.ErrorCode != kerr.InvalidRegularExpression.Code {
		t.Fatalf("bad pattern: %+v", r)
	}
}

// txnBatch is a transactional batch of one record.
func txnBatch(t *testing.T, pid int64, epoch int16, seq int32) []byte {
	t.Helper()
	b, err := record.Build(nil, record.BatchHeader{Attributes: record.TransactionalBit, BaseTimestamp: time.Now().UnixMilli(),
		ProducerID: pid, ProducerEpoch: epoch, BaseSequence: seq}, []record.Record{{Value: []byte("v")}})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestProduceVerifiesTheTransaction(t *testing.T) {
	f := newTxnFixture(t)
	f.createTopic("t", 2, nil)
	init := f.initTxn("tx", 4)
	pid, epoch := init.ProducerID, init.ProducerEpoch
	id := "tx"
	produce := func(partition int32, batch []byte) int16 {
		return f.do(newProduceRequest("t", partition, -1, &id, batch), 9).(*kmsg.ProduceResponse).Topics[0].Partitions[0].ErrorCode
	}
	if c := produce(0, txnBatch(t, pid, epoch, 0)); c != kerr.InvalidTxnState.Code {
		t.Fatalf("before AddPartitionsToTxn: %d", c)
	}
	f.addPartitions("tx", pid, epoch, 3, "t", 0)
	if c := produce(0, txnBatch(t, pid, epoch, 0)); c != 0 {
		t.Fatalf("in the transaction: %d", c)
	}
	if c := produce(1, txnBatch(t, pid, epoch, 0)); c != kerr.InvalidTxnState.Code {
		t.Fatalf("partition outside the transaction: %d", c)
	}
	if c := produce(0, txnBatch(t, pid, epoch-1, 0)); c != kerr.InvalidProducerEpoch.Code {
		t.Fatalf("old epoch: %d", c)
	}
	f.endTxn("tx", pid, epoch, true, 3)
	f.waitState("tx", txn.CompleteCommit)
	if c := produce(0, txnBatch(t, pid, epoch, 1)); c != kerr.InvalidTxnState.Code {
		t.Fatalf("after the commit: %d", c)
	}
	if hw := f.log("t", 0).HighWatermark(); hw != 2 {
		t.Fatalf("t-0 holds %d batches, want the record and its marker", hw)
	}
}

// setTransactionVersion finalizes transaction.version at level in the
// fixture's metadata, as `kafka-features downgrade` would (Karst bootstraps
// 2, as Kafka 4.4 does; 0 is a pre-KIP-890 cluster).
func (f *txnFixture) setTransactionVersion(level int16) {
	f.t.Helper()
	u := metadata.FeatureUpdate{Name: metadata.FeatureTransaction, Level: level, Type: metadata.SafeDowngrade}
	if level >= f.store.Image().FeatureLevel(metadata.FeatureTransaction) {
		u.Type = metadata.UpgradeOnly
	}
	if err := f.store.UpdateFeatures([]metadata.FeatureUpdate{u}, false); err != nil {
		f.t.Fatal(err)
	}
}

func TestProduceV12WithoutTransactionVersion2NeedsAddPartitions(t *testing.T) {
	f := newTxnFixture(t)
	f.setTransactionVersion(0)
	f.createTopic("t", 1, nil)
	init := f.initTxn("tx", 5)
	id := "tx"
	req := newProduceRequest("t", 0, -1, &id, txnBatch(t, init.ProducerID, init.ProducerEpoch, 0))
	if c := f.do(req, 12).(*kmsg.ProduceResponse).Topics[0].Partitions[0].ErrorCode; c != kerr.TransactionAbortable.Code {
		t.Fatalf("v12 write without AddPartitionsToTxn: %d, want TRANSACTION_ABORTABLE", c)
	}
}

// TestProduceAnswersTransactionAbortableFromV11: a transactional batch to
// a partition not in the producer's transaction is TRANSACTION_ABORTABLE
// from Produce v11 (KIP-890), as Kafka's AddPartitionsToTxnManager passes
// the coordinator's answer on, and INVALID_TXN_STATE before, for the
// clients that do not know the code; nothing is written either way.
func TestProduceAnswersTransactionAbortableFromV11(t *testing.T) {
	f := newTxnFixture(t)
	f.createTopic("t", 1, nil)
	init := f.initTxn("tx", 4)
	id := "tx"
	for _, c := range []struct {
		version int16
		want    *kerr.Error
	}{{10, kerr.InvalidTxnState}, {11, kerr.TransactionAbortable}} {
		req := newProduceRequest("t", 0, -1, &id, txnBatch(t, init.ProducerID, init.ProducerEpoch, 0))
		if got := f.do(req, c.version).(*kmsg.ProduceResponse).Topics[0].Partitions[0].ErrorCode; got != c.want.Code {
			t.Fatalf("v%d write to a partition not in the transaction: %d, want %s", c.version, got, c.want)
		}
	}
	if leo := f.log("t", 0).LogEndOffset(); leo != 0 {
		t.Fatalf("%d records written without verification", leo)
	}
}

func TestProduceV12AddsThePartition(t *testing.T) {
	f := newTxnFixture(t)
	f.setTransactionVersion(2)
	f.createTopic("t", 2, nil)
	init := f.initTxn("tx", 5)
	pid, epoch := init.ProducerID, init.ProducerEpoch
	id := "tx"
	produce := func(partition int32, batch []byte) int16 {
		return f.do(newProduceRequest("t", partition, -1, &id, batch), 12).(*kmsg.ProduceResponse).Topics[0].Partitions[0].ErrorCode
	}
	if c := produce(0, txnBatch(t, pid, epoch, 0)); c != 0 {
		t.Fatalf("v12 write: %d", c)
	}
	if c := produce(1, txnBatch(t, pid, epoch, 0)); c != 0 {
		t.Fatalf("v12 write: %d", c)
	}
	if d := f.waitState("tx", txn.Ongoing); len(d.Partitions) != 2 {
		t.Fatalf("partitions: %+v", d)
	}
	resp := f.endTxn("tx", pid, epoch, true, 5)
	if resp.ErrorCode != 0 || resp.ProducerEpoch != epoch+1 {
		t.Fatalf("EndTxn v5: %+v", resp)
	}
	f.waitState("tx", txn.CompleteCommit)
	// A late write of the committed transaction is fenced.
	if c := produce(0, txnBatch(t, pid, epoch, 1)); c != kerr.InvalidProducerEpoch.Code {
		t.Fatalf("late write: %d", c)
	}
	if c := produce(0, txnBatch(t, pid, epoch+1, 0)); c != 0 {
		t.Fatalf("next transaction: %d", c)
	}
	f.waitState("tx", txn.Ongoing)
}
