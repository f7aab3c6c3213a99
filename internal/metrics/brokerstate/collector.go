package brokerstate

import (
	"strconv"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/karst-broker/karst/internal/metadata"
)

// Collector is a prometheus.Collector that reads Sources at each scrape.
type Collector struct {
	src Sources
	// topics lists the topics of the current metadata image; nil without
	// a Metadata source. Tests replace it (an Image is built by replay).
	topics func() []*metadata.Topic
}

// New returns a collector over src.
func New(src Sources) *Collector {
	c := &Collector{src: src}
	if src.Metadata != nil {
		c.topics = func() []*metadata.Topic {
			if img := src.Metadata.Image(); img != nil {
				return img.Topics()
			}
			return nil
		}
	}
	return c
}

var (
	groupPartitionLabels = []string{"consumergroup", "topic", "partition"}
	groupTopicLabels     = []string{"consumergroup", "topic"}
	partitionLabels      = []string{"topic", "partition"}

	descGroupOffset = prometheus.NewDesc("kafka_consumergroup_current_offset",
		"Committed offset of a consumer group in a partition.", groupPartitionLabels, nil)
	descGroupOffsetSum = prometheus.NewDesc("kafka_consumergroup_current_offset_sum",
		"Sum of a consumer group's committed offsets over a topic's partitions.", groupTopicLabels, nil)
	descGroupLag = prometheus.NewDesc("kafka_consumergroup_lag",
		"Records a consumer group has yet to consume in a partition: high watermark minus committed offset.", groupPartitionLabels, nil)
	descGroupLagSum = prometheus.NewDesc("kafka_consumergroup_lag_sum",
		"A consumer group's lag summed over a topic's partitions.", groupTopicLabels, nil)

	descPartitionNewest = prometheus.NewDesc("kafka_topic_partition_current_offset",
		"High watermark of a partition: the offset the next record will get once replicated.", partitionLabels, nil)
	descPartitionOldest = prometheus.NewDesc("kafka_topic_partition_oldest_offset",
		"Log start offset of a partition.", partitionLabels, nil)
	descPartitionSize = prometheus.NewDesc("kafka_log_log_size",
		"Bytes of a partition's log segments on disk (Log Size, as the JMX exporter names it).", partitionLabels, nil)

	descTopicPartitions = prometheus.NewDesc("kafka_topic_partitions",
		"Partitions of a topic.", []string{"topic"}, nil)
	descPartitionCount = prometheus.NewDesc("kafka_server_replicamanager_partitioncount",
		"Partition replicas this broker hosts (ReplicaManager PartitionCount).", nil, nil)
	descLeaderCount = prometheus.NewDesc("kafka_server_replicamanager_leadercount",
		"Partitions this broker leads (ReplicaManager LeaderCount).", nil, nil)
	descUnderReplicated = prometheus.NewDesc("kafka_server_replicamanager_underreplicatedpartitions",
		"Partitions this broker leads whose in-sync replicas are fewer than their replicas (ReplicaManager UnderReplicatedPartitions).", nil, nil)
	descOffline = prometheus.NewDesc("kafka_controller_kafkacontroller_offlinepartitionscount",
		"Partitions without a leader able to serve them (KafkaController OfflinePartitionsCount).", nil, nil)
)

// Describe lists every measure the collector may export.
func (c *Collector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{
		descGroupOffset, descGroupOffsetSum, descGroupLag, descGroupLagSum, descGroupMembers,
		descPartitionNewest, descPartitionOldest, descPartitionSize,
		descTopicPartitions, descPartitionCount, descLeaderCount, descUnderReplicated, descOffline,
	} {
		ch <- d
	}
	if c.src.Cleaner != nil {
		for _, d := range cleanerDescs {
			ch <- d
		}
	}
}

// Collect reads the sources now.
func (c *Collector) Collect(ch chan<- prometheus.Metric) {
	if c.src.Partitions != nil {
		c.collectPartitions(ch)
	}
	if c.src.Groups != nil {
		c.collectGroups(ch)
	}
	if c.topics != nil {
		c.collectReplicas(ch)
	}
	if c.src.Cleaner != nil {
		c.collectCleaner(ch)
	}
}

func gauge(ch chan<- prometheus.Metric, d *prometheus.Desc, v float64, labels ...string) {
	ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, labels...)
}

func partitionLabel(p int32) string { return strconv.FormatInt(int64(p), 10) }

func (c *Collector) collectPartitions(ch chan<- prometheus.Metric) {
	for _, p := range c.src.Partitions.All() {
		part := partitionLabel(p.Partition)
		gauge(ch, descPartitionNewest, float64(p.Log.HighWatermark()), p.Topic, part)
		gauge(ch, descPartitionOldest, float64(p.Log.LogStartOffset()), p.Topic, part)
		gauge(ch, descPartitionSize, float64(p.Log.Size()), p.Topic, part)
	}
}
