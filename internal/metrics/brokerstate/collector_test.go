package brokerstate

import (
	"fmt"
	"io"
	"log/slog"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/twmb/franz-go/pkg/kerr"

	"github.com/karst-broker/karst/internal/group"
	klog "github.com/karst-broker/karst/internal/log"
	"github.com/karst-broker/karst/internal/metadata"
	"github.com/karst-broker/karst/internal/metrics"
	"github.com/karst-broker/karst/internal/record"
	"github.com/karst-broker/karst/internal/storage"
)

// fakeGroups answers List and FetchOffsets from a map; a group mapped to
// nil offsets answers GROUP_ID_NOT_FOUND (deleted after being listed).
type fakeGroups map[string][]group.FetchedOffset

func (f fakeGroups) List(_, _ []string) []group.Listing {
	var out []group.Listing
	for id := range f {
		out = append(out, group.Listing{GroupID: id})
	}
	return out
}

func (f fakeGroups) FetchOffsets(id string, _ []group.TopicPartition) (*kerr.Error, []group.FetchedOffset) {
	if f[id] == nil {
		return kerr.GroupIDNotFound, nil
	}
	return nil, f[id]
}

func committed(topic string, partition int32, offset int64) group.FetchedOffset {
	return group.FetchedOffset{
		TopicPartition:  group.TopicPartition{Topic: topic, Partition: partition},
		CommittedOffset: group.CommittedOffset{Offset: offset, LeaderEpoch: -1},
	}
}

// openPartitions opens topic "orders" with the given record counts per
// partition, on a temporary log dir.
func openPartitions(t *testing.T, records ...int) *storage.Manager {
	t.Helper()
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	m, err := storage.Open(t.TempDir(), func(string) klog.Config { return klog.DefaultConfig() }, logger)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	var specs []storage.Spec
	for p := range records {
		specs = append(specs, storage.Spec{TopicPartition: klog.TopicPartition{Topic: "orders", Partition: int32(p)}, TopicID: klog.TopicID{1}})
	}
	if err := m.Reconcile(specs); err != nil {
		t.Fatal(err)
	}
	for p, n := range records {
		if n == 0 {
			continue
		}
		rs := make([]record.Record, n)
		for i := range rs {
			rs[i] = record.Record{OffsetDelta: int32(i), Value: []byte("v")}
		}
		batch, err := record.Build(nil, record.BatchHeader{BaseTimestamp: 1, ProducerID: -1, ProducerEpoch: -1, BaseSequence: -1}, rs)
		if err != nil {
			t.Fatal(err)
		}
		part, _ := m.Get("orders", int32(p))
		if _, err := part.Log.Append(batch, klog.AppendOptions{Origin: klog.FromClient}); err != nil {
			t.Fatal(err)
		}
	}
	return m
}

func scrape(t *testing.T, c prometheus.Collector, names ...string) string {
	t.Helper()
	r := prometheus.NewPedanticRegistry()
	r.MustRegister(c)
	var b strings.Builder
	fams, err := r.Gather()
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{}
	for _, n := range names {
		want[n] = true
	}
	for _, f := range fams {
		if len(want) > 0 && !want[f.GetName()] {
			continue
		}
		for _, m := range f.GetMetric() {
			var labels []string
			for _, l := range m.GetLabel() {
				labels = append(labels, l.GetName()+"="+l.GetValue())
			}
			fmt.Fprintf(&b, "%s{%s} %g\n", f.GetName(), strings.Join(labels, ","), m.GetGauge().GetValue())
		}
	}
	return b.String()
}

func TestLagIsHighWatermarkMinusCommittedPerPartitionAndSummedPerTopic(t *testing.T) {
	parts := openPartitions(t, 10, 4, 0)
	groups := fakeGroups{
		"billing": {committed("orders", 0, 3), committed("orders", 1, 4), committed("orders", 2, 0),
			committed("gone", 0, 7), committed("orders", 5, -1)},
		"deleted": nil,
	}
	got := scrape(t, New(Sources{Groups: groups, Partitions: parts}),
		"kafka_consumergroup_lag", "kafka_consumergroup_lag_sum", "kafka_consumergroup_current_offset", "kafka_consumergroup_current_offset_sum")
	want := `kafka_consumergroup_current_offset{consumergroup=billing,partition=0,topic=gone} 7
kafka_consumergroup_current_offset{consumergroup=billing,partition=0,topic=orders} 3
kafka_consumergroup_current_offset{consumergroup=billing,partition=1,topic=orders} 4
kafka_consumergroup_current_offset{consumergroup=billing,partition=2,topic=orders} 0
kafka_consumergroup_current_offset_sum{consumergroup=billing,topic=gone} 7
kafka_consumergroup_current_offset_sum{consumergroup=billing,topic=orders} 7
kafka_consumergroup_lag{consumergroup=billing,partition=0,topic=orders} 7
kafka_consumergroup_lag{consumergroup=billing,partition=1,topic=orders} 0
kafka_consumergroup_lag{consumergroup=billing,partition=2,topic=orders} 0
kafka_consumergroup_lag_sum{consumergroup=billing,topic=orders} 7
`
	if got != want {
		t.Errorf("scrape:\n%s\nwant:\n%s", got, want)
	}
}

func TestLagIsNeverNegative(t *testing.T) {
	for _, c := range []struct{ hw, committed, want int64 }{{10, 3, 7}, {10, 10, 0}, {3, 10, 0}, {0, 0, 0}} {
		if got := Lag(c.hw, c.committed); got != c.want {
			t.Errorf("Lag(%d, %d) = %d, want %d", c.hw, c.committed, got, c.want)
		}
	}
}

