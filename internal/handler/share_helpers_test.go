package handler

import (
	"github.com/twmb/franz-go/pkg/kerr"

	"fmt"
	"testing"

	klog "github.com/karst-broker/karst/internal/log"
	"github.com/karst-broker/karst/internal/record"
)

// TestFetchedBatches: a read's whole batches, control batches and (for
// read_committed) aborted data not deliverable, and a cut tail left out.
func TestFetchedBatches(t *testing.T) {
	build := func(base int64, n int, attrs int16, pid int64) []byte {
		recs := make([]record.Record, n)
		for i := range recs {
			recs[i].Value = []byte("v")
		}
		b, err := record.Build(nil, record.BatchHeader{BaseOffset: base, Attributes: attrs, ProducerID: pid, ProducerEpoch: 0}, recs)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	var data []byte
	data = append(data, build(0, 2, 0, -1)...)                   // 0-1
	data = append(data, build(2, 2, batchAttrTransaction, 7)...) // 2-3, aborted
	data = append(data, build(4, 1, batchAttrTransaction|batchAttrControl, 7)...)
	data = append(data, build(5, 3, batchAttrTransaction, 8)...) // 5-7, committed
	whole := len(data)
	data = append(data, build(8, 2, 0, -1)[:30]...) // cut by maxBytes
	aborted := []klog.AbortedTxn{{ProducerID: 7, FirstOffset: 2, LastOffset: 4}}

	for _, tc := range []struct {
		committed bool
		want      string
	}{
		{false, "[{0 1 true} {2 3 true} {4 4 false} {5 7 true}]"},
		{true, "[{0 1 true} {2 3 false} {4 4 false} {5 7 true}]"},
	} {
		got, n := fetchedBatches(data, tc.committed, aborted)
		if fmt.Sprint(got) != tc.want || n != whole {
			t.Errorf("read_committed=%v: %v, %d bytes; want %s, %d", tc.committed, got, n, tc.want, whole)
		}
	}
}

func TestShareByDuration(t *testing.T) {
	for _, tc := range []struct {
		in string
		ok bool
	}{
		{"by_duration:PT1H", true}, {"by_duration:P1DT2H3M4.5S", true}, {"by_duration:P2D", true},
		{"by_duration:1H", false}, {"by_duration:PT-1H", false}, {"by_duration", false},
	} {
		if ok := byDuration.MatchString(tc.in); ok != tc.ok {
			t.Errorf("%q: matched %v", tc.in, ok)
		}
	}
}

// TestShareCurrentLeader: Kafka 4.4 names the current leader in a share
// answer only for NOT_LEADER_OR_FOLLOWER and FENCED_LEADER_EPOCH, leaving
// the schema's (0, 0) otherwise.
func TestShareCurrentLeader(t *testing.T) {
	f := newGroupFixture(t)
	f.createTopic("cl", 1, nil)
	img := f.store.Image()
	tp, _ := img.Topic("cl")
	id := [16]byte(tp.ID)
	if l, e := shareCurrentLeader(img, id, 0, 0); l != 0 || e != 0 {
		t.Fatalf("no error: %d/%d", l, e)
	}
	want := tp.Partitions[0]
	for _, code := range []int16{kerr.NotLeaderForPartition.Code, kerr.FencedLeaderEpoch.Code} {
		if l, e := shareCurrentLeader(img, id, 0, code); l != want.Leader || e != want.LeaderEpoch {
			t.Fatalf("error %d: %d/%d, want %d/%d", code, l, e, want.Leader, want.LeaderEpoch)
		}
	}
	if l, e := shareCurrentLeader(img, [16]byte{1}, 0, kerr.FencedLeaderEpoch.Code); l != -1 || e != -1 {
		t.Fatalf("unknown topic: %d/%d", l, e)
	}
}
