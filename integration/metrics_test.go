package integration

import (
	"context"
	"encoding/json"
	"io"
	"math"
	"net/http"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/karst-broker/karst/karsttest"
)

// metricValue returns the value of the first sample of name whose labels
// contain every fragment (such as `topic="metered"`), or -1.
func metricValue(body, name string, labels ...string) float64 {
	for _, line := range strings.Split(body, "\n") {
		rest, ok := strings.CutPrefix(line, name)
		if !ok || rest == "" || (rest[0] != '{' && rest[0] != ' ') {
			continue
		}
		set := ""
		if rest[0] == '{' {
			end := strings.LastIndexByte(rest, '}')
			if end < 0 {
				continue
			}
			set, rest = rest[1:end], rest[end+1:]
		}
		matches := true
		for _, l := range labels {
			matches = matches && strings.Contains(set, l)
		}
		if !matches {
			continue
		}
		v, err := strconv.ParseFloat(strings.TrimSpace(rest), 64)
		if err != nil {
			return -1
		}
		return v
	}
	return -1
}

func scrapeMetrics(t *testing.T, ctx context.Context, url string) string {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(raw)
}

// TestMetricsEndpointCountsProduceAndGroupConsumeAndLag produces N
// records, consumes them in a consumer group that commits offset M, then
// scrapes the Prometheus endpoint: the traffic counters moved and the
// group's lag is N-M.
func TestMetricsEndpointCountsProduceAndGroupConsumeAndLag(t *testing.T) {
	const (
		topic     = "metered"
		group     = "metered-readers"
		produced  = 25
		committed = 10
	)
	b := karsttest.Start(t, karsttest.WithConfig("karst.metrics.listener", "127.0.0.1:0"),
		karsttest.WithConfig("group.initial.rebalance.delay.ms", "0"))
	ctx := testContext(t)

	producer, err := kgo.NewClient(kgo.SeedBrokers(b.Addr()), kgo.DefaultProduceTopic(topic))
	if err != nil {
		t.Fatal(err)
	}
	defer producer.Close()
	if _, err := kadm.NewClient(producer).CreateTopic(ctx, 1, 1, nil, topic); err != nil {
		t.Fatal(err)
	}
	for range produced {
		if err := producer.ProduceSync(ctx, &kgo.Record{Value: []byte("measured value")}).FirstErr(); err != nil {
			t.Fatal(err)
		}
	}

	consumer, err := kgo.NewClient(kgo.SeedBrokers(b.Addr()), kgo.ConsumerGroup(group), kgo.ConsumeTopics(topic),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()), kgo.DisableAutoCommit())
	if err != nil {
		t.Fatal(err)
	}
	defer consumer.Close()
	pollAtLeast(t, ctx, consumer, produced)
	// Commit a position short of the end, as a consumer still working
	// through the records would.
	var commitErr error
	consumer.CommitOffsetsSync(ctx, map[string]map[int32]kgo.EpochOffset{topic: {0: {Epoch: -1, Offset: committed}}},
		func(_ *kgo.Client, _ *kmsg.OffsetCommitRequest, resp *kmsg.OffsetCommitResponse, err error) {
			commitErr = err
			if resp == nil {
				return
			}
			for _, rt := range resp.Topics {
				for _, rp := range rt.Partitions {
					if e := kerr.ErrorForCode(rp.ErrorCode); e != nil && commitErr == nil {
						commitErr = e
					}
				}
			}
		})
	if commitErr != nil {
		t.Fatalf("commit: %v", commitErr)
	}

	groupLabels := []string{`consumergroup="` + group + `"`, `topic="` + topic + `"`}
	var body string
	for {
		body = scrapeMetrics(t, ctx, b.MetricsURL())
		if metricValue(body, "kafka_consumergroup_current_offset", append(groupLabels, `partition="0"`)...) == committed {
			break
		}
		select {
		case <-ctx.Done():
			t.Fatalf("the committed offset never showed in the scrape:\n%s", grep(body, "kafka_consumergroup"))
		case <-time.After(20 * time.Millisecond):
		}
	}

	for _, c := range []struct {
		name   string
		labels []string
		want   float64
	}{
		{"kafka_consumergroup_lag", append(groupLabels, `partition="0"`), produced - committed},
		{"kafka_consumergroup_lag_sum", groupLabels, produced - committed},
		{"kafka_consumergroup_current_offset_sum", groupLabels, committed},
		{"kafka_consumergroup_members", groupLabels[:1], 1},
		{"kafka_topic_partition_current_offset", []string{`topic="` + topic + `"`, `partition="0"`}, produced},
		{"kafka_topic_partition_oldest_offset", []string{`topic="` + topic + `"`, `partition="0"`}, 0},
		{"kafka_server_brokertopicmetrics_messagesin_total", []string{`topic="` + topic + `"`}, produced},
		{"kafka_server_brokertopicmetrics_totalproducerequests_total", []string{`topic="` + topic + `"`}, produced},
		{"kafka_server_replicamanager_underreplicatedpartitions", nil, 0},
		{"kafka_controller_kafkacontroller_offlinepartitionscount", nil, 0},
		{"kafka_server_delayedoperationpurgatory_purgatorysize", []string{`delayedoperation="Produce"`}, 0},
		// queued.max.request.bytes unset: no pool, as Kafka reports it.
		{"kafka_network_socketserver_memorypoolused", nil, 0},
		{"kafka_network_socketserver_memorypoolavailable", nil, math.MaxInt64},
	} {
		if got := metricValue(body, c.name, c.labels...); got != c.want {
			t.Errorf("%s%v = %v, want %v", c.name, c.labels, got, c.want)
		}
	}
	for _, c := range []struct {
		name    string
		labels  []string
		atLeast float64
	}{
		{"kafka_server_brokertopicmetrics_bytesin_total", []string{`topic="` + topic + `"`}, 1},
		{"kafka_server_brokertopicmetrics_bytesout_total", []string{`topic="` + topic + `"`}, 1},
		{"kafka_server_brokertopicmetrics_totalfetchrequests_total", []string{`topic="` + topic + `"`}, 1},
		{"kafka_network_requestmetrics_requests_total", []string{`request="Produce"`}, produced},
		{"kafka_network_requestmetrics_requests_total", []string{`request="OffsetCommit"`}, 1},
		{"kafka_network_requestmetrics_requests_total", []string{`request="JoinGroup"`}, 1},
		{"kafka_network_requestmetrics_totaltimems_count", []string{`request="Fetch"`}, 1},
		{"kafka_network_requestmetrics_totaltimems", []string{`request="Produce"`, `quantile="0.99"`}, 0},
		{"kafka_log_log_size", []string{`topic="` + topic + `"`, `partition="0"`}, 1},
		{"kafka_server_replicamanager_partitioncount", nil, 1},
		{"kafka_server_connection_count", nil, 1},
		{"kafka_log_logflushstats_logflushrateandtimems_count", nil, 1},
		{"kafka_server_delayedoperationpurgatory_purgatorysize", []string{`delayedoperation="Fetch"`}, 0},
		{"go_goroutines", nil, 1},
	} {
		if got := metricValue(body, c.name, c.labels...); got < c.atLeast {
			t.Errorf("%s%v = %v, want at least %v", c.name, c.labels, got, c.atLeast)
		}
	}
}

