package admincli

import (
	"bufio"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/twmb/franz-go/pkg/kadm"
)

const userSummary = `Manage SCRAM users, as kafka-configs --entity-type users --alter
--add-config 'SCRAM-SHA-256=[password=...]' does (DescribeUserScramCredentials and
AlterUserScramCredentials; the password is salted here, never sent).`

func runUser(ctx context.Context, args []string, s Streams) error {
	return dispatch(ctx, "user", userSummary, []subcommand{
		{"list", "list SCRAM users with their mechanisms and iterations", userList},
		{"describe", "show named users' SCRAM mechanisms and iterations", userDescribe},
		{"set", "create a user or change its password for one mechanism", userSet},
		{"delete", "remove a user's credential for one mechanism", userDelete},
	}, args, s)
}

func userList(ctx context.Context, args []string, s Streams) error {
	f := newFlags(s, "user list", "", "List every user with a SCRAM credential, sorted by name.")
	return describeUsers(ctx, f, args, s, func(operands []string) error { return f.exactly(operands, 0, "no arguments") })
}

func userDescribe(ctx context.Context, args []string, s Streams) error {
	f := newFlags(s, "user describe", "USER...", "Show the SCRAM mechanisms and iterations of each user; a user with none is an error.")
	return describeUsers(ctx, f, args, s, func(operands []string) error { return f.atLeastOne(operands, "USER") })
}

// describeUsers prints USER MECHANISM ITERATIONS for the users named (all
// when none are).
func describeUsers(ctx context.Context, f *flags, args []string, s Streams, check func([]string) error) error {
	var conn connection
	conn.register(f)
	users, adm, done, err := conn.parseAndConnect(ctx, f, args, s, check)
	if err != nil {
		return err
	}
	defer done()
	described, err := adm.DescribeUserSCRAMs(adm.ctx, users...)
	if err != nil {
		return err
	}
	fails := failures{err: s.Err}
	t := newTable(s.Out, "USER", "MECHANISM", "ITERATIONS")
	for _, u := range described.Sorted() {
		if u.Err != nil {
			fails.add(resultErr("describing user "+u.User, u.Err, u.ErrMessage))
			continue
		}
		// Kafka answers the mechanisms in no fixed order.
		creds := slices.SortedFunc(slices.Values(u.CredInfos), func(a, b kadm.CredInfo) int { return int(a.Mechanism) - int(b.Mechanism) })
		for _, c := range creds {
			t.row(u.User, c.Mechanism, c.Iterations)
		}
	}
	t.flush()
	return fails.result()
}

// mechanismFlag parses --mechanism as Kafka names it.
func mechanismFlag(f *flags, name string) (kadm.ScramMechanism, error) {
	switch strings.ToUpper(name) {
	case "SCRAM-SHA-256":
		return kadm.ScramSha256, nil
	case "SCRAM-SHA-512":
		return kadm.ScramSha512, nil
	}
	return 0, usagef(f.help(), "unknown --mechanism %q: want SCRAM-SHA-256 or SCRAM-SHA-512", name)
}

func userSet(ctx context.Context, args []string, s Streams) error {
	f := newFlags(s, "user set", "USER [--mechanism M] [--iterations N] [--password P]",
		"Create USER or change its password for the mechanism. Without --password the\npassword is the first line of stdin, so it stays out of the process list.")
	op := newUserOperation(f)
	iterations := f.Int("iterations", 4096, "SCRAM iterations, 4096 to 16384 as Kafka allows")
	password := f.String("password", "", "the `PASSWORD` (default: read from stdin)")
	user, mech, adm, done, err := op.connect(ctx, args, s)
	if err != nil {
		return err
	}
	defer done()
	if *password == "" {
		line, err := bufio.NewReader(s.In).ReadString('\n')
		*password = strings.TrimRight(line, "\r\n")
		if *password == "" {
			return fmt.Errorf("no password: give --password or a line on stdin (%v)", err)
		}
	}
	altered, err := adm.AlterUserSCRAMs(adm.ctx, nil, []kadm.UpsertSCRAM{{User: user, Mechanism: mech, Iterations: int32(*iterations), Password: *password}})
	return reportAltered(s, altered, err, fmt.Sprintf("set %s credential of user %%s (%d iterations)", mech, *iterations))
}

func userDelete(ctx context.Context, args []string, s Streams) error {
	f := newFlags(s, "user delete", "USER [--mechanism M]", "Remove USER's credential for the mechanism; with none left, the user is gone.")
	user, mech, adm, done, err := newUserOperation(f).connect(ctx, args, s)
	if err != nil {
		return err
	}
	defer done()
	altered, err := adm.AlterUserSCRAMs(adm.ctx, []kadm.DeleteSCRAM{{User: user, Mechanism: mech}}, nil)
	return reportAltered(s, altered, err, fmt.Sprintf("deleted %s credential of user %%s", mech))
}

// userOperation is a command on one USER and one --mechanism.
type userOperation struct {
	f         *flags
	conn      connection
	mechanism *string
}

// newUserOperation registers the connection and --mechanism flags on f.
func newUserOperation(f *flags) *userOperation {
	op := &userOperation{f: f}
	op.conn.register(f)
	op.mechanism = f.String("mechanism", "SCRAM-SHA-256", "`SCRAM-SHA-256` or SCRAM-SHA-512")
	return op
}

// connect parses the arguments (exactly one USER) and connects.
func (op *userOperation) connect(ctx context.Context, args []string, s Streams) (string, kadm.ScramMechanism, *admin, func(), error) {
	operands, adm, done, err := op.conn.parseAndConnect(ctx, op.f, args, s, func(operands []string) error { return op.f.exactly(operands, 1, "USER") })
	if err != nil {
		return "", 0, nil, nil, err
	}
	mech, err := mechanismFlag(op.f, *op.mechanism)
	if err != nil {
		done()
		return "", 0, nil, nil, err
	}
	return operands[0], mech, adm, done, nil
}

// reportAltered prints done (a format with the user's %s) per user
// altered, and each failure on stderr.
func reportAltered(s Streams, altered kadm.AlteredUserSCRAMs, err error, done string) error {
	if err != nil {
		return err
	}
	fails := failures{err: s.Err}
	for _, a := range altered.Sorted() {
		if a.Err != nil {
			fails.add(resultErr("altering user "+a.User, a.Err, a.ErrMessage))
			continue
		}
		fmt.Fprintf(s.Out, done+"\n", a.User)
	}
	return fails.result()
}
