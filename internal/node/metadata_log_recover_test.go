package node

import (
	"bytes"
	"strconv"
	"testing"
	"time"

	klog "github.com/karst-broker/karst/internal/log"
	"github.com/karst-broker/karst/internal/metadata"
	"github.com/karst-broker/karst/internal/record/recordtest"
)

// TestMetadataLogRecoversAtChunkBoundaries: a metadata batch that starts
// in the last bytes of a chunk segment recovery reads survives an unclean
// start with every record after it (a topic whose creation was
// acknowledged must not disappear).
func TestMetadataLogRecoversAtChunkBoundaries(t *testing.T) {
	for delta := -32; delta <= 32; delta++ {
		t.Run("start "+strconv.Itoa(delta), func(t *testing.T) {
			_, path := newLogDir(t)
			m := openMetadataLog(t, path)
			appendValue := func(v []byte) {
				t.Helper()
				if err := m.AppendRecords([][]byte{v}); err != nil {
					t.Fatal(err)
				}
			}
			appendValue([]byte("first")) // also starts the raft epoch, with its control batches
			sizeOf := func(n int) int {
				return len(metadata.BuildBatch(metadata.BatchHeader{LeaderEpoch: m.epoch.Load(), Timestamp: time.Now().UnixMilli()},
					[]metadata.BatchRecord{{Value: make([]byte, n)}}))
			}
			lens, err := recordtest.FillValueLens(int64(klog.RecoveryChunkBytes+delta)-m.log.Size(), sizeOf)
			if err != nil {
				t.Fatal(err)
			}
			// The bootstrap snapshot the first append left is replayed first.
			var want [][]byte
			for _, f := range metadata.BootstrapFeatures() {
				want = append(want, metadata.Encode(&f))
			}
			want = append(want, []byte("first"))
			for _, n := range lens {
				v := bytes.Repeat([]byte{'f'}, n)
				appendValue(v)
				want = append(want, v)
			}
			if got := m.log.Size(); got != int64(klog.RecoveryChunkBytes+delta) {
				t.Fatalf("filled to %d bytes", got)
			}
			for i := 0; i < 20; i++ {
				v := []byte("acknowledged-" + strconv.Itoa(i))
				appendValue(v)
				want = append(want, v)
			}
			m.log.Close()

			cfg := klog.DefaultConfig()
			cfg.RecoveryPoint = 0 // as after kill -9: the active segment is recovered
			l, err := klog.Open(path, cfg, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer l.Close()
			var got [][]byte
			r := &metadataLog{log: l, now: time.Now}
			if err := r.ReadAll(func(v []byte) error { got = append(got, append([]byte(nil), v...)); return nil }); err != nil {
				t.Fatal(err)
			}
			if len(got) != len(want) {
				t.Fatalf("replayed %d records, want %d", len(got), len(want))
			}
			for i := range want {
				if !bytes.Equal(got[i], want[i]) {
					t.Fatalf("record %d differs", i)
				}
			}
		})
	}
}