// TestMetricsShowParkedFetchesAndFlushes parks a consumer's long poll on
// an empty topic and checks the Fetch purgatory counts it, then produces
// with acks=all and checks the log flush histogram counted the fsync.
func TestMetricsShowParkedFetchesAndFlushes(t *testing.T) {
	// The counting lines are not in internal/handler (Fetch, Produce) and
	// internal/log (flushRound) yet; delete this skip when they are.
	b := karsttest.Start(t, karsttest.WithConfig("karst.metrics.listener", "127.0.0.1:0"))
	ctx := testContext(t)
	cl, err := kgo.NewClient(kgo.SeedBrokers(b.Addr()), kgo.DefaultProduceTopic("quiet"))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	created, err := kadm.NewClient(cl).CreateTopic(ctx, 1, 1, nil, "quiet")
	if err != nil {
		t.Fatal(err)
	}
	// One long poll, sent by hand so no client follows it with another.
	fetch := kmsg.NewPtrFetchRequest()
	fetch.ReplicaID, fetch.MaxWaitMillis, fetch.MinBytes, fetch.MaxBytes = -1, 20_000, 1, 1<<20
	ft := kmsg.NewFetchRequestTopic()
	ft.Topic, ft.TopicID = "quiet", created.ID
	fp := kmsg.NewFetchRequestTopicPartition()
	fp.Partition, fp.FetchOffset, fp.PartitionMaxBytes, fp.LogStartOffset, fp.CurrentLeaderEpoch = 0, 0, 1<<20, -1, -1
	ft.Partitions = append(ft.Partitions, fp)
	fetch.Topics = append(fetch.Topics, ft)
	polled := make(chan error, 1)
	go func() {
		_, err := cl.Request(ctx, fetch)
		polled <- err
	}()

	waitForMetric := func(what string, ok func(body string) bool) string {
		t.Helper()
		for {
			body := scrapeMetrics(t, ctx, b.MetricsURL())
			if ok(body) {
				return body
			}
			select {
			case <-ctx.Done():
				t.Fatalf("%s never showed:\n%s", what, grep(body, "purgatory"))
			case <-time.After(20 * time.Millisecond):
			}
		}
	}
	fetchParked := func(body string) float64 {
		return metricValue(body, "kafka_server_delayedoperationpurgatory_purgatorysize", `delayedoperation="Fetch"`)
	}
	waitForMetric("a parked fetch", func(body string) bool { return fetchParked(body) >= 1 })

	if err := cl.ProduceSync(ctx, &kgo.Record{Value: []byte("wake up")}).FirstErr(); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-polled:
		if err != nil {
			t.Fatal(err)
		}
	case <-ctx.Done():
		t.Fatal("the parked fetch was not woken by the produce")
	}
	body := waitForMetric("the fetch leaving purgatory", func(body string) bool { return fetchParked(body) == 0 })
	if n := metricValue(body, "kafka_log_logflushstats_logflushrateandtimems_count"); n < 1 {
		t.Errorf("log flushes = %v after an acks=all produce, want at least 1", n)
	}
}

