package node

import (
	"strings"
	"testing"

	"github.com/karst-broker/karst/internal/server"
)

// TestConsoleListenerChoice: without karst.console.kafka.listener the
// console reads through the first PLAINTEXT listener, else the first
// SASL_PLAINTEXT one (where users log in); a named listener is used when
// the console can dial it.
func TestConsoleListenerChoice(t *testing.T) {
	plain := server.Listener{Name: "INTERNAL"}
	sasl := server.Listener{Name: "CLIENTS", SecurityProtocol: "SASL_PLAINTEXT"}
	tls := server.Listener{Name: "SECURE", SecurityProtocol: "SSL"}
	for _, c := range []struct {
		listeners []server.Listener
		name      string
		want      string
		err       string
	}{
		{[]server.Listener{sasl, plain}, "", "INTERNAL", ""},
		{[]server.Listener{tls, sasl}, "", "CLIENTS", ""},
		{[]server.Listener{plain, sasl}, "clients", "CLIENTS", ""},
		{[]server.Listener{tls}, "", "", "needs a PLAINTEXT or SASL_PLAINTEXT listener"},
		{[]server.Listener{plain, tls}, "SECURE", "", "karst.console.kafka.listener SECURE is SSL"},
		{[]server.Listener{plain}, "OTHER", "", "karst.console.kafka.listener OTHER names no listener"},
	} {
		l, err := consoleListener(c.listeners, c.name)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%v %q: %v, want an error saying %q", c.listeners, c.name, err, c.err)
			}
			continue
		}
		if err != nil || l.Name != c.want {
			t.Errorf("%v %q: %s %v, want %s", c.listeners, c.name, l.Name, err, c.want)
		}
	}
}
