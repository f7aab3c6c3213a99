package admincli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"sort"
	"strings"
)

// Exit statuses, as the rest of the karst binary uses them.
const (
	exitOK      = 0
	exitFailed  = 1 // the broker refused, or the connection failed
	exitUsage   = 2 // bad arguments
	defaultPeer = "127.0.0.1:9092"
)

// Streams are the command's standard input and outputs.
type Streams struct {
	In       io.Reader
	Out, Err io.Writer
}

// Command is one top-level admin command (topic, produce, ...).
type Command struct {
	Name     string
	Synopsis string
	// run executes the command with its arguments after the name.
	run func(ctx context.Context, args []string, s Streams) error
}

// Commands are the admin commands in the order `karst help` lists them.
var Commands = []Command{
	{"topic", "create, list, describe, alter and delete topics", runTopic},
	{"produce", "write records read from stdin to a topic (like kcat -P)", runProduce},
	{"consume", "print a topic's records (like kcat -C)", runConsume},
	{"group", "list, describe (with lag), reset offsets of and delete consumer groups", runGroup},
	{"config", "get and set topic, broker and group configs", runConfig},
	{"cluster", "show the cluster id, controller and brokers", runCluster},
	{"user", "list, describe, set and delete SCRAM users", runUser},
	{"acl", "list, create and delete ACLs", runACL},
}

// Run runs the command with its arguments and returns the exit status.
// ctx ends the command early (Ctrl-C for a consume without an end).
func (c Command) Run(ctx context.Context, args []string, s Streams) int {
	err := c.run(ctx, args, s)
	var usage usageError
	var reported reportedError
	switch {
	case err == nil:
		return exitOK
	case errors.Is(err, flag.ErrHelp):
		return exitOK
	case errors.As(err, &reported):
		return exitFailed
	case errors.As(err, &usage):
		fmt.Fprintf(s.Err, "karst %s: %v\n", c.Name, usage.err)
		if usage.help != "" {
			fmt.Fprintf(s.Err, "\n%s", usage.help)
		}
		return exitUsage
	default:
		fmt.Fprintf(s.Err, "karst %s: %v\n", c.Name, err)
		return exitFailed
	}
}

// usageError is a mistake in the arguments; help is the usage to show.
type usageError struct {
	err  error
	help string
}

func (u usageError) Error() string { return u.err.Error() }

func usagef(help, format string, args ...any) error {
	return usageError{err: fmt.Errorf(format, args...), help: help}
}

// subcommand is one verb of a command with verbs (topic create, ...).
type subcommand struct {
	name, synopsis string
	run            func(ctx context.Context, args []string, s Streams) error
}

// dispatch picks the verb named by args[0]; help lists the verbs.
func dispatch(ctx context.Context, command, summary string, subs []subcommand, args []string, s Streams) error {
	var help strings.Builder
	fmt.Fprintf(&help, "usage: karst %s VERB [ARGS]\n\n%s\n\nverbs:\n", command, summary)
	for _, sub := range subs {
		fmt.Fprintf(&help, "  %-14s %s\n", sub.name, sub.synopsis)
	}
	fmt.Fprintf(&help, "\nRun 'karst %s VERB --help' for a verb's flags.\n", command)
	if len(args) == 0 {
		return usageError{err: errors.New("missing verb"), help: help.String()}
	}
	if isHelp(args[0]) || args[0] == "help" {
		fmt.Fprint(s.Out, help.String())
		return flag.ErrHelp
	}
	for _, sub := range subs {
		if sub.name == args[0] {
			return sub.run(ctx, args[1:], s)
		}
	}
	return usageError{err: fmt.Errorf("unknown verb %q", args[0]), help: help.String()}
}

func isHelp(arg string) bool { return arg == "-h" || arg == "--help" || arg == "-help" }