// grep keeps the lines of body that mention s, for failure messages.
func grep(body, s string) string {
	var out []string
	for _, l := range strings.Split(body, "\n") {
		if strings.Contains(l, s) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// pollAtLeast polls consumer until it has returned n records.
func pollAtLeast(t *testing.T, ctx context.Context, consumer *kgo.Client, n int) {
	t.Helper()
	for got := 0; got < n; {
		fetches := consumer.PollFetches(ctx)
		if ctx.Err() != nil {
			t.Fatalf("consumed %d of %d records", got, n)
		}
		got += len(fetches.Records())
	}
}

// unlabelledValue returns the value of name's sample without labels (the
// JMX exporter's all-topics BrokerTopicMetrics series), or -1.
func unlabelledValue(body, name string) float64 {
	for _, line := range strings.Split(body, "\n") {
		if rest, ok := strings.CutPrefix(line, name+" "); ok {
			if v, err := strconv.ParseFloat(strings.TrimSpace(rest), 64); err == nil {
				return v
			}
		}
	}
	return -1
}

// dashboardSeries lists the series names the Grafana dashboard's panel
// queries read.
func dashboardSeries(t *testing.T) []string {
	t.Helper()
	raw, err := os.ReadFile("../deploy/grafana/karst-broker.json")
	if err != nil {
		t.Fatal(err)
	}
	var d struct {
		Panels []struct {
			Title   string `json:"title"`
			Targets []struct {
				Expr string `json:"expr"`
			} `json:"targets"`
		} `json:"panels"`
	}
	if err := json.Unmarshal(raw, &d); err != nil {
		t.Fatal(err)
	}
	seriesName := regexp.MustCompile(`\b(?:kafka|process|go)_[a-z0-9_]+`)
	seen := map[string]bool{}
	var names []string
	for _, p := range d.Panels {
		if len(p.Targets) == 0 {
			t.Errorf("panel %q has no query", p.Title)
		}
		for _, q := range p.Targets {
			found := seriesName.FindAllString(q.Expr, -1)
			if len(found) == 0 {
				t.Errorf("panel %q query %q names no series", p.Title, q.Expr)
			}
			for _, n := range found {
				if !seen[n] {
					seen[n] = true
					names = append(names, n)
				}
			}
		}
	}
	return names
}

// TestMetricsUseJMXExporterNamesAndForgetDeletedTopics produces to two
// topics, consumes one in a group, deletes the other, and checks the
// scrape against the names Kafka's JMX exporter writes: per-topic
// BrokerTopicMetrics beside an all-topics series, the deleted topic's
// series gone, and every series the Grafana dashboard queries present.
func TestMetricsUseJMXExporterNamesAndForgetDeletedTopics(t *testing.T) {
	const (
		kept, deleted = "jmx-kept", "jmx-deleted"
		group         = "jmx-readers"
		each          = 7
	)
	b, cl, adm := adminClient(t, karsttest.WithConfig("karst.metrics.listener", "127.0.0.1:0"))
	ctx := testContext(t)
	if _, err := adm.CreateTopics(ctx, 1, 1, nil, kept, deleted); err != nil {
		t.Fatal(err)
	}
	for _, topic := range []string{kept, deleted} {
		for i := range each {
			if err := cl.ProduceSync(ctx, &kgo.Record{Topic: topic, Value: []byte("value " + strconv.Itoa(i))}).FirstErr(); err != nil {
				t.Fatal(err)
			}
		}
	}
	consumer, err := kgo.NewClient(kgo.SeedBrokers(b.Addr()), kgo.ConsumerGroup(group), kgo.ConsumeTopics(kept),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	if err != nil {
		t.Fatal(err)
	}
	defer consumer.Close()
	pollAtLeast(t, ctx, consumer, each)
	if err := consumer.CommitUncommittedOffsets(ctx); err != nil {
		t.Fatal(err)
	}

	before := scrapeMetrics(t, ctx, b.MetricsURL())
	if got := metricValue(before, "kafka_server_brokertopicmetrics_messagesin_total", `topic="`+deleted+`"`); got != each {
		t.Fatalf("messages in %s = %v before the deletion, want %d", deleted, got, each)
	}
	for _, name := range dashboardSeries(t) {
		if !strings.Contains(before, "\n"+name+"{") && !strings.Contains(before, "\n"+name+" ") {
			t.Errorf("the dashboard queries %s, which the scrape does not have", name)
		}
	}

	resp, err := adm.DeleteTopics(ctx, deleted)
	if err == nil {
		err = resp.Error()
	}
	if err != nil {
		t.Fatal(err)
	}
	var after string
	for {
		after = scrapeMetrics(t, ctx, b.MetricsURL())
		if !strings.Contains(after, `topic="`+deleted+`"`) {
			break
		}
		select {
		case <-ctx.Done():
			t.Fatalf("%s's series stayed after its deletion:\n%s", deleted, grep(after, deleted))
		case <-time.After(20 * time.Millisecond):
		}
	}
	for _, c := range []struct {
		name string
		want float64
	}{
		{"kafka_server_brokertopicmetrics_messagesin_total", 2 * each}, // all topics keep what the deleted one added
		{"kafka_server_brokertopicmetrics_totalproducerequests_total", 2 * each},
	} {
		if got := unlabelledValue(after, c.name); got != c.want {
			t.Errorf("all-topics %s = %v, want %v", c.name, got, c.want)
		}
	}
	if got := metricValue(after, "kafka_server_brokertopicmetrics_messagesin_total", `topic="`+kept+`"`); got != each {
		t.Errorf("messages in %s = %v, want %d", kept, got, each)
	}
	if all, one := unlabelledValue(after, "kafka_server_brokertopicmetrics_bytesout_total"),
		metricValue(after, "kafka_server_brokertopicmetrics_bytesout_total", `topic="`+kept+`"`); all < one || one <= 0 {
		t.Errorf("bytes out: all topics %v, %s %v; want the consumed topic's bytes, counted in all topics too", all, kept, one)
	}
	if got := metricValue(after, "kafka_consumergroup_lag", `consumergroup="`+group+`"`, `topic="`+kept+`"`); got != 0 {
		t.Errorf("lag of %s = %v after committing everything, want 0", group, got)
	}
}
