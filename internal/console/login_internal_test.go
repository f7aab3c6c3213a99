package console

import (
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// TestSessionsEndWithTheirToken: a session ends when it is idle past the
// timeout, or at its credential's expiry however recently it was used (a
// token the broker will refuse from then on); one without an expiry ends
// only idle.
func TestSessionsEndWithTheirToken(t *testing.T) {
	now := time.Now()
	token := &session{lastUsed: now, expires: now.Add(time.Minute)}
	password := &session{lastUsed: now}
	for _, c := range []struct {
		what string
		s    *session
		at   time.Time
		over bool
	}{
		{"a token before its expiry", token, now.Add(59 * time.Second), false},
		{"a token at its expiry", token, now.Add(time.Minute), true},
		{"a password login used a minute ago", password, now.Add(time.Minute), false},
		{"a password login idle past the timeout", password, now.Add(time.Hour + time.Second), true},
	} {
		if got := c.s.over(c.at, time.Hour); got != c.over {
			t.Errorf("%s: over %v, want %v", c.what, got, c.over)
		}
	}

	cl, err := kgo.NewClient(kgo.SeedBrokers("127.0.0.1:1"))
	if err != nil {
		t.Fatal(err)
	}
	ss := newSessions(time.Hour)
	expired, err := ss.add(&kafka{client: cl}, now.Add(-time.Second))
	if err != nil {
		t.Fatal(err)
	}
	live, err := ss.add(&kafka{client: cl}, now.Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := ss.get(expired); ok {
		t.Error("a session whose token expired is still live")
	}
	if _, ok := ss.get(live); !ok {
		t.Error("a session whose token has an hour left ended")
	}
}