func TestPartitionOffsetsAndSizes(t *testing.T) {
	parts := openPartitions(t, 5, 0)
	got := scrape(t, New(Sources{Partitions: parts}), "kafka_topic_partition_current_offset", "kafka_topic_partition_oldest_offset")
	want := `kafka_topic_partition_current_offset{partition=0,topic=orders} 5
kafka_topic_partition_current_offset{partition=1,topic=orders} 0
kafka_topic_partition_oldest_offset{partition=0,topic=orders} 0
kafka_topic_partition_oldest_offset{partition=1,topic=orders} 0
`
	if got != want {
		t.Errorf("scrape:\n%s\nwant:\n%s", got, want)
	}
	if n := strings.Count(scrape(t, New(Sources{Partitions: parts}), "kafka_log_log_size"), "\n"); n != 2 {
		t.Errorf("%d log size series, want 2", n)
	}
}

func TestReplicaGaugesCountUnderReplicatedAndOffline(t *testing.T) {
	parts := openPartitions(t, 0, 0) // orders-0 and orders-1 are open; orders-2 is not
	c := New(Sources{NodeID: 1, Partitions: parts})
	c.topics = func() []*metadata.Topic {
		return []*metadata.Topic{
			{Name: "orders", Partitions: []*metadata.Partition{
				{ID: 0, Replicas: []int32{1}, ISR: []int32{1}, Leader: 1},
				{ID: 1, Replicas: []int32{1, 2}, ISR: []int32{1}, Leader: 1}, // under-replicated
				{ID: 2, Replicas: []int32{1}, ISR: []int32{1}, Leader: 1},    // led here, log not open: offline
			}},
			{Name: "elsewhere", Partitions: []*metadata.Partition{
				{ID: 0, Replicas: []int32{2}, ISR: []int32{2}, Leader: 2},
				{ID: 1, Replicas: []int32{2}, ISR: nil, Leader: -1}, // no leader: offline
			}},
		}
	}
	got := scrape(t, c)
	for _, line := range []string{
		"kafka_server_replicamanager_partitioncount{} 3\n",
		"kafka_server_replicamanager_leadercount{} 3\n",
		"kafka_server_replicamanager_underreplicatedpartitions{} 1\n",
		"kafka_controller_kafkacontroller_offlinepartitionscount{} 2\n",
		"kafka_topic_partitions{topic=orders} 3\n",
		"kafka_topic_partitions{topic=elsewhere} 2\n",
	} {
		if !strings.Contains(got, line) {
			t.Errorf("scrape lacks %q:\n%s", line, got)
		}
	}
}

func TestHealthyPartitionsStillExportZeroGauges(t *testing.T) {
	c := New(Sources{NodeID: 1})
	c.topics = func() []*metadata.Topic { return nil }
	got := scrape(t, c)
	for _, line := range []string{
		"kafka_server_replicamanager_underreplicatedpartitions{} 0\n",
		"kafka_controller_kafkacontroller_offlinepartitionscount{} 0\n",
	} {
		if !strings.Contains(got, line) {
			t.Errorf("scrape lacks %q:\n%s", line, got)
		}
	}
}

func TestRegisterAddsCollectorAndUnregisterRemovesIt(t *testing.T) {
	m := metrics.New()
	unregister := Register(m, Sources{Partitions: openPartitions(t, 2)})
	if n := countSeries(t, m.Registry, "kafka_topic_partition_current_offset"); n != 1 {
		t.Fatalf("after Register: %d series", n)
	}
	unregister()
	if n := countSeries(t, m.Registry, "kafka_topic_partition_current_offset"); n != 0 {
		t.Fatalf("after unregister: %d series", n)
	}
	Register(nil, Sources{})() // a nil Metrics is allowed
}

func countSeries(t *testing.T, g prometheus.Gatherer, name string) int {
	t.Helper()
	fams, err := g.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range fams {
		if f.GetName() == name {
			return len(f.GetMetric())
		}
	}
	return 0
}

// describedGroups adds member lists to fakeGroups: classic groups from
// classic, KIP-848 groups from consumer.
type describedGroups struct {
	fakeGroups
	classic, consumer map[string]int
}

func (d describedGroups) List(_, _ []string) []group.Listing {
	var out []group.Listing
	for id := range d.classic {
		out = append(out, group.Listing{GroupID: id, Type: "classic"})
	}
	for id := range d.consumer {
		out = append(out, group.Listing{GroupID: id, Type: "consumer"})
	}
	return out
}

func (d describedGroups) Describe(ids []string) []group.Description {
	var out []group.Description
	for _, id := range ids {
		n, ok := d.classic[id]
		if !ok {
			out = append(out, group.Description{GroupID: id, Err: kerr.GroupIDNotFound})
			continue
		}
		out = append(out, group.Description{GroupID: id, Members: make([]group.MemberDescription, n)})
	}
	return out
}

func (d describedGroups) DescribeConsumerGroups(ids []string) []group.ConsumerGroupDescription {
	var out []group.ConsumerGroupDescription
	for _, id := range ids {
		out = append(out, group.ConsumerGroupDescription{GroupID: id, Members: make([]group.ConsumerMemberDescription, d.consumer[id])})
	}
	return out
}

func TestMembersAreCountedForClassicAndConsumerGroups(t *testing.T) {
	groups := describedGroups{
		fakeGroups: fakeGroups{"a": {}, "b": {}},
		classic:    map[string]int{"a": 3},
		consumer:   map[string]int{"b": 2},
	}
	got := scrape(t, New(Sources{Groups: groups}), "kafka_consumergroup_members")
	want := "kafka_consumergroup_members{consumergroup=a} 3\nkafka_consumergroup_members{consumergroup=b} 2\n"
	if got != want {
		t.Errorf("scrape:\n%s\nwant:\n%s", got, want)
	}
}
