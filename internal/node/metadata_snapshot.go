package node

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
)

// Kafka snapshots __cluster_metadata on its own (every 20 MiB of records
// or hourly) into NNNNNNNNNNNNNNNNNNNN-EEEEEEEEEE.checkpoint files (end
// offset, exclusive; epoch) and may then delete the segments they cover,
// so a log dir Kafka wrote can only be replayed from its newest snapshot.

// snapshotName matches a finished snapshot; ".checkpoint.part" (being
// written) and ".checkpoint.deleted" (being removed) do not.
var snapshotName = regexp.MustCompile(`^([0-9]{20})-([0-9]{10})\.checkpoint$`)

type snapshotFile struct {
	path      string
	endOffset int64
	epoch     int32
}

// latestSnapshot finds the snapshot Kafka's loader would start from: the
// one with the highest end offset within [logStart, logEnd] (a snapshot
// past the log end belongs to a tail that was truncated away).
func latestSnapshot(dir string, logStart, logEnd int64) (snapshotFile, bool, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return snapshotFile{}, false, err
	}
	var best snapshotFile
	found := false
	for _, e := range entries {
		m := snapshotName.FindStringSubmatch(e.Name())
		if m == nil {
			continue
		}
		end, err1 := strconv.ParseInt(m[1], 10, 64)
		epoch, err2 := strconv.ParseInt(m[2], 10, 32)
		if err1 != nil || err2 != nil || end < logStart || end > logEnd {
			continue
		}
		if !found || end > best.endOffset || (end == best.endOffset && int32(epoch) > best.epoch) {
			best = snapshotFile{path: filepath.Join(dir, e.Name()), endOffset: end, epoch: int32(epoch)}
			found = true
		}
	}
	return best, found, nil
}

// maxSnapshotBytes bounds what is read into memory for one snapshot.
const maxSnapshotBytes = 1 << 30

func (m *metadataLog) readSnapshot(s snapshotFile, fn func(value []byte) error) error {
	info, err := os.Stat(s.path)
	if err != nil {
		return err
	}
	if info.Size() > maxSnapshotBytes {
		return fmt.Errorf("snapshot %s: %d bytes is more than Karst loads", s.path, info.Size())
	}
	data, err := os.ReadFile(s.path)
	if err != nil {
		return err
	}
	m.lastEpoch = max(m.lastEpoch, s.epoch)
	// Snapshot batches count offsets from 0; every record of it counts.
	if err := m.replayBatches(data, 0, fn); err != nil {
		return fmt.Errorf("snapshot %s: %w", s.path, err)
	}
	return nil
}