// flags is a verb's flag set with its usage text; parse accepts flags and
// positional arguments in any order, as Kafka's tools and kcat do.
type flags struct {
	*flag.FlagSet
	usage  string
	out    io.Writer
	shorts map[string]string // long name → its one-letter alias
}

// newFlags starts a verb's flag set. synopsis is the usage line's
// arguments, about says what the verb does.
func newFlags(s Streams, name, synopsis, about string) *flags {
	f := &flags{FlagSet: flag.NewFlagSet(name, flag.ContinueOnError), out: s.Out, shorts: map[string]string{}}
	f.usage = fmt.Sprintf("usage: karst %s %s\n\n%s\n", name, synopsis, about)
	f.SetOutput(io.Discard)
	return f
}

// alias lets -short stand for the --long flag defined before it, as kcat's
// one-letter flags stand beside Kafka's long ones.
func (f *flags) alias(short, long string) {
	f.Var(f.Lookup(long).Value, short, "")
	f.shorts[long] = short
}

// longName is the flag an alias stands for, or name itself.
func (f *flags) longName(name string) string {
	for long, short := range f.shorts {
		if short == name {
			return long
		}
	}
	return name
}

// help is the usage text with every flag, in the order they sort.
func (f *flags) help() string {
	aliases := map[string]bool{}
	for _, short := range f.shorts {
		aliases[short] = true
	}
	var b strings.Builder
	b.WriteString(f.usage)
	b.WriteString("\nflags:\n")
	f.VisitAll(func(fl *flag.Flag) {
		if aliases[fl.Name] {
			return
		}
		name, use := flag.UnquoteUsage(fl)
		arg := "    --" + fl.Name
		if short, ok := f.shorts[fl.Name]; ok {
			arg = "-" + short + ", --" + fl.Name
		}
		if name != "" {
			arg += " " + name
		}
		fmt.Fprintf(&b, "  %-28s %s", arg, use)
		if fl.DefValue != "" && fl.DefValue != "false" && fl.DefValue != "0" {
			fmt.Fprintf(&b, " (default %s)", fl.DefValue)
		}
		b.WriteString("\n")
	})
	return b.String()
}

// parse reads flags wherever they stand among the positional arguments,
// which it returns; --help prints the usage and returns flag.ErrHelp.
func (f *flags) parse(args []string) ([]string, error) {
	var positional []string
	for {
		if err := f.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				fmt.Fprint(f.out, f.help())
				return nil, err
			}
			return nil, usageError{err: err, help: f.help()}
		}
		args = f.Args()
		if len(args) == 0 {
			return positional, nil
		}
		if args[0] == "--" {
			return append(positional, args[1:]...), nil
		}
		positional = append(positional, args[0])
		args = args[1:]
	}
}

// exactly checks the count of positional arguments.
func (f *flags) exactly(args []string, n int, what string) error {
	if len(args) != n {
		return usageError{err: fmt.Errorf("want %s, got %d arguments", what, len(args)), help: f.help()}
	}
	return nil
}

// atLeastOne checks that there is a positional argument.
func (f *flags) atLeastOne(args []string, what string) error {
	if len(args) == 0 {
		return usageError{err: fmt.Errorf("missing %s", what), help: f.help()}
	}
	return nil
}

// repeated is a flag given any number of times (--config k=v ...).
type repeated []string

func (r *repeated) String() string     { return strings.Join(*r, ",") }
func (r *repeated) Set(v string) error { *r = append(*r, v); return nil }

// keyValues splits k=v arguments into a map, keeping the order for output.
func keyValues(pairs []string) (map[string]string, []string, error) {
	m := make(map[string]string, len(pairs))
	var keys []string
	for _, p := range pairs {
		k, v, ok := strings.Cut(p, "=")
		if !ok || k == "" {
			return nil, nil, fmt.Errorf("%q is not KEY=VALUE", p)
		}
		if _, dup := m[k]; !dup {
			keys = append(keys, k)
		}
		m[k] = v
	}
	sort.Strings(keys)
	return m, keys, nil
}
