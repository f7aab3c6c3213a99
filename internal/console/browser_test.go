package console_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/karst-broker/karst/karsttest"
)

// chromiumPath finds Debian's chromium. CI installs it (.ci/run), so a CI
// run without it fails; elsewhere the test is skipped with the reason.
func chromiumPath(t *testing.T) string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") != "" {
		t.Fatal("no chromium on PATH; .ci/run installs Debian's chromium package")
	}
	t.Skip("no chromium on PATH (apt-get install chromium)")
	return ""
}

// screenshotDir is $KARST_ARTIFACTS/console (CI keeps it), else a
// directory of the test's own.
func screenshotDir(t *testing.T) string {
	dir := t.TempDir()
	if a := os.Getenv("KARST_ARTIFACTS"); a != "" {
		dir = filepath.Join(a, "console")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// browserSession drives one headless Chromium tab against the console.
type browserSession struct {
	t     *testing.T
	ctx   context.Context
	base  string
	shots string
	loads []string
}

func (s *browserSession) run(what string, steps ...chromedp.Action[chromedp.Void]) {
	s.t.Helper()
	ctx, cancel := context.WithTimeout(s.ctx, 15*time.Second)
	defer cancel()
	if err := chromedp.Do(ctx, steps...); err != nil {
		s.t.Fatalf("%s: %v", what, err)
	}
}

// value runs one action that returns a value. Queries wait for their
// element to appear, so each run is bounded: a missing element fails in
// seconds, not at the test's deadline.
func value[T any](s *browserSession, what string, a chromedp.Action[T]) T {
	s.t.Helper()
	ctx, cancel := context.WithTimeout(s.ctx, 15*time.Second)
	defer cancel()
	v, err := chromedp.Run(ctx, a)
	if err != nil {
		s.t.Fatalf("%s: %v", what, err)
	}
	return v
}

func (s *browserSession) attr(sel, name string) string {
	s.t.Helper()
	return value(s, "read "+name+" of "+sel, chromedp.AttributeValue(chromedp.CSS(sel), name)).Value
}

// open loads path and waits for the page's heading, noting the time.
func (s *browserSession) open(path string) {
	s.t.Helper()
	start := time.Now()
	s.run("open "+path, chromedp.Navigate(s.base+path), chromedp.WaitVisible(chromedp.CSS("main h1")))
	// The browser's own measure: navigation start to the load event.
	loaded := value(s, "navigation timing of "+path, chromedp.Evaluate[float64](
		`(() => { const n = performance.getEntriesByType("navigation")[0]; return n.loadEventEnd - n.startTime })()`))
	s.loads = append(s.loads, fmt.Sprintf("%s %.0f ms (%s with the driver)", path, loaded, time.Since(start).Round(time.Millisecond)))
	errs := value(s, "read errors on "+path, chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll(".error")).map(e => e.textContent)`))
	if len(errs) > 0 {
		s.t.Fatalf("%s shows an error: %s", path, strings.Join(errs, "; "))
	}
}

// text is the text of the first element sel matches.
func (s *browserSession) text(sel string) string {
	s.t.Helper()
	return strings.TrimSpace(value(s, "read "+sel, chromedp.Text(chromedp.CSS(sel))))
}

// until reloads the page until ok holds, for what the server renders from
// state that changes (lag, samples).
func (s *browserSession) until(what string, ok func() bool) {
	s.t.Helper()
	for !ok() {
		select {
		case <-s.ctx.Done():
			s.t.Fatalf("%s never showed", what)
		case <-time.After(100 * time.Millisecond):
		}
		s.run("reload", chromedp.Reload(), chromedp.WaitVisible(chromedp.CSS("main h1")))
	}
}

// submit fills the message browser's form and submits it, then waits
// until the browser is on the page the form asked for.
func (s *browserSession) submit(fields map[string]string) {
	s.t.Helper()
	format := fields["format"]
	if format == "" {
		format = "text"
	}
	form := map[string]string{"offset": fields["offset"], "timestamp": fields["timestamp"], "key": fields["key"], "format": format}
	js, err := json.Marshal(form)
	if err != nil {
		s.t.Fatal(err)
	}
	// Typed in as a user would leave them: every field set, the rest emptied.
	value(s, "fill the form", chromedp.Evaluate[bool](`(() => { const f = `+string(js)+`;
		for (const [id, v] of Object.entries(f)) document.getElementById(id).value = v; return true })()`))
	s.run("submit", chromedp.Click(chromedp.ID("go")))
	for {
		// Read while the tab navigates, the location may be refused
		// ("Inspected target navigated or closed"): asked again.
		loc, err := chromedp.Run(s.ctx, chromedp.Location())
		u, perr := url.Parse(loc)
		if err == nil && perr == nil && u.Query().Get("format") == format && u.Query().Get("key") == fields["key"] && u.Query().Get("offset") == fields["offset"] {
			break
		}
		select {
		case <-s.ctx.Done():
			s.t.Fatalf("the form never loaded its page (at %s)", loc)
		case <-time.After(20 * time.Millisecond):
		}
	}
	s.run("wait for records", chromedp.WaitVisible(chromedp.ID("records")))
}

func (s *browserSession) screenshot(name string) {
	s.t.Helper()
	png := value(s, "screenshot "+name, chromedp.FullScreenshot(100))
	if err := os.WriteFile(filepath.Join(s.shots, name+".png"), png, 0o644); err != nil {
		s.t.Fatal(err)
	}
}

// startBrowser starts chromium with one tab on the console at base; it
// closes when the test ends.
func startBrowser(t *testing.T, ctx context.Context, chromium, base string) *browserSession {
	t.Helper()
	alloc, cancelAlloc := chromedp.NewExecAllocator(ctx, append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chromium), chromedp.NoSandbox, chromedp.WindowSize(1280, 900))...)
	t.Cleanup(cancelAlloc)
	tab, cancelTab := chromedp.NewContext(alloc)
	t.Cleanup(cancelTab)
	// The first run starts the browser, which lives as long as that run's
	// context: the tab's, not one of the bounded ones the steps use.
	if err := chromedp.Do(tab); err != nil {
		t.Fatalf("starting %s: %v", chromium, err)
	}
	return &browserSession{t: t, ctx: tab, base: base, shots: screenshotDir(t)}
}

// TestConsoleInHeadlessChromium clicks through every console page in a
// real Chromium: the overview's throughput after a produce, the topic
// list, a topic's partitions and configs, a message found by offset, by
// key (as text, JSON and hex) and by timestamp, and a consumer group's
// members and lag, which updates as records arrive and offsets are
// committed.
func TestConsoleInHeadlessChromium(t *testing.T) {
	chromium := chromiumPath(t)
	b := karsttest.Start(t, karsttest.WithConfig("karst.console.listener", "127.0.0.1:0"),
		karsttest.WithConfig("karst.console.sample.interval.ms", "200"),
		karsttest.WithConfig("group.initial.rebalance.delay.ms", "0"))
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	cl, err := kgo.NewClient(kgo.SeedBrokers(b.Addr()), kgo.RecordPartitioner(kgo.StickyKeyPartitioner(nil)))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	adm := kadm.NewClient(cl)
	if _, err := adm.CreateTopic(ctx, 3, 1, map[string]*string{"retention.ms": kadm.StringPtr("86400000")}, "orders"); err != nil {
		t.Fatal(err)
	}
	var target *kgo.Record
	for i := range 30 {
		r := &kgo.Record{Topic: "orders", Key: fmt.Appendf(nil, "order-%02d", i), Value: fmt.Appendf(nil, `{"n":%d,"item":"widget"}`, i),
			Headers: []kgo.RecordHeader{{Key: "source", Value: []byte("console-test")}}}
		if err := cl.ProduceSync(ctx, r).FirstErr(); err != nil {
			t.Fatal(err)
		}
		if i == 17 {
			target = r
		}
	}

	s := startBrowser(t, ctx, chromium, b.ConsoleURL())

	// The overview: the broker, and the produce in the throughput chart.
	s.open("/")
	if got := s.text("#topic-count"); got == "" || got == "0" {
		t.Errorf("overview shows %q topics", got)
	}
	if got := s.text("#brokers tbody tr td"); got != "1" {
		t.Errorf("overview's first broker is %q, want node 1", got)
	}
	peak := func() bool {
		f, _ := strconv.ParseFloat(s.attr(`figure[data-name="Messages in"]`, "data-max"), 64)
		return f > 0
	}
	// A record produced now lands in an interval the sampler has still
	// to close.
	if err := cl.ProduceSync(ctx, &kgo.Record{Topic: "orders", Partition: 0, Key: []byte("late"), Value: []byte("after the first sample")}).FirstErr(); err != nil {
		t.Fatal(err)
	}
	s.until("messages in on the throughput chart", peak)
	s.screenshot("overview")

	// The topic list and one topic.
	s.open("/topics")
	if got := s.text(`tr[data-topic="orders"] td.records`); got != "31" {
		t.Errorf("topics page shows %q records in orders, want 31", got)
	}
	s.screenshot("topics")
	s.run("click orders", chromedp.Click(chromedp.CSS(`tr[data-topic="orders"] a`)), chromedp.WaitVisible(chromedp.ID("partitions")))
	partitions := value(s, "count partitions", chromedp.Evaluate[int](`document.querySelectorAll("#partitions tbody tr").length`))
	if partitions != 3 {
		t.Errorf("topic page shows %d partitions, want 3", partitions)
	}
	if got := s.text(`tr[data-config="retention.ms"] td:nth-child(2)`); got != "86400000" {
		t.Errorf("retention.ms shows %q, want 86400000", got)
	}
	s.screenshot("topic")

	// The message browser: the target record by offset, then by key.
	s.run("open the target's partition", chromedp.Click(chromedp.CSS(fmt.Sprintf(`tr[data-partition="%d"] a`, target.Partition))),
		chromedp.WaitVisible(chromedp.ID("browse")))
	offset := strconv.FormatInt(target.Offset, 10)
	s.submit(map[string]string{"offset": offset})
	row := fmt.Sprintf(`tr[data-offset="%d"]`, target.Offset)
	if got := s.text(row + " td.key"); got != "order-17" {
		t.Errorf("offset %d shows key %q, want order-17", target.Offset, got)
	}
	if got := s.text(row + " td.headers"); !strings.Contains(got, "source") || !strings.Contains(got, "console-test") {
		t.Errorf("offset %d shows headers %q, want source: console-test", target.Offset, got)
	}
	s.screenshot("messages-by-offset")

	s.submit(map[string]string{"key": "order-17", "format": "json"})
	keys := value(s, "read keys", chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll("#records td.key pre")).map(e => e.textContent)`))
	if len(keys) != 1 || keys[0] != "order-17" {
		t.Errorf("searching key order-17 shows keys %q, want only order-17", keys)
	}
	if got := s.text(row + " td.value"); !strings.Contains(got, `"n": 17`) {
		t.Errorf("value as JSON is %q, want it indented with \"n\": 17", got)
	}
	s.screenshot("messages-by-key-json")
	s.submit(map[string]string{"key": "order-17", "format": "hex"})
	if got := s.text(row + " td.value"); !strings.Contains(got, "7b 22 6e 22") { // {"n"
		t.Errorf("value as hex is %q, want a hex dump starting 7b 22 6e 22", got)
	}
	s.submit(map[string]string{"timestamp": strconv.FormatInt(target.Timestamp.UnixMilli(), 10)})
	first := s.attr("#records tbody tr", "data-offset")
	if n, err := strconv.ParseInt(first, 10, 64); err != nil || n > target.Offset {
		t.Errorf("by the target's timestamp the first record is at offset %q, want at most %d", first, target.Offset)
	}

	// A consumer group's members and lag, updated as it changes.
	if _, err := adm.CreateTopic(ctx, 1, 1, nil, "lagging"); err != nil {
		t.Fatal(err)
	}
	produce := func(n int) {
		for range n {
			if err := cl.ProduceSync(ctx, &kgo.Record{Topic: "lagging", Value: []byte("work")}).FirstErr(); err != nil {
				t.Fatal(err)
			}
		}
	}
	produce(10)
	reader, err := kgo.NewClient(kgo.SeedBrokers(b.Addr()), kgo.ConsumerGroup("console-readers"), kgo.ConsumeTopics("lagging"),
		kgo.ClientID("console-reader"), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()), kgo.DisableAutoCommit())
	if err != nil {
		t.Fatal(err)
	}
	defer reader.Close()
	for got := 0; got < 10; {
		got += len(reader.PollFetches(ctx).Records())
		if ctx.Err() != nil {
			t.Fatal("the group's member consumed nothing")
		}
	}
	commit := func(at int64) {
		t.Helper()
		if err := reader.CommitRecords(ctx, &kgo.Record{Topic: "lagging", Partition: 0, Offset: at - 1, LeaderEpoch: -1}); err != nil {
			t.Fatal(err)
		}
	}
	commit(4)
	s.open("/groups")
	if got := s.text(`tr[data-group="console-readers"] td.lag`); got != "6" {
		t.Errorf("groups page shows lag %q for console-readers, want 6", got)
	}
	s.screenshot("groups")
	s.run("click the group", chromedp.Click(chromedp.CSS(`tr[data-group="console-readers"] a`)), chromedp.WaitVisible(chromedp.ID("lag")))
	if got := s.text("#members tbody"); !strings.Contains(got, "console-reader") || !strings.Contains(got, "lagging: 0") {
		t.Errorf("members show %q, want client console-reader assigned lagging: 0", got)
	}
	if got := s.text("#total-lag"); got != "6" {
		t.Errorf("group page shows total lag %q, want 6", got)
	}
	s.screenshot("group-lag-6")
	produce(5)
	s.until("lag 11 after five more records", func() bool { return s.text("#total-lag") == "11" })
	commit(15)
	s.until("lag 0 after committing the end", func() bool { return s.text("#total-lag") == "0" })
	s.screenshot("group-lag-0")

	// A share group: listed with its type, its page with the member and
	// the share-partition it is assigned.
	if _, err := adm.CreateTopic(ctx, 1, 1, nil, "jobs"); err != nil {
		t.Fatal(err)
	}
	worker, err := kgo.NewClient(kgo.SeedBrokers(b.Addr()), kgo.ShareGroup("console-workers"), kgo.ConsumeTopics("jobs"), kgo.ClientID("console-worker"))
	if err != nil {
		t.Fatal(err)
	}
	defer worker.Close()
	produced := 0
	for read := 0; read == 0; {
		// A new share group starts at the log end (share.auto.offset.reset
		// latest): only what is produced once the member is in is
		// delivered, so each round produces one more and polls a while.
		if err := cl.ProduceSync(ctx, &kgo.Record{Topic: "jobs", Value: []byte("job")}).FirstErr(); err != nil {
			t.Fatal(err)
		}
		produced++
		pollCtx, cancel := context.WithTimeout(ctx, time.Second)
		read = worker.PollFetches(pollCtx).NumRecords()
		cancel()
		if ctx.Err() != nil {
			t.Fatal("the share group's member read nothing")
		}
	}
	s.open("/groups")
	if got := s.text(`tr[data-group="console-workers"] td.type`); got != "share share" {
		t.Errorf("groups page shows type %q for console-workers, want share share", got)
	}
	s.run("click the share group", chromedp.Click(chromedp.CSS(`tr[data-group="console-workers"] a`)), chromedp.WaitVisible(chromedp.ID("lag")))
	if got := s.text("#type"); got != "share" {
		t.Errorf("share group page shows type %q", got)
	}
	if got := s.text("#members tbody"); !strings.Contains(got, "console-worker") || !strings.Contains(got, "jobs: 0") {
		t.Errorf("share group members show %q, want client console-worker assigned jobs: 0", got)
	}
	if got := s.text(`#lag thead`); !strings.Contains(got, "Start offset") {
		t.Errorf("share group partitions header %q, want a Start offset column", got)
	}
	share := `#lag tr[data-topic="jobs"][data-partition="0"]`
	if got := s.text(share + " td.end"); got != strconv.Itoa(produced) {
		t.Errorf("share-partition jobs 0 shows log end %q, want %d", got, produced)
	}
	if id, got := s.text("#members tbody tr td"), s.text(share+" td.member"); id == "" || !strings.HasPrefix(got, id) {
		t.Errorf("share-partition jobs 0 shows member %q, want the member's id %q", got, id)
	}
	s.screenshot("share-group")

	for _, path := range []string{"/topics", "/topics/orders", "/topics/orders/messages?partition=0", "/topics/orders/messages?partition=0&key=order-17&format=json", "/groups", "/groups/console-readers", "/groups/console-workers", "/"} {
		s.open(path) // once more each, warm, for the load times below
	}
	t.Logf("page loads (navigate to heading visible): %s", strings.Join(s.loads, ", "))
	t.Logf("process RSS (broker, test and clients in one process) with the console open: %s; screenshots in %s", s.text("#rss"), s.shots)
}

