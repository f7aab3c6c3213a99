package console_test

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/karst-broker/karst/karsttest"
)

// TestConsoleAnswersBadRequestsWithTheirReason sends what a typo or a
// stale link sends and checks each page says what is wrong, with a
// status that tells whose mistake it was.
func TestConsoleAnswersBadRequestsWithTheirReason(t *testing.T) {
	b := karsttest.Start(t, karsttest.WithConfig("karst.console.listener", "127.0.0.1:0"))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cl, err := kgo.NewClient(kgo.SeedBrokers(b.Addr()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	if _, err := kadm.NewClient(cl).CreateTopic(ctx, 1, 1, nil, "t"); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		path   string
		status int
		says   string
	}{
		{"/", 200, "Throughput"},
		{"/groups", 200, "No groups."},
		{"/topics/t/messages", 200, "No records."},
		{"/topics/t/messages?limit=999999&offset=5", 200, "0 records from offset 5"},
		{"/topics/t/messages?partition=9", 400, "topic t has no partition 9"},
		{"/topics/t/messages?partition=-1", 400, "partition -1 out of range"},
		{"/topics/t/messages?offset=abc", 400, "offset &#34;abc&#34;: want a number"},
		{"/topics/t/messages?format=xml", 400, "format &#34;xml&#34;"},
		{"/topics/t/messages?timestamp=yesterday", 400, "want Unix milliseconds or RFC 3339"},
		{"/topics/nope", 404, "UNKNOWN_TOPIC_OR_PARTITION"},
		{"/topics/%3Cscript%3E", 404, "&lt;script&gt;"},
		{"/groups/nobody", 404, "GROUP_ID_NOT_FOUND"},
		{"/static/console.css", 200, "font-family"},
		{"/nothing", 404, ""},
	} {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, b.ConsoleURL()+c.path, nil)
		if err != nil {
			t.Fatal(err)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != c.status || !strings.Contains(string(body), c.says) {
			t.Errorf("GET %s: %d, want %d saying %q; body:\n%.2000s", c.path, resp.StatusCode, c.status, c.says, body)
		}
	}
}
