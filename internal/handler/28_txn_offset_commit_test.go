package handler

import (
	"testing"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/karst-broker/karst/internal/group"
	"github.com/karst-broker/karst/internal/txn"
)

func txnOffsetCommitReq(groupID string, pid int64, epoch int16, topic string, offsets ...int64) *kmsg.TxnOffsetCommitRequest {
	req := kmsg.NewPtrTxnOffsetCommitRequest()
	req.TransactionalID, req.Group, req.ProducerID, req.ProducerEpoch = "tx", groupID, pid, epoch
	t := kmsg.NewTxnOffsetCommitRequestTopic()
	t.Topic = topic
	for i, o := range offsets {
		p := kmsg.NewTxnOffsetCommitRequestTopicPartition()
		p.Partition, p.Offset, p.LeaderEpoch = int32(i), o, 4
		md := "md"
		p.Metadata = &md
		t.Partitions = append(t.Partitions, p)
	}
	req.Topics = []kmsg.TxnOffsetCommitRequestTopic{t}
	return req
}

func txnCommitCodes(resp *kmsg.TxnOffsetCommitResponse) []int16 {
	var out []int16
	for _, t := range resp.Topics {
		for _, p := range t.Partitions {
			out = append(out, p.ErrorCode)
		}
	}
	return out
}

// fetchT fetches t-0 and t-1 of a group at version v with
// require_stable; offsets and error codes per partition.
func (f *groupFixture) fetchT(groupID string, v int16, stable bool) ([]int64, []int16) {
	f.t.Helper()
	req := kmsg.NewPtrOffsetFetchRequest()
	req.RequireStable = stable
	var offsets []int64
	var codes []int16
	if v >= 8 {
		rg := kmsg.NewOffsetFetchRequestGroup()
		rg.Group = groupID
		rt := kmsg.NewOffsetFetchRequestGroupTopic()
		rt.Topic, rt.Partitions = "t", []int32{0, 1}
		rg.Topics = []kmsg.OffsetFetchRequestGroupTopic{rt}
		req.Groups = []kmsg.OffsetFetchRequestGroup{rg}
		resp := f.do(req, v).(*kmsg.OffsetFetchResponse)
		for _, p := range resp.Groups[0].Topics[0].Partitions {
			offsets, codes = append(offsets, p.Offset), append(codes, p.ErrorCode)
		}
		return offsets, codes
	}
	rt := kmsg.NewOffsetFetchRequestTopic()
	rt.Topic, rt.Partitions = "t", []int32{0, 1}
	req.Group, req.Topics = groupID, []kmsg.OffsetFetchRequestTopic{rt}
	resp := f.do(req, v).(*kmsg.OffsetFetchResponse)
	for _, p := range resp.Topics[0].Partitions {
		offsets, codes = append(offsets, p.Offset), append(codes, p.ErrorCode)
	}
	return offsets, codes
}

func TestTxnOffsetCommitEveryVersion(t *testing.T) {
	f := newGroupFixture(t)
	f.createTopic("t", 2, nil)
	for v := int16(0); v <= 5; v++ {
		g := "txn" + string(rune('0'+v))
		pid := int64(100 + v)
		c := txnCommitCodes(f.do(txnOffsetCommitReq(g, pid, 0, "t", 10, 20), v).(*kmsg.TxnOffsetCommitResponse))
		if len(c) != 2 || c[0] != 0 || c[1] != 0 {
			t.Fatalf("v%d: %v", v, c)
		}
		// Invisible until the transaction commits; unstable with
		// require_stable, in every OffsetFetch version that has it.
		for fv := int16(1); fv <= 9; fv++ {
			offsets, codes := f.fetchT(g, fv, fv >= 7)
			if offsets[0] != -1 || offsets[1] != -1 {
				t.Fatalf("v%d: fetch v%d sees pending offsets %v", v, fv, offsets)
			}
			want := int16(0)
			if fv >= 7 {
				want = kerr.UnstableOffsetCommit.Code
			}
			if codes[0] != want || codes[1] != want {
				t.Fatalf("v%d: fetch v%d codes %v", v, fv, codes)
			}
		}
		f.gc.CompleteTransaction(pid, 0, true)
		for fv := int16(1); fv <= 9; fv++ {
			offsets, codes := f.fetchT(g, fv, fv >= 7)
			if offsets[0] != 10 || offsets[1] != 20 || codes[0] != 0 || codes[1] != 0 {
				t.Fatalf("v%d: fetch v%d after commit %v %v", v, fv, offsets, codes)
			}
		}
	}
}

