// Package legacy owns Kafka's message formats v0 and v1 (magic 0 and 1, the
// MessageSets of Kafka 0.8 to 0.10), which Apache Kafka 4 no longer reads
// (KIP-724, KIP-896): decoding a Produce request's MessageSet, with its
// compressed wrapper messages, into the records of one v2 batch
// (up-conversion), and encoding the records of v2 batches as a MessageSet of
// a given magic for Fetch v0-3 (down-conversion).
//
// Layout of one message in a set, as the 0.8 protocol guide gives it (big
// endian):
//
//	Offset     int64   absolute (magic 0) or relative (magic 1) inside a wrapper
//	MessageSize int32  bytes after this field
//	Crc        uint32  CRC-32 (IEEE) of MagicByte to the end of Value
//	MagicByte  int8    0 or 1
//	Attributes int8    codec in the low 3 bits; bit 3 (magic 1) LogAppendTime
//	Timestamp  int64   magic 1 only
//	Key        bytes   int32 length, -1 for null
//	Value      bytes   int32 length, -1 for null
//
// A compressed message (a wrapper) carries in its Value a whole MessageSet,
// compressed with its codec; the inner set is not compressed again. Nothing
// here panics on any input: every length is checked against what is left,
// and decompression is bounded.
package legacy
