package integration

import (
	"io"
	"net/http"
	"regexp"
	"strconv"
	"testing"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/karst-broker/karst/karsttest"
)

// metricValue returns the value of the first sample matching name and a
// label fragment, or -1.
func metricValue(body, name, labels string) float64 {
	m := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(name) + `\{[^}]*` + regexp.QuoteMeta(labels) + `[^}]*\} ([0-9.e+]+)$`).FindStringSubmatch(body)
	if m == nil {
		return -1
	}
	v, _ := strconv.ParseFloat(m[1], 64)
	return v
}

// TestMetricsEndpointCountsProduceAndFetch scrapes the Prometheus endpoint
// after a produce and a consume and checks the counters moved.
func TestMetricsEndpointCountsProduceAndFetch(t *testing.T) {
	b := karsttest.Start(t, karsttest.WithConfig("karst.metrics.listener", "127.0.0.1:0"))
	ctx := testContext(t)
	cl, err := kgo.NewClient(kgo.SeedBrokers(b.Addr()), kgo.DefaultProduceTopic("metered"), kgo.AllowAutoTopicCreation(),
		kgo.ConsumeTopics("metered"), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	for range 25 {
		if err := cl.ProduceSync(ctx, &kgo.Record{Value: []byte("measured value")}).FirstErr(); err != nil {
			t.Fatal(err)
		}
	}
	for got := 0; got < 25; {
		fetches := cl.PollFetches(ctx)
		if ctx.Err() != nil {
			t.Fatal("records not consumed")
		}
		got += len(fetches.Records())
	}
	resp, err := http.Get(b.MetricsURL())
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	body := string(raw)
	if v := metricValue(body, "kafka_server_brokertopicmetrics_messages_in_total", `topic="metered"`); v != 25 {
		t.Errorf("messages in = %v, want 25", v)
	}
	if v := metricValue(body, "kafka_server_brokertopicmetrics_bytes_in_total", `topic="metered"`); v <= 0 {
		t.Errorf("bytes in = %v", v)
	}
	if v := metricValue(body, "kafka_server_brokertopicmetrics_bytes_out_total", `topic="metered"`); v <= 0 {
		t.Errorf("bytes out = %v", v)
	}
	if v := metricValue(body, "kafka_network_requests_total", `request="Produce"`); v < 25 {
		t.Errorf("Produce requests = %v, want at least 25", v)
	}
	if v := metricValue(body, "kafka_network_request_total_time_seconds_count", `request="Fetch"`); v < 1 {
		t.Errorf("Fetch latency samples = %v", v)
	}
	if !regexp.MustCompile(`(?m)^kafka_server_connection_count [1-9]`).MatchString(body) || !regexp.MustCompile(`(?m)^go_goroutines `).MatchString(body) {
		t.Error("connection count or Go runtime metrics missing")
	}
}