func TestTxnOffsetCommitErrors(t *testing.T) {
	f := newGroupFixture(t)
	f.createTopic("t", 1, nil)
	c := txnCommitCodes(f.do(txnOffsetCommitReq("g", 1, 0, "nope", 1), 5).(*kmsg.TxnOffsetCommitResponse))
	if c[0] != kerr.UnknownTopicOrPartition.Code {
		t.Fatalf("unknown topic: %v", c)
	}
	c = txnCommitCodes(f.do(txnOffsetCommitReq("g", 1, 0, "t", 1, 2), 5).(*kmsg.TxnOffsetCommitResponse))
	if c[0] != 0 || c[1] != kerr.UnknownTopicOrPartition.Code {
		t.Fatalf("unknown partition: %v", c)
	}
	c = txnCommitCodes(f.do(txnOffsetCommitReq("", 1, 0, "t", 1), 5).(*kmsg.TxnOffsetCommitResponse))
	if c[0] != kerr.InvalidGroupID.Code {
		t.Fatalf("empty group id: %v", c)
	}
	req := txnOffsetCommitReq("none", 1, 0, "t", 1)
	req.Generation, req.MemberID = 3, "m"
	c = txnCommitCodes(f.do(req, 5).(*kmsg.TxnOffsetCommitResponse))
	if c[0] != kerr.IllegalGeneration.Code {
		t.Fatalf("unknown group with a generation: %v", c)
	}

	member, gen := f.joinOne("live", 9)
	for _, tc := range []struct {
		member string
		gen    int32
		want   *kerr.Error
	}{
		{member, gen, nil},
		{member, gen + 1, kerr.IllegalGeneration},
		{"stranger", gen, kerr.UnknownMemberID},
	} {
		req := txnOffsetCommitReq("live", 2, 0, "t", 5)
		req.MemberID, req.Generation = tc.member, tc.gen
		c := txnCommitCodes(f.do(req, 3).(*kmsg.TxnOffsetCommitResponse))
		if c[0] != code(tc.want) {
			t.Fatalf("member %q generation %d: %v, want %v", tc.member, tc.gen, c, tc.want)
		}
		// Before v3 the member fields are not sent, and not checked.
		req.Version = 2
		if c := txnCommitCodes(f.do(req, 2).(*kmsg.TxnOffsetCommitResponse)); c[0] != 0 {
			t.Fatalf("v2: %v", c)
		}
	}
}

// With __consumer_offsets behind the coordinator, the log fences a
// producer epoch older than the last one written to the partition.
func TestTxnOffsetCommitFencedEpoch(t *testing.T) {
	f := newGroupFixture(t)
	f.createTopic("t", 1, nil)
	f.gc = group.New(group.DefaultConfig(), group.Options{Logger: f.b.logger, Store: group.NewOffsetsTopic(f.store, f.mgr, 1, 0)})
	f.b.opts.Groups = f.gc
	if c := txnCommitCodes(f.do(txnOffsetCommitReq("g", 7, 2, "t", 5), 5).(*kmsg.TxnOffsetCommitResponse)); c[0] != 0 {
		t.Fatalf("%v", c)
	}
	if c := txnCommitCodes(f.do(txnOffsetCommitReq("g", 7, 1, "t", 6), 5).(*kmsg.TxnOffsetCommitResponse)); c[0] != kerr.InvalidProducerEpoch.Code {
		t.Fatalf("older epoch: %v", c)
	}
	f.gc.CompleteTransaction(7, 2, true)
	if offsets, _ := f.fetchT("g", 9, true); offsets[0] != 5 {
		t.Fatalf("%v", offsets)
	}
}

// TestTxnOffsetCommitV6: topics by id (UNKNOWN_TOPIC_ID for an unknown
// one), and the group errors KIP-1319 adds, which v5 answers as
// ILLEGAL_GENERATION.
func TestTxnOffsetCommitV6(t *testing.T) {
	f := newGroupFixture(t)
	f.createTopic("t", 2, nil)
	tp, _ := f.store.Image().Topic("t")
	unknownID := [16]byte{0xbe, 0xef}
	req := txnOffsetCommitReq("byid", 300, 0, "", 10, 20)
	req.Topics[0].TopicID = tp.ID
	other := kmsg.NewTxnOffsetCommitRequestTopic()
	other.TopicID = unknownID
	other.Partitions = req.Topics[0].Partitions[:1]
	req.Topics = append(req.Topics, other)
	resp := f.do(req, 6).(*kmsg.TxnOffsetCommitResponse)
	checkCommitByID(t, "v6", txnCommitCodes(resp), [2][16]byte{resp.Topics[0].TopicID, resp.Topics[1].TopicID}, tp.ID, unknownID)
	f.gc.CompleteTransaction(300, 0, true)
	if offsets, _ := f.fetchT("byid", 9, false); offsets[0] != 10 || offsets[1] != 20 {
		t.Fatalf("offsets committed by id: %v", offsets)
	}

	if resp := consumerHeartbeat(f, "a", 0, nil); resp.ErrorCode != 0 || resp.MemberEpoch != 2 {
		t.Fatalf("join: %+v", resp)
	}
	for _, c := range []struct {
		group string
		v     int16
		want  int16
	}{
		{"missing", 5, kerr.IllegalGeneration.Code},
		{"missing", 6, kerr.GroupIDNotFound.Code},
		{"g", 5, kerr.IllegalGeneration.Code},
		{"g", 6, kerr.StaleMemberEpoch.Code},
	} {
		req := txnOffsetCommitReq(c.group, 301, 0, "t", 1)
		req.MemberID, req.Generation = "a", 7
		if c.v >= 6 {
			req.Topics[0].TopicID = tp.ID
		}
		if got := txnCommitCodes(f.do(req, c.v).(*kmsg.TxnOffsetCommitResponse)); got[0] != c.want {
			t.Errorf("group %s v%d with generation 7: %v, want %d", c.group, c.v, got, c.want)
		}
	}
}

