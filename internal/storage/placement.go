package storage

import (
	"fmt"
	"os"
	"path/filepath"

	klog "github.com/karst-broker/karst/internal/log"
)

// place picks the log dir each partition of toOpen opens in: the dir that
// already holds its directory, or for a partition new to this broker the
// online dir with the fewest partitions (Kafka's LogManager.nextLogDirs).
// A partition known offline stays offline, and so does one that is found
// in no online dir at start while a dir is offline: its log may be in the
// dir that failed, and Kafka does not create an existing partition
// elsewhere (getOrCreateLog: "Can not create log ... because log
// directories ... are offline"). It returns the homes (nil: not opened),
// the partitions left offline, and the errors of duplicated partitions.
func (m *Manager) place(toOpen []Spec, open map[klog.TopicPartition]*Partition) ([]*logDir, map[klog.TopicPartition]offlineReplica, []error) {
	wasOffline := *m.offline.Load()
	offline := map[klog.TopicPartition]offlineReplica{}
	counts := map[*logDir]int{}
	for _, p := range open {
		if d := m.logDir(p.Dir); d != nil {
			counts[d]++
		}
	}
	anyOffline := false
	for _, d := range m.dirs {
		anyOffline = anyOffline || d.offline.Load()
	}
	homes := make([]*logDir, len(toOpen))
	var errs []error
	for i, s := range toOpen {
		tp := s.TopicPartition
		if r, ok := wasOffline[tp]; ok {
			offline[tp] = r
			continue
		}
		found, err := m.existing(tp)
		switch {
		case err != nil:
			errs = append(errs, err)
			continue
		case found != nil:
			homes[i] = found
		case anyOffline && !m.started:
			offline[tp] = offlineReplica{}
			continue
		default:
			homes[i] = m.nextLogDir(counts)
			if homes[i] == nil {
				// Every dir failed since the start: Kafka's getOrCreateLog
				// fails and the partition is marked offline.
				offline[tp] = offlineReplica{wentOffline: m.started}
				continue
			}
		}
		counts[homes[i]]++
	}
	return homes, offline, errs
}

// existing is the online dir holding tp's directory, or nil; a partition
// found in two dirs is an error, as in Kafka's loadLog.
func (m *Manager) existing(tp klog.TopicPartition) (*logDir, error) {
	var found *logDir
	for _, d := range m.dirs {
		if d.offline.Load() {
			continue
		}
		if _, err := os.Stat(filepath.Join(d.path, tp.String())); err != nil {
			continue
		}
		if found != nil {
			return nil, fmt.Errorf("partition %s: Duplicate log directories for %[1]s are found in both %s and %s. "+
				"It is likely because log directory failure happened while broker was replacing current replica with future replica. "+
				"Recover broker from this failure by manually deleting one of the two directories for this partition",
				tp, filepath.Join(found.path, tp.String()), filepath.Join(d.path, tp.String()))
		}
		found = d
	}
	return found, nil
}

// nextLogDir is the online dir with the fewest partitions, the first in
// log.dirs order among equals; nil when every dir is offline.
func (m *Manager) nextLogDir(counts map[*logDir]int) *logDir {
	var best *logDir
	for _, d := range m.dirs {
		if d.offline.Load() {
			continue
		}
		if best == nil || counts[d] < counts[best] {
			best = d
		}
	}
	return best
}
