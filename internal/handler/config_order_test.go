package handler

import (
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// kafkaOrder reads the config names a Kafka 4.4.0 broker answered, in its
// order (testdata/kafka440-describe-*-order.txt: a topic with retention.ms
// and cleanup.policy set, broker 1, a group with
// consumer.session.timeout.ms set).
func kafkaOrder(t *testing.T, kind string) []string {
	t.Helper()
	b, err := os.ReadFile("testdata/kafka440-describe-" + kind + "-order.txt")
	if err != nil {
		t.Fatal(err)
	}
	return strings.Fields(string(b))
}

// inKafkaOrder checks that the names both brokers answer come in Kafka's
// relative order, and that Karst answers every one Kafka does when it
// should answer all.
func inKafkaOrder(t *testing.T, r kmsg.DescribeConfigsResponseResource, kafka []string, all bool) {
	t.Helper()
	var got []string
	for _, c := range r.Configs {
		if slices.Contains(kafka, c.Name) {
			got = append(got, c.Name)
		}
	}
	want := kafka
	if !all {
		want = slices.DeleteFunc(slices.Clone(kafka), func(n string) bool { return !slices.Contains(got, n) })
	}
	if !slices.Equal(got, want) {
		t.Fatalf("order:\n got %v\nwant %v", got, want)
	}
}

func TestDescribeConfigsInKafkaOrder(t *testing.T) {
	f := newAdminFixture(t, nil)
	f.createTopic("mid", 1, map[string]*string{"retention.ms": strp("1000"), "cleanup.policy": strp("compact")})
	inKafkaOrder(t, describeConfigs(f, 4, false, false, kmsg.ConfigResourceTypeTopic, "mid"), kafkaOrder(t, "topic"), true)
	// A request naming keys gets them in the same order, not the request's.
	r := describeConfigs(f, 4, false, false, kmsg.ConfigResourceTypeTopic, "mid", "segment.ms", "retention.ms", "cleanup.policy", "compression.type")
	inKafkaOrder(t, r, kafkaOrder(t, "topic"), false)
	if len(r.Configs) != 4 || r.Configs[0].Name != "compression.type" {
		t.Fatalf("named keys: %+v", r.Configs)
	}
	inKafkaOrder(t, describeConfigs(f, 4, false, false, kmsg.ConfigResourceTypeBroker, "1"), kafkaOrder(t, "broker"), false)
	alterResource(f, kmsg.ConfigResourceTypeGroupConfig, "g1", "consumer.session.timeout.ms", "50000")
	inKafkaOrder(t, describeConfigs(f, 4, false, false, kmsg.ConfigResourceTypeGroupConfig, "g1"), kafkaOrder(t, "group"), true)
}

// Measured on Kafka 4.4.0 with these groups, subscriptions and topics
// (names whose buckets tie are left out: Kafka breaks ties by creation).
func TestListConfigResourcesInKafkaOrder(t *testing.T) {
	f := newAdminFixture(t, nil)
	for _, g := range []string{"g2", "zz", "a", "g1"} {
		alterResource(f, kmsg.ConfigResourceTypeGroupConfig, g, "consumer.session.timeout.ms", "50000")
	}
	for _, c := range []string{"x1", "abc", "yy", "a9", "q"} {
		alterResource(f, kmsg.ConfigResourceTypeClientMetrics, c, "interval.ms", "2000")
	}
	for _, tp := range []string{"alpha", "Topic-B", "zeta", "b", "negtopic_hash_zzzzzzzzzz", "mid"} {
		f.createTopic(tp, 1, nil)
	}
	resp := f.call(kmsg.NewPtrListConfigResourcesRequest(), 1).(*kmsg.ListConfigResourcesResponse)
	var got []string
	for _, r := range resp.ConfigResources {
		got = append(got, strconv.Itoa(int(r.Type))+":"+r.Name)
	}
	want := []string{"32:zz", "32:a", "32:g1", "32:g2", "16:yy", "16:q", "16:abc", "16:a9", "16:x1", "8:1", "4:1",
		"2:negtopic_hash_zzzzzzzzzz", "2:b", "2:mid", "2:zeta", "2:alpha", "2:Topic-B"}
	if !slices.Equal(got, want) {
		t.Fatalf("got  %v\nwant %v", got, want)
	}
}