// TestTxnOffsetCommitNeedsTheGroupInTheTransaction: before
// AddOffsetsToTxn has added the group's __consumer_offsets partition to
// the transaction, Kafka 4.4's verification refuses the commit,
// INVALID_TXN_STATE before v4 and TRANSACTION_ABORTABLE from v4, and
// writes nothing; once added, the same commit is taken.
func TestTxnOffsetCommitNeedsTheGroupInTheTransaction(t *testing.T) {
	f := newTxnFixture(t)
	f.createTopic("t", 2, nil)
	cfg := group.DefaultConfig()
	cfg.InitialRebalanceDelay = 0
	f.b.opts.Groups = group.New(cfg, group.Options{Logger: f.b.logger})
	gf := &groupFixture{adminFixture: f.adminFixture, gc: f.b.opts.Groups}
	f.setTransactionVersion(1) // v5 too verifies, as without KIP-890 part 2
	init := f.initTxn("tx", 4)
	pid, epoch := init.ProducerID, init.ProducerEpoch
	for v := int16(0); v <= 5; v++ {
		g := "g" + string(rune('0'+v))
		want := kerr.TransactionAbortable.Code
		if v < 4 {
			want = kerr.InvalidTxnState.Code
		}
		c := txnCommitCodes(f.do(txnOffsetCommitReq(g, pid, epoch, "t", 10, 20), v).(*kmsg.TxnOffsetCommitResponse))
		if len(c) != 2 || c[0] != want || c[1] != want {
			t.Fatalf("v%d without AddOffsetsToTxn: %v, want %d", v, c, want)
		}
		if _, codes := gf.fetchT(g, 7, true); codes[0] != 0 || codes[1] != 0 {
			t.Fatalf("v%d: a refused commit left pending offsets: %v", v, codes)
		}
		add := kmsg.NewPtrAddOffsetsToTxnRequest()
		add.TransactionalID, add.ProducerID, add.ProducerEpoch, add.Group = "tx", pid, epoch, g
		if resp := f.do(add, 3).(*kmsg.AddOffsetsToTxnResponse); resp.ErrorCode != 0 {
			t.Fatalf("AddOffsetsToTxn: %+v", resp)
		}
		c = txnCommitCodes(f.do(txnOffsetCommitReq(g, pid, epoch, "t", 10, 20), v).(*kmsg.TxnOffsetCommitResponse))
		if len(c) != 2 || c[0] != 0 || c[1] != 0 {
			t.Fatalf("v%d after AddOffsetsToTxn: %v", v, c)
		}
		if resp := f.endTxn("tx", pid, epoch, false, 3); resp.ErrorCode != 0 {
			t.Fatalf("EndTxn: %+v", resp)
		}
		f.waitState("tx", txn.CompleteAbort)
	}
	c := txnCommitCodes(f.do(txnOffsetCommitReq("g0", pid+1, epoch, "t", 1), 3).(*kmsg.TxnOffsetCommitResponse))
	if c[0] != kerr.InvalidProducerIDMapping.Code {
		t.Fatalf("another producer id: %v", c)
	}
	c = txnCommitCodes(f.do(txnOffsetCommitReq("g0", pid, epoch+1, "t", 1), 3).(*kmsg.TxnOffsetCommitResponse))
	if c[0] != kerr.InvalidProducerEpoch.Code {
		t.Fatalf("another epoch: %v", c)
	}
	// Transaction version 2: a v5 commit adds the partition itself.
	f.setTransactionVersion(2)
	c = txnCommitCodes(f.do(txnOffsetCommitReq("g9", pid, epoch, "t", 1), 5).(*kmsg.TxnOffsetCommitResponse))
	if c[0] != 0 {
		t.Fatalf("v5 under transaction version 2: %v", c)
	}
}
