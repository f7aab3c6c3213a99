package record

import (
	"fmt"
	"io"
)

// ValidateRecords decodes every record of the batch (decompressing with at
// most maxDecompressed bytes of output) and checks what Kafka's LogValidator
// checks per record in a v2 batch: the count matches recordCount, offset
// deltas run 0, 1, 2..., and the last delta equals lastOffsetDelta. It is
// not on the produce hot path; use it where records must be trusted
// (compaction, debugging tools, optional strict produce validation).
func ValidateRecords(b Batch, maxDecompressed int) error {
	data, err := b.Records(nil, maxDecompressed)
	if err != nil {
		return err
	}
	rr := NewRecordReader(data, b.RecordCount())
	var r Record
	var n int32
	for {
		err := rr.Next(&r)
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		if r.OffsetDelta != n {
			return fmt.Errorf("%w: record %d has offset delta %d", ErrCorruptRecords, n, r.OffsetDelta)
		}
		n++
	}
	if n == 0 || n-1 != b.LastOffsetDelta() {
		return fmt.Errorf("%w: %d records but last offset delta %d", ErrCorruptRecords, n, b.LastOffsetDelta())
	}
	return nil
}
