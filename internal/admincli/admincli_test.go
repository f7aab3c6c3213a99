package admincli

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/karst-broker/karst/karsttest"
)

// cli runs admin commands against one test broker.
type cli struct {
	t         *testing.T
	bootstrap string
}

func startCLI(t *testing.T) *cli {
	t.Helper()
	b := karsttest.Start(t, karsttest.WithAutoCreateTopics(false),
		karsttest.WithConfig("group.initial.rebalance.delay.ms", "0"))
	return &cli{t: t, bootstrap: b.Addr()}
}

// run runs `karst ARGS...` with stdin and returns its outputs and status.
func (c *cli) runWithInput(stdin string, args ...string) (stdout, stderr string, status int) {
	c.t.Helper()
	cmd := commandNamed(c.t, args[0])
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var out, errOut bytes.Buffer
	full := append(args[1:len(args):len(args)], "--bootstrap-server", c.bootstrap)
	status = cmd.Run(ctx, full, Streams{In: strings.NewReader(stdin), Out: &out, Err: &errOut})
	return out.String(), errOut.String(), status
}

// ok runs the command and fails the test unless it exits 0.
func (c *cli) ok(args ...string) string {
	c.t.Helper()
	return c.okWithInput("", args...)
}

func (c *cli) okWithInput(stdin string, args ...string) string {
	c.t.Helper()
	out, errOut, status := c.runWithInput(stdin, args...)
	if status != 0 {
		c.t.Fatalf("karst %s: exit %d\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), status, out, errOut)
	}
	return out
}

// fails runs the command, wants exit status want and returns stderr.
func (c *cli) fails(want int, args ...string) string {
	c.t.Helper()
	out, errOut, status := c.runWithInput("", args...)
	if status != want {
		c.t.Fatalf("karst %s: exit %d, want %d\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), status, want, out, errOut)
	}
	return errOut
}

// fields splits output into lines of whitespace-separated fields.
func fields(out string) [][]string {
	var rows [][]string
	for _, line := range strings.Split(strings.TrimRight(out, "\n"), "\n") {
		rows = append(rows, strings.Fields(line))
	}
	return rows
}

// row finds the table row whose first field is first.
func row(t *testing.T, out, first string) []string {
	t.Helper()
	for _, r := range fields(out) {
		if len(r) > 0 && r[0] == first {
			return r
		}
	}
	t.Fatalf("no row %q in:\n%s", first, out)
	return nil
}

func wantEqual(t *testing.T, what, got, want string) {
	t.Helper()
	if got != want {
		t.Errorf("%s:\ngot:\n%s\nwant:\n%s", what, got, want)
	}
}

func commandNamed(t *testing.T, name string) Command {
	t.Helper()
	for _, c := range Commands {
		if c.Name == name {
			return c
		}
	}
	t.Fatalf("no command %q", name)
	return Command{}
}
