package record

import (
	"encoding/binary"
	"hash/crc32"
)

// castagnoli uses the SSE4.2/ARMv8 instruction where the CPU has it.
var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// ComputeCRC returns the CRC32C over attributes..end, the span Kafka covers.
func (b Batch) ComputeCRC() uint32 { return crc32.Checksum(b[offAttributes:], castagnoli) }

// ValidCRC reports whether the stored CRC matches the contents.
func (b Batch) ValidCRC() bool { return b.ComputeCRC() == b.CRC() }

// UpdateCRC recomputes and stores the CRC after an edit to a covered field.
func (b Batch) UpdateCRC() { binary.BigEndian.PutUint32(b[offCRC:], b.ComputeCRC()) }

// CRC32C exposes the Castagnoli checksum for other on-disk formats
// (producer snapshots use it too).
func CRC32C(p []byte) uint32 { return crc32.Checksum(p, castagnoli) }
