package storage

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	klog "github.com/karst-broker/karst/internal/log"
)

// strayReason says why the partition directory dir does not hold the
// partition the metadata wants at tp on this broker, or "" when it does.
// A directory without partition.metadata is adopted by a partition the
// metadata wants (a crash between creating the directory and writing the
// file leaves one); Kafka treats it as stray either way, Karst keeps its
// data in place.
func strayReason(dir string, tp klog.TopicPartition, want map[klog.TopicPartition]klog.TopicID) (found klog.TopicID, reason string) {
	wantID, wanted := want[tp]
	id, err := klog.ReadPartitionMetadata(dir)
	switch {
	case errors.Is(err, os.ErrNotExist) && wanted:
		return id, ""
	case errors.Is(err, os.ErrNotExist):
		return id, "it has no partition.metadata and the metadata has no partition " + tp.String() + " on this broker"
	case err != nil && wanted:
		return id, "" // rewritten by openPartition, as before
	case err != nil:
		return id, fmt.Sprintf("its partition.metadata is unreadable (%v) and the metadata has no partition %s on this broker", err, tp)
	case !wanted:
		return id, fmt.Sprintf("the metadata has no topic id %s with partition %d on this broker (the topic was deleted or lost from the metadata)", id, tp.Partition)
	case id != wantID:
		return id, fmt.Sprintf("it belongs to topic id %s, but the metadata names %s for %s (an earlier topic of the same name)", id, wantID, tp)
	}
	return id, ""
}

// moveStrays keeps aside, under Kafka's stray name, each of dirs that does
// not hold the partition the metadata wants there, as Kafka's LogManager
// does with the logs findStrayReplicas reports: never deleted, because
// the metadata losing a topic must not cost its data, and out of the way of
// a topic created again under the same name. Their checkpoint entries go,
// so a new partition at the same place starts from offset 0. It returns
// the wanted partitions whose directory could not be moved; they must not
// be opened over another topic's data.
func (m *Manager) moveStrays(d *logDir, dirs map[klog.TopicPartition]string, want map[klog.TopicPartition]klog.TopicID) map[klog.TopicPartition]error {
	failed := map[klog.TopicPartition]error{}
	for tp, dir := range dirs {
		if _, err := os.Stat(dir); err != nil {
			continue // a partition created now
		}
		found, reason := strayReason(dir, tp, want)
		if reason == "" {
			continue
		}
		stray, err := klog.MoveAsideStray(dir, tp)
		if err != nil {
			m.logger.Error("could not keep a stray partition directory aside", "dir", dir, "reason", reason, "err", err)
			if _, wanted := want[tp]; wanted {
				failed[tp] = fmt.Errorf("partition %s: its directory %s is stray (%s) and could not be moved aside: %w", tp, dir, reason, err)
			}
			continue
		}
		d.forget(tp)
		m.logger.Warn("kept a stray partition directory aside, with its data; it is never deleted by Karst",
			"dir", dir, "kept_as", stray, "found_topic_id", found.String(), "reason", reason)
	}
	return failed
}

// reportStrays names the stray directories earlier starts kept aside, as
// Kafka logs "Loaded stray log" at start.
func (m *Manager) reportStrays(d *logDir) {
	entries, err := os.ReadDir(d.path)
	if err != nil {
		return
	}
	for _, e := range entries {
		if e.IsDir() && strings.HasSuffix(e.Name(), klog.StraySuffix) {
			m.logger.Warn("stray partition directory kept from an earlier start; move or remove it by hand once its data is not needed",
				"dir", filepath.Join(d.path, e.Name()))
		}
	}
}

// keepStraysAside moves the stray directories among those Reconcile is
// about to open (all of each online dir's, the first time) out of the way,
// and returns the partitions left to open.
func (m *Manager) keepStraysAside(want, toOpen []Spec, open map[klog.TopicPartition]*Partition) ([]Spec, []error) {
	wantIDs := make(map[klog.TopicPartition]klog.TopicID, len(want))
	for _, s := range want {
		wantIDs[s.TopicPartition] = s.TopicID
	}
	failed := map[klog.TopicPartition]error{}
	var errs []error
	for _, d := range m.dirs {
		if d.offline.Load() {
			continue
		}
		dirs := map[klog.TopicPartition]string{}
		if !d.straysChecked {
			d.straysChecked = true
			m.reportStrays(d)
			listed, err := klog.ListPartitionDirs(d.path)
			if err != nil {
				errs = append(errs, fmt.Errorf("log dir %s: %w", d.path, err))
				continue
			}
			dirs = listed
		}
		for _, s := range toOpen {
			dirs[s.TopicPartition] = filepath.Join(d.path, s.TopicPartition.String())
		}
		for tp := range open {
			delete(dirs, tp) // an open log's directory is Reconcile's to delete
		}
		for tp, err := range m.moveStrays(d, dirs, wantIDs) {
			failed[tp] = err
		}
	}
	if len(failed) == 0 {
		return toOpen, errs
	}
	left := toOpen[:0:0]
	for _, s := range toOpen {
		if err, ok := failed[s.TopicPartition]; ok {
			errs = append(errs, err)
			continue
		}
		left = append(left, s)
	}
	return left, errs
}
