package log

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
)

// File suffixes of a segment and of the files beside it (Kafka's LogFileUtils).
const (
	LogSuffix       = ".log"
	IndexSuffix     = ".index"
	TimeIndexSuffix = ".timeindex"
	TxnIndexSuffix  = ".txnindex"
	SnapshotSuffix  = ".snapshot"
	DeletedSuffix   = ".deleted"
	CleanedSuffix   = ".cleaned"
	SwapSuffix      = ".swap"
)

// FileName is a file's name for a base offset: the offset zero-padded to 20 digits plus suffix.
func FileName(dir string, offset int64, suffix string) string {
	return filepath.Join(dir, fmt.Sprintf("%020d%s", offset, suffix))
}

// parseOffsetName returns the base offset of a name like 00000000000000000042.log.
func parseOffsetName(name, suffix string) (int64, bool) {
	if !strings.HasSuffix(name, suffix) {
		return 0, false
	}
	digits := strings.TrimSuffix(name, suffix)
	if len(digits) != 20 {
		return 0, false
	}
	off, err := strconv.ParseInt(digits, 10, 64)
	return off, err == nil && off >= 0
}

// ParseTopicPartition splits a partition directory name "topic-3" into its
// topic and partition, as Kafka names them.
func ParseTopicPartition(dir string) (topic string, partition int32, ok bool) {
	base := filepath.Base(dir)
	i := strings.LastIndexByte(base, '-')
	if i <= 0 {
		return "", 0, false
	}
	p, err := strconv.ParseInt(base[i+1:], 10, 32)
	if err != nil || p < 0 {
		return "", 0, false
	}
	return base[:i], int32(p), true
}
