package storage

import (
	"maps"

	klog "github.com/karst-broker/karst/internal/log"
)

// TakeDirOffline stops serving the log dir at path after it failed with
// err, as Kafka's ReplicaManager.handleLogDirFailure does: every partition
// in it stops serving (KAFKA_STORAGE_ERROR from then on), a move into or
// out of it stops, no partition is created in it, and its checkpoints are
// no longer written. It reports whether every log dir is now offline.
func (m *Manager) TakeDirOffline(path string, err error) (allOffline bool) {
	d := m.logDir(path)
	if d == nil {
		return m.allOffline()
	}
	d.offline.Store(true)
	m.cancelMovesIn(d.path)
	m.mu.Lock()
	offline := maps.Clone(*m.offline.Load())
	for tp, p := range *m.parts.Load() {
		if p.Dir == d.path {
			p.Log.TakeOffline(err)
			offline[tp] = d.path
		}
	}
	m.offline.Store(&offline)
	m.mu.Unlock()
	m.logger.Warn("Stopping serving logs in dir "+d.path, "partitions", countIn(offline, d.path))
	return m.allOffline()
}

func countIn(offline map[klog.TopicPartition]string, dir string) int {
	n := 0
	for _, d := range offline {
		if d == dir {
			n++
		}
	}
	return n
}

func (m *Manager) allOffline() bool {
	for _, d := range m.dirs {
		if !d.offline.Load() {
			return false
		}
	}
	return true
}

// DirOffline reports whether the log dir at path has failed.
func (m *Manager) DirOffline(path string) bool {
	d := m.logDir(path)
	return d != nil && d.offline.Load()
}

// Offline reports whether the partition is this node's but not served
// because its log dir failed: Kafka answers KAFKA_STORAGE_ERROR for it.
func (m *Manager) Offline(topic string, partition int32) bool {
	tp := klog.TopicPartition{Topic: topic, Partition: partition}
	if p, ok := (*m.parts.Load())[tp]; ok {
		return p.Log.Offline()
	}
	_, ok := (*m.offline.Load())[tp]
	return ok
}
