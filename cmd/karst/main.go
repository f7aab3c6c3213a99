// Command karst is the Karst broker: a Kafka-compatible message broker.
//
//	karst                                  serve the embedded default
//	karst serve [FILE] [--override k=v]... serve with a Kafka server.properties
//	karst apis                             print the supported API table
//	karst bench MODE [flags]               load a broker and measure it
//	karst version                          print the build and protocol level
//	karst topic|produce|consume|group|config|cluster ...  admin a cluster over the Kafka protocol
//
// Every subcommand takes -h/--help (usage on stdout, status 0); a bad flag
// prints the usage on stderr and exits with status 2.
package main

import (
	"fmt"
	"io"
	"os"
)

// exitUsage is the status for bad arguments or configuration, as the
// README promises.
const exitUsage = 2

// command is one subcommand of the binary.
type command struct {
	name string
	// synopsis is its line in `karst help`.
	synopsis string
	run      func(args []string) int
}

// commands are the subcommands in the order `karst help` lists them; a
// test runs each one's --help.
var commands = []command{
	{"serve", "serve the Kafka protocol (the default when no command is given)", serve},
	{"apis", "print the supported API table (Markdown)", apisMain},
	{"bench", "load a broker and measure it (karst bench help)", benchMain},
	{"version", "print the version, commit, Go version and protocol level", versionMain},
}

// helpSynopsis is help's line; help is dispatched apart from commands
// because it looks them up.
const helpSynopsis = "print this help, or a command's: karst help COMMAND"

func findCommand(name string) *command {
	for i := range commands {
		if commands[i].name == name {
			return &commands[i]
		}
	}
	return nil
}

func main() {
	os.Exit(run(os.Args[1:]))
}

func run(args []string) int {
	if len(args) == 0 {
		return serve(nil)
	}
	switch args[0] {
	case "-h", "--help", "-help":
		return helpMain(nil)
	case "--version", "-version":
		return versionMain(nil)
	case "help":
		return helpMain(args[1:])
	}
	if c := findCommand(args[0]); c != nil {
		return c.run(args[1:])
	}
	if isFlagOrFile(args[0]) {
		// `karst server.properties` and `karst --override x=y` mean serve.
		return serve(args)
	}
	fmt.Fprintf(os.Stderr, "karst: unknown command %q\n", args[0])
	usage(os.Stderr)
	return exitUsage
}

// isFlagOrFile tells `karst server.properties` and `karst --override x=y`
// (both mean serve) from a mistyped subcommand name.
func isFlagOrFile(arg string) bool {
	if len(arg) > 0 && arg[0] == '-' {
		return true
	}
	_, err := os.Stat(arg)
	return err == nil
}

func usage(w io.Writer) {
	fmt.Fprint(w, "usage: karst [COMMAND] [ARGS]\n\nKarst is a Kafka-compatible message broker.\n\ncommands:\n")
	for _, c := range commands {
		fmt.Fprintf(w, "  %-9s %s\n", c.name, c.synopsis)
	}
	fmt.Fprintf(w, "  %-9s %s\n", "help", helpSynopsis)
	fmt.Fprint(w, "\nRun 'karst COMMAND --help' for a command's arguments.\n")
}

func helpMain(args []string) int {
	switch {
	case len(args) == 0, len(args) == 1 && (isHelpFlag(args[0]) || args[0] == "help"):
		usage(os.Stdout)
		return 0
	case len(args) == 1 && findCommand(args[0]) != nil:
		return findCommand(args[0]).run([]string{"--help"})
	}
	fmt.Fprintf(os.Stderr, "karst help: unknown command %q\n", args[0])
	usage(os.Stderr)
	return exitUsage
}

// isHelpFlag is true for the spellings of help every subcommand accepts.
func isHelpFlag(arg string) bool {
	return arg == "-h" || arg == "--help" || arg == "-help"
}

// argumentsNone handles the arguments of a command that takes none: -h or
// --help prints usage (status 0), anything else is a usage error (2).
// done is false when there were no arguments and the command should run.
func argumentsNone(name, usage string, args []string) (status int, done bool) {
	switch {
	case len(args) == 0:
		return 0, false
	case len(args) == 1 && isHelpFlag(args[0]):
		fmt.Print(usage)
		return 0, true
	}
	fmt.Fprintf(os.Stderr, "karst %s: unexpected argument %q\n\n%s", name, args[0], usage)
	return exitUsage, true
}
