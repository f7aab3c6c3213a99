package record

import (
	"errors"
	"fmt"
)

// Sentinel errors; wrapped in *BatchError by the splitter so callers can both
// match the kind (errors.Is) and report where it happened.
var (
	// ErrTruncated: the bytes end inside a batch header or body.
	ErrTruncated = errors.New("record: truncated batch")
	// ErrBadMagic: the magic byte is not 2.
	ErrBadMagic = errors.New("record: unsupported magic")
	// ErrBadCRC: the stored CRC32C does not match the batch contents.
	ErrBadCRC = errors.New("record: crc mismatch")
	// ErrLengthOutOfRange: batchLength is below the header size or above the limit.
	ErrLengthOutOfRange = errors.New("record: batch length out of range")
	// ErrCorruptRecords: the records inside a batch do not decode.
	ErrCorruptRecords = errors.New("record: corrupt records")
	// ErrTooLarge: decompressed data would exceed the caller's cap.
	ErrTooLarge = errors.New("record: decompressed size exceeds limit")
	// ErrUnknownCodec: the compression bits name no known codec.
	ErrUnknownCodec = errors.New("record: unknown compression codec")
)

// BatchError says which batch failed and why.
type BatchError struct {
	Pos int   // byte position of the batch within the walked buffer
	Err error // one of the sentinel errors above
}

func (e *BatchError) Error() string { return fmt.Sprintf("%v at position %d", e.Err, e.Pos) }
func (e *BatchError) Unwrap() error { return e.Err }
