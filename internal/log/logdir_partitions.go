package log

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// StraySuffix ends the name of a partition directory kept aside because
// the metadata does not know its topic (Kafka's UnifiedLog.StrayDirSuffix).
const StraySuffix = "-stray"

// maxDirName is the longest file name most file systems take.
const maxDirName = 255

// StrayDirName is Kafka's name for a stray partition directory,
// "<topic>-<partition>.<random uuid hex>-stray", the topic cut short so the
// name fits in 255 bytes (LocalLog.logDirNameWithSuffixCappedLength).
func StrayDirName(tp TopicPartition) string {
	var id [16]byte
	rand.Read(id[:])
	suffix := fmt.Sprintf("-%d.%s%s", tp.Partition, hex.EncodeToString(id[:]), StraySuffix)
	topic := tp.Topic
	if len(topic) > maxDirName-len(suffix) {
		topic = topic[:maxDirName-len(suffix)]
	}
	return topic + suffix
}

// MoveAsideStray renames a partition directory to its stray name in the
// same log dir, durably, and returns the new path. Nothing deletes a stray
// directory: it holds data the metadata lost track of, for an operator to
// look at.
func MoveAsideStray(dir string, tp TopicPartition) (string, error) {
	parent := filepath.Dir(dir)
	target := filepath.Join(parent, StrayDirName(tp))
	if err := os.Rename(dir, target); err != nil {
		return "", err
	}
	return target, syncDir(parent)
}

// ListPartitionDirs returns the partition directories of a log dir, keyed
// by topic-partition. Kafka's in-flight names are skipped: "-delete"
// (topic being deleted), "-future" (moving between dirs), "-stray", and
// __cluster_metadata-0, which belongs to the metadata package.
func ListPartitionDirs(logDir string) (map[TopicPartition]string, error) {
	entries, err := os.ReadDir(logDir)
	if err != nil {
		return nil, err
	}
	out := map[TopicPartition]string{}
	for _, e := range entries {
		name := e.Name()
		if !e.IsDir() || strings.HasSuffix(name, "-delete") || strings.HasSuffix(name, "-future") ||
			strings.HasSuffix(name, StraySuffix) || name == "__cluster_metadata-0" {
			continue
		}
		topic, p, ok := ParseTopicPartition(name)
		if !ok {
			continue
		}
		out[TopicPartition{topic, p}] = filepath.Join(logDir, name)
	}
	return out, nil
}

// Delete closes the log and removes its directory (topic deletion). Like
// Kafka it first renames the directory to "<dir>.<n>-delete", so a crash
// midway leaves a name ListPartitionDirs skips and a later pass can remove.
func (l *Log) Delete() error {
	if err := l.Close(); err != nil {
		l.logger.Warn("closing log before delete", "err", err)
	}
	doomed := l.dir + ".d-delete"
	if err := os.Rename(l.dir, doomed); err != nil {
		return err
	}
	_ = syncDir(filepath.Dir(l.dir))
	return os.RemoveAll(doomed)
}

// UpdateConfig applies changed topic configs (segment.*, retention.*,
// flush.*, message.timestamp.type, max.message.bytes, ...) to a running
// log. RecoveryPoint, LogStartOffset, Durability, flush.* and the clock are
// fixed at Open and ignored here (flush settings apply at the next Open).
func (l *Log) UpdateConfig(cfg Config) {
	cfg = cfg.withDefaults()
	l.mu.Lock()
	defer l.mu.Unlock()
	cfg.RecoveryPoint, cfg.LogStartOffset, cfg.Durability = l.cfg.RecoveryPoint, l.cfg.LogStartOffset, l.cfg.Durability
	cfg.FlushInterval, cfg.FlushMessages, cfg.Now = l.cfg.FlushInterval, l.cfg.FlushMessages, l.cfg.Now
	l.cfg = cfg
	l.maxMessageBytes.Store(int64(cfg.MaxMessageBytes))
	l.timestampRules.Store(newTimestampRules(cfg))
}

// IsKafkaLogDirName says whether name, a directory inside a log dir, is
// one Kafka's UnifiedLog.parseTopicPartitionName accepts: "<topic>-<n>",
// or "<topic>-<n>.<id>" followed by "-delete", "-future" or "-stray".
func IsKafkaLogDirName(name string) bool {
	if !strings.Contains(name, "-") {
		return false
	}
	for _, suffix := range []string{"-delete", "-future", StraySuffix} {
		if !strings.HasSuffix(name, suffix) {
			continue
		}
		// ^(\S+)-(\S+)\.(\S+)<suffix>: a topic-partition, a dot, an id.
		dot := strings.LastIndexByte(name, '.')
		if dot < 0 || dot+1 >= len(name)-len(suffix) || strings.ContainsAny(name, " \t\n\r\f\v") {
			return false
		}
		name = name[:dot]
		break
	}
	i := strings.LastIndexByte(name, '-')
	if i <= 0 || i == len(name)-1 {
		return false
	}
	_, err := strconv.ParseInt(name[i+1:], 10, 32)
	return err == nil
}
