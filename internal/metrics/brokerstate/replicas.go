package brokerstate

import "github.com/prometheus/client_golang/prometheus"

// collectReplicas derives the replica health gauges from the metadata
// image. On a single node every partition is led here with an ISR of one,
// so under-replicated is 0 unless the metadata says otherwise; the gauges
// exist so the alerts operators already have keep working.
func (c *Collector) collectReplicas(ch chan<- prometheus.Metric) {
	var hosted, leading, underReplicated, offline int
	for _, t := range c.topics() {
		gauge(ch, descTopicPartitions, float64(len(t.Partitions)), t.Name)
		for _, p := range t.Partitions {
			if p == nil {
				continue
			}
			if p.Leader < 0 {
				offline++
			}
			if !contains(p.Replicas, c.src.NodeID) {
				continue
			}
			hosted++
			if p.Leader != c.src.NodeID {
				continue
			}
			leading++
			if len(p.ISR) < len(p.Replicas) {
				underReplicated++
			}
			if c.src.Partitions != nil {
				if _, open := c.src.Partitions.Get(t.Name, p.ID); !open {
					offline++ // led here, but its log is not being served
				}
			}
		}
	}
	gauge(ch, descPartitionCount, float64(hosted))
	gauge(ch, descLeaderCount, float64(leading))
	gauge(ch, descUnderReplicated, float64(underReplicated))
	gauge(ch, descOffline, float64(offline))
}

func contains(ids []int32, id int32) bool {
	for _, x := range ids {
		if x == id {
			return true
		}
	}
	return false
}