// TestConsoleLoginInHeadlessChromium logs in to a console on a
// SASL_PLAINTEXT listener with the StandardAuthorizer as a user would:
// sent to the login page, refused with the broker's own words for a wrong
// password, then in as User:alice, who finds her record in orders, is
// refused secret with the broker's TOPIC_AUTHORIZATION_FAILED, sees it
// once an admin grants her READ, and logs out.
func TestConsoleLoginInHeadlessChromium(t *testing.T) {
	chromium := chromiumPath(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	c := startSecuredConsole(t, ctx)
	s := startBrowser(t, ctx, chromium, c.b.ConsoleURL())

	// logIn submits the form and waits for what only the next page has.
	logIn := func(user, password, next string) {
		s.t.Helper()
		s.run("fill the login form", chromedp.SetValue(chromedp.ID("user"), user), chromedp.SetValue(chromedp.ID("password"), password),
			chromedp.Click(chromedp.ID("log-in")), chromedp.WaitVisible(chromedp.CSS(next)))
	}
	location := func() string {
		u, err := url.Parse(value(s, "location", chromedp.Location()))
		if err != nil {
			t.Fatal(err)
		}
		return u.RequestURI()
	}

	s.run("open a topic's messages", chromedp.Navigate(s.base+"/topics/orders/messages?partition=0&key=orders-key-b"),
		chromedp.WaitVisible(chromedp.ID("log-in")))
	if got := s.text("main h1"); got != "Log in" {
		t.Fatalf("without a login the console shows %q, want the login page", got)
	}
	if got := value(s, "mechanism", chromedp.Evaluate[string](`document.getElementById("mechanism").value`)); got != "SCRAM-SHA-512" {
		t.Errorf("the form's mechanism is %q, want SCRAM-SHA-512", got)
	}
	logIn("alice", "not-her-password", "#error")
	if got := s.text("#error"); !strings.Contains(got, "SASL_AUTHENTICATION_FAILED") || !strings.Contains(got, "invalid credentials") {
		t.Errorf("a wrong password shows %q, want the broker's SASL_AUTHENTICATION_FAILED", got)
	}
	s.screenshot("login-refused")

	logIn("alice", "alice-secret", "#principal")
	if got := location(); got != "/topics/orders/messages?partition=0&key=orders-key-b" {
		t.Errorf("after the login the browser is at %s, want the page it asked for", got)
	}
	if got := s.text("#principal"); got != "User:alice" {
		t.Errorf("the header shows %q, want User:alice", got)
	}
	keys := value(s, "read keys", chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll("#records td.key pre")).map(e => e.textContent)`))
	if len(keys) != 1 || keys[0] != "orders-key-b" {
		t.Errorf("alice searching orders for orders-key-b sees keys %q", keys)
	}
	s.screenshot("login-allowed-messages")

	s.open("/topics")
	topics := value(s, "read topics", chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll("#topics tr[data-topic]")).map(e => e.dataset.topic)`))
	if len(topics) != 1 || topics[0] != "orders" {
		t.Errorf("alice's topic list is %q, want only orders (secret is not hers to describe)", topics)
	}
	if got := s.text("#sizes-refused"); !strings.Contains(got, "CLUSTER_AUTHORIZATION_FAILED") {
		t.Errorf("sizes note %q, want the broker's CLUSTER_AUTHORIZATION_FAILED", got)
	}

	// The other pages load for her too: what she may not describe is
	// left out, not an error.
	s.open("/")
	s.open("/groups")
	s.open("/topics/orders")
	if got := s.text("#configs-refused"); !strings.Contains(got, "TOPIC_AUTHORIZATION_FAILED") {
		t.Errorf("orders' configs note %q, want the broker's TOPIC_AUTHORIZATION_FAILED (alice has no DESCRIBE_CONFIGS)", got)
	}
	if n := value(s, "count partitions", chromedp.Evaluate[int](`document.querySelectorAll("#partitions tbody tr").length`)); n != 1 {
		t.Errorf("orders shows %d partitions to alice, want 1", n)
	}

	secret := "/topics/secret/messages?partition=0"
	s.run("open secret", chromedp.Navigate(s.base+secret), chromedp.WaitVisible(chromedp.ID("error")))
	if got := s.text("#error"); !strings.HasPrefix(got, "TOPIC_AUTHORIZATION_FAILED") {
		t.Errorf("secret shows %q, want the broker's TOPIC_AUTHORIZATION_FAILED", got)
	}
	if n := value(s, "count records", chromedp.Evaluate[int](`document.querySelectorAll("#records, #summary").length`)); n != 0 {
		t.Errorf("the refused page shows %d record tables or summaries", n)
	}
	s.screenshot("login-refused-topic")

	c.grant(t, ctx, kadm.NewACLs().Allow("User:alice").Topics("secret").Operations(kadm.OpRead, kadm.OpDescribe))
	s.until("secret's records once alice may read it", func() bool {
		return value(s, "count records", chromedp.Evaluate[int](`document.querySelectorAll("#records tr[data-offset]").length`)) == 3
	})
	s.screenshot("login-granted-topic")

	s.run("log out", chromedp.Click(chromedp.ID("log-out")), chromedp.WaitVisible(chromedp.ID("log-in")))
	s.run("open secret again", chromedp.Navigate(s.base+secret), chromedp.WaitVisible(chromedp.ID("log-in")))
	if got := s.text("main h1"); got != "Log in" {
		t.Errorf("after logging out secret shows %q, want the login page", got)
	}
}

