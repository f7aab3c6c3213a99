package storage

import (
	"maps"

	klog "github.com/karst-broker/karst/internal/log"
)

// offlineReplica is a partition of this node's that is not served because
// its log dir failed. Kafka answers the two kinds differently: a partition
// that was loaded and went offline with its dir (or failed to be created
// while the broker ran) is HostedPartition.Offline, KAFKA_STORAGE_ERROR; one
// whose dir had failed before it could be loaded at start is not hosted at
// all, and the data APIs answer NOT_LEADER_OR_FOLLOWER (measured on Kafka
// 4.4.0 with a log dir whose meta.properties could not be read at start:
// Produce, Fetch, ListOffsets, DeleteRecords, OffsetForLeaderEpoch and
// DescribeProducers all answered it).
type offlineReplica struct {
	dir         string // the failed log dir; "" if not known
	wentOffline bool
}

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
			offline[tp] = offlineReplica{dir: d.path, wentOffline: true}
		}
	}
	m.offline.Store(&offline)
	m.mu.Unlock()
	m.logger.Warn("Stopping serving logs in dir "+d.path, "partitions", countIn(offline, d.path))
	return m.allOffline()
}

func countIn(offline map[klog.TopicPartition]offlineReplica, dir string) int {
	n := 0
	for _, r := range offline {
		if r.dir == dir {
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

// Offline reports whether the partition was served here and went offline
// with its log dir: Kafka answers KAFKA_STORAGE_ERROR for it. A partition
// never loaded because its dir had failed at start is not Offline; it is
// not hosted (see offlineReplica).
func (m *Manager) Offline(topic string, partition int32) bool {
	tp := klog.TopicPartition{Topic: topic, Partition: partition}
	if p, ok := (*m.parts.Load())[tp]; ok {
		return p.Log.Offline()
	}
	r, ok := (*m.offline.Load())[tp]
	return ok && r.wentOffline
}

// OfflineReplica reports whether this node's replica of the partition is
// not served because of a failed log dir, whether it went offline or was
// never loaded: Metadata lists the node among its offline replicas either
// way, as Kafka's KRaftMetadataCache.getOfflineReplicas does.
func (m *Manager) OfflineReplica(topic string, partition int32) bool {
	tp := klog.TopicPartition{Topic: topic, Partition: partition}
	if p, ok := (*m.parts.Load())[tp]; ok {
		return p.Log.Offline()
	}
	_, ok := (*m.offline.Load())[tp]
	return ok
}
