package handler

import (
	"context"
	"encoding/binary"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"

	klog "github.com/karst-broker/karst/internal/log"
)

// A batch whose length field is corrupt on disk is answered with
// CORRUPT_MESSAGE, as Kafka answers the CorruptRecordException its
// FileRecords raise (the Java consumer stops with "Encountered corrupt
// message"), not with the retriable KAFKA_STORAGE_ERROR; the batches before
// it are still served.
func TestFetchOfACorruptBatchIsCorruptMessage(t *testing.T) {
	f := newAdminFixture(t, nil)
	f.createTopic("t", 1, nil)
	f.produce("t", 0, 2, 0)
	second := f.log("t", 0).Size()
	f.produce("t", 0, 2, 0)
	file, err := os.OpenFile(klog.FileName(filepath.Join(f.dir, "t-0"), 0, klog.LogSuffix), os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	var length [4]byte
	binary.BigEndian.PutUint32(length[:], 5)
	if _, err := file.WriteAt(length[:], second+8); err != nil {
		t.Fatal(err)
	}
	file.Close()

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	p := f.fetchOn(ctx, fetchRequest("t", 0, 0, 0, 0), 12).Topics[0].Partitions[0]
	if p.ErrorCode != 0 || len(batchOffsets(t, p.RecordBatches[:second])) != 1 {
		t.Fatalf("fetch before the corruption: error %d, %d bytes", p.ErrorCode, len(p.RecordBatches))
	}
	p = f.fetchOn(ctx, fetchRequest("t", 2, 0, 0, 0), 12).Topics[0].Partitions[0]
	if p.ErrorCode != kerr.CorruptMessage.Code {
		t.Fatalf("fetch of the corrupt batch: error %d, want CORRUPT_MESSAGE (%d)", p.ErrorCode, kerr.CorruptMessage.Code)
	}
}
