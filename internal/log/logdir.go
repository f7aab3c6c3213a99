package log

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Files Kafka keeps at the root of each log dir.
const (
	RecoveryPointCheckpointFile  = "recovery-point-offset-checkpoint"
	LogStartOffsetCheckpointFile = "log-start-offset-checkpoint"
	ReplicationCheckpointFile    = "replication-offset-checkpoint"
	MetaPropertiesFile           = "meta.properties"
)

// TopicPartition names a partition in checkpoint files.
type TopicPartition struct {
	Topic     string
	Partition int32
}

func (tp TopicPartition) String() string { return fmt.Sprintf("%s-%d", tp.Topic, tp.Partition) }

// ReadOffsetCheckpoint reads a log dir checkpoint ("0", count, then
// "topic partition offset" lines). A missing file is an empty map.
func ReadOffsetCheckpoint(path string) (map[TopicPartition]int64, error) {
	lines, err := readCheckpoint(path, 3)
	if errors.Is(err, os.ErrNotExist) {
		return map[TopicPartition]int64{}, nil
	}
	if err != nil {
		return nil, err
	}
	out := make(map[TopicPartition]int64, len(lines))
	for _, f := range lines {
		p, err1 := strconv.ParseInt(f[1], 10, 32)
		o, err2 := strconv.ParseInt(f[2], 10, 64)
		if err1 != nil || err2 != nil {
			return nil, fmt.Errorf("%w %s: %v", errBadCheckpoint, path, f)
		}
		out[TopicPartition{f[0], int32(p)}] = o
	}
	return out, nil
}

// WriteOffsetCheckpoint atomically writes a log dir checkpoint, sorted by
// topic and partition so the file is stable.
func WriteOffsetCheckpoint(path string, offsets map[TopicPartition]int64) error {
	tps := make([]TopicPartition, 0, len(offsets))
	for tp := range offsets {
		tps = append(tps, tp)
	}
	sort.Slice(tps, func(i, j int) bool {
		if tps[i].Topic != tps[j].Topic {
			return tps[i].Topic < tps[j].Topic
		}
		return tps[i].Partition < tps[j].Partition
	})
	lines := make([]string, len(tps))
	for i, tp := range tps {
		lines[i] = fmt.Sprintf("%s %d %d", tp.Topic, tp.Partition, offsets[tp])
	}
	return writeCheckpoint(path, lines)
}

// MetaProperties is meta.properties of a KRaft log dir (version 1).
type MetaProperties struct {
	Version     int
	ClusterID   string
	NodeID      int32
	DirectoryID string            // base64 Uuid; empty if absent
	Extra       map[string]string // other keys, kept on rewrite
}

// ReadMetaProperties reads log dir meta.properties (Java properties syntax).
func ReadMetaProperties(logDir string) (MetaProperties, error) {
	data, err := os.ReadFile(filepath.Join(logDir, MetaPropertiesFile))
	if err != nil {
		return MetaProperties{}, err
	}
	props := parseProperties(data)
	mp := MetaProperties{NodeID: -1, Extra: map[string]string{}}
	for k, v := range props {
		switch k {
		case "version":
			mp.Version, err = strconv.Atoi(v)
		case "cluster.id":
			mp.ClusterID = v
		case "node.id":
			var n int64
			n, err = strconv.ParseInt(v, 10, 32)
			mp.NodeID = int32(n)
		case "directory.id":
			mp.DirectoryID = v
		default:
			mp.Extra[k] = v
		}
		if err != nil {
			return MetaProperties{}, fmt.Errorf("log: %s: bad %s=%q", MetaPropertiesFile, k, v)
		}
	}
	if mp.Version != 1 {
		return mp, fmt.Errorf("log: %s: unsupported version %d", MetaPropertiesFile, mp.Version)
	}
	return mp, nil
}

// WriteMetaProperties writes meta.properties as Kafka does: a comment with
// the date, then key=value lines.
func WriteMetaProperties(logDir string, mp MetaProperties) error {
	var b bytes.Buffer
	fmt.Fprintf(&b, "#\n#%s\n", time.Now().UTC().Format("Mon Jan 02 15:04:05 MST 2006"))
	kv := map[string]string{}
	for k, v := range mp.Extra {
		kv[k] = v
	}
	kv["version"] = strconv.Itoa(mp.Version)
	kv["cluster.id"] = mp.ClusterID
	kv["node.id"] = strconv.Itoa(int(mp.NodeID))
	if mp.DirectoryID != "" {
		kv["directory.id"] = mp.DirectoryID
	}
	keys := make([]string, 0, len(kv))
	for k := range kv {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(&b, "%s=%s\n", escapeProperty(k), escapeProperty(kv[k]))
	}
	return writeFileAtomic(filepath.Join(logDir, MetaPropertiesFile), b.Bytes())
}

// parseProperties handles the subset of java.util.Properties Kafka writes:
// comments (# or !), key=value or key:value, and backslash escapes.
func parseProperties(data []byte) map[string]string {
	out := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || line[0] == '#' || line[0] == '!' {
			continue
		}
		i := strings.IndexAny(line, "=:")
		if i < 0 {
			out[unescapeProperty(line)] = ""
			continue
		}
		out[unescapeProperty(strings.TrimSpace(line[:i]))] = unescapeProperty(strings.TrimSpace(line[i+1:]))
	}
	return out
}

func unescapeProperty(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			i++
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func escapeProperty(s string) string {
	r := strings.NewReplacer(`\`, `\\`, "=", `\=`, ":", `\:`, "#", `\#`, "!", `\!`)
	return r.Replace(s)
}
