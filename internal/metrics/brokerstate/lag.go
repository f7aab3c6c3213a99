package brokerstate

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/karst-broker/karst/internal/group"
)

// Lag is a committed offset's distance from the high watermark. A commit
// past the end (the log was truncated or deleted and recreated) counts as
// no lag rather than a negative one.
func Lag(highWatermark, committed int64) int64 {
	return max(highWatermark-committed, 0)
}

type groupTopic struct{ group, topic string }

// collectGroups exports every group's committed offsets, and its lag
// where the partition's log is open here.
func (c *Collector) collectGroups(ch chan<- prometheus.Metric) {
	listed := c.src.Groups.List(nil, nil)
	if d, ok := c.src.Groups.(GroupDescriber); ok {
		collectMembers(ch, d, listed)
	}
	for _, l := range listed {
		err, offsets := c.src.Groups.FetchOffsets(l.GroupID, nil)
		if err != nil {
			continue // deleted between List and FetchOffsets
		}
		c.collectGroup(ch, l.GroupID, offsets)
	}
}

func (c *Collector) collectGroup(ch chan<- prometheus.Metric, id string, offsets []group.FetchedOffset) {
	offsetSums := map[groupTopic]int64{}
	lagSums := map[groupTopic]int64{}
	for _, o := range offsets {
		if o.Offset < 0 {
			continue
		}
		gt := groupTopic{id, o.Topic}
		part := partitionLabel(o.Partition)
		gauge(ch, descGroupOffset, float64(o.Offset), id, o.Topic, part)
		offsetSums[gt] += o.Offset
		if c.src.Partitions == nil {
			continue
		}
		p, ok := c.src.Partitions.Get(o.Topic, o.Partition)
		if !ok {
			continue // topic deleted, or not hosted here: no end to measure from
		}
		lag := Lag(p.Log.HighWatermark(), o.Offset)
		gauge(ch, descGroupLag, float64(lag), id, o.Topic, part)
		lagSums[gt] += lag
	}
	for gt, sum := range offsetSums {
		gauge(ch, descGroupOffsetSum, float64(sum), gt.group, gt.topic)
	}
	for gt, sum := range lagSums {
		gauge(ch, descGroupLagSum, float64(sum), gt.group, gt.topic)
	}
}
