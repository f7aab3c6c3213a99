// Package record owns Kafka's RecordBatch v2 (magic 2) format: a zero-copy
// view of the 61-byte batch header over []byte, CRC32C validation, the
// splitter that walks concatenated batches (a Produce request's records or a
// segment file), decoding of the varint-encoded records inside a batch, and
// bounded decompression of gzip, snappy, lz4 and zstd payloads.
//
// Layout of a batch (big endian, offsets in bytes):
//
//	 0 baseOffset           int64   not covered by the CRC
//	 8 batchLength          int32   bytes after this field
//	12 partitionLeaderEpoch int32   not covered by the CRC
//	16 magic                int8    always 2
//	17 crc                  uint32  CRC32C of bytes 21..end
//	21 attributes           int16
//	23 lastOffsetDelta      int32
//	27 baseTimestamp        int64
//	35 maxTimestamp         int64
//	43 producerId           int64
//	51 producerEpoch        int16
//	53 baseSequence         int32
//	57 recordCount          int32
//	61 records...
//
// Nothing here allocates on the hot path: a Batch is a slice of the caller's
// buffer, and the setters edit it in place. Every decoder checks bounds and
// returns an error instead of panicking; the fuzz targets hold it to that.
package record