// TestConsoleTokenLoginInHeadlessChromium: on a SASL_SSL listener with
// OAUTHBEARER, a user pastes a token into the login page's token form: an
// expired one shows the broker's refusal, bob's lands him on the page he
// asked for as User:bob, seeing only the topic his ACLs let him describe,
// and its records; logging out ends the session.
func TestConsoleTokenLoginInHeadlessChromium(t *testing.T) {
	chromium := chromiumPath(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	tb, token := startTokenBroker(t, ctx)
	s := startBrowser(t, ctx, chromium, tb.b.ConsoleURL())
	paste := func(tok, next string) {
		s.t.Helper()
		s.run("paste a token", chromedp.SetValue(chromedp.ID("token"), tok), chromedp.Click(chromedp.ID("log-in-token")), chromedp.WaitVisible(chromedp.CSS(next)))
	}

	s.run("open the topics", chromedp.Navigate(s.base+"/topics"), chromedp.WaitVisible(chromedp.ID("log-in-token")))
	paste(token(nil, time.Now().Add(-time.Minute)), "#error")
	if got := s.text("#error"); !strings.Contains(got, "SASL_AUTHENTICATION_FAILED") || !strings.Contains(got, "invalid_token") {
		t.Errorf("an expired token shows %q, want the broker's SASL_AUTHENTICATION_FAILED", got)
	}
	s.screenshot("token-login-refused")

	paste(token(nil, time.Now().Add(time.Hour)), "#principal")
	if got := s.text("#principal"); got != "User:bob" {
		t.Errorf("the header shows %q, want User:bob", got)
	}
	topics := value(s, "read topics", chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll("#topics tr[data-topic]")).map(e => e.dataset.topic)`))
	if len(topics) != 1 || topics[0] != "secret" {
		t.Errorf("bob's topic list is %q, want only secret", topics)
	}
	s.screenshot("token-login-topics")
	s.open("/topics/secret/messages?partition=0")
	if n := value(s, "count records", chromedp.Evaluate[int](`document.querySelectorAll("#records tr[data-offset]").length`)); n != 3 {
		t.Errorf("bob sees %d of secret's 3 records", n)
	}
	s.run("log out", chromedp.Click(chromedp.ID("log-out")), chromedp.WaitVisible(chromedp.ID("log-in-token")))
}
