package console_test

import (
	"context"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/karst-broker/karst/karsttest"
)

// TestConsoleShowsKIP848Groups: a group of the KIP-848 consumer protocol,
// which DescribeGroups does not describe (as in Kafka, "not a classic
// group"), is listed with its members and lag and has its page: its
// member, the partitions the broker's assignor gave it, and per partition
// the committed offset and the lag, a partition assigned but never
// committed lagging by all it holds.
func TestConsoleShowsKIP848Groups(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	b := karsttest.Start(t, karsttest.WithConfig("karst.console.listener", "127.0.0.1:0"))
	producer, err := kgo.NewClient(kgo.SeedBrokers(b.Addr()), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	if err != nil {
		t.Fatal(err)
	}
	defer producer.Close()
	if _, err := kadm.NewClient(producer).CreateTopic(ctx, 3, 1, nil, "events"); err != nil {
		t.Fatal(err)
	}
	perPartition := []int{4, 3, 2}
	for p, n := range perPartition {
		for range n {
			if err := producer.ProduceSync(ctx, &kgo.Record{Topic: "events", Partition: int32(p), Value: []byte("v")}).FirstErr(); err != nil {
				t.Fatal(err)
			}
		}
	}
	member := karsttest.KIP848Member(ctx, t, b.Addr(), "kip848-readers", "kip848-member", "events", 9, 0)
	defer member.Close()

	base := b.ConsoleURL()
	resp, body := get(t, ctx, http.DefaultClient, base+"/groups")
	row := regexp.MustCompile(`(?s)<tr data-group="kip848-readers">.*?</tr>`).FindString(body)
	if resp.StatusCode != 200 || !strings.Contains(row, "consumer") || !strings.Contains(row, "<td>1</td>") || !strings.Contains(row, `<td class="lag">5</td>`) {
		t.Errorf("groups page: %d, want kip848-readers of type consumer with 1 member and lag 5; row %q\n%s", resp.StatusCode, row, body)
	}
	resp, body = get(t, ctx, http.DefaultClient, base+"/groups/kip848-readers")
	if resp.StatusCode != 200 || !strings.Contains(body, "kip848-member") || !strings.Contains(body, "<div>events: 0, 1, 2</div>") ||
		!strings.Contains(body, `<span id="total-lag">5</span>`) {
		t.Fatalf("group page: %d\n%s", resp.StatusCode, body)
	}
	for _, want := range []struct {
		partition      string
		committed, lag string
	}{{"0", "4", "0"}, {"1", "none", "3"}, {"2", "none", "2"}} {
		re := regexp.MustCompile(`(?s)<tr data-topic="events" data-partition="` + want.partition + `">.*?</tr>`)
		row := re.FindString(body)
		if !strings.Contains(row, "<td>"+want.committed+"</td>") || !strings.Contains(row, `<td class="lag">`+want.lag+`</td>`) {
			t.Errorf("partition %s: row %q, want committed %s and lag %s", want.partition, row, want.committed, want.lag)
		}
	}
}
