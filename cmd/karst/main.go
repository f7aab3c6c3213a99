// Command karst is the Karst broker: a Kafka-compatible message broker.
//
//	karst                                  serve the embedded default
//	karst serve [FILE] [--override k=v]... serve with a Kafka server.properties
//	karst apis                             print the supported API table
//	karst bench MODE [flags]               load a broker and measure it
package main

import (
	"fmt"
	"os"

	"github.com/karst-broker/karst/internal/handler"
)

// exitUsage is the status for bad arguments or configuration, as the
// README promises.
const exitUsage = 2

func main() {
	args := os.Args[1:]
	cmd := "serve"
	if len(args) > 0 && (commands[args[0]] || !isFlagOrFile(args[0])) {
		cmd, args = args[0], args[1:]
	}
	switch cmd {
	case "serve":
		os.Exit(serve(args))
	case "apis":
		fmt.Print(handler.MarkdownTable())
	case "bench":
		os.Exit(benchMain(args))
	case "help", "-h", "--help":
		usage(os.Stdout)
	default:
		fmt.Fprintf(os.Stderr, "karst: unknown command %q\n", cmd)
		usage(os.Stderr)
		os.Exit(exitUsage)
	}
}

// commands are the subcommands; a first argument that is none of them is a
// properties file or a flag of serve.
var commands = map[string]bool{"serve": true, "apis": true, "bench": true, "help": true}

// isFlagOrFile tells `karst server.properties` and `karst --override x=y`
// (both mean serve) from a subcommand name.
func isFlagOrFile(arg string) bool {
	if len(arg) > 0 && arg[0] == '-' && arg != "-h" && arg != "--help" {
		return true
	}
	_, err := os.Stat(arg)
	return err == nil
}

func usage(w *os.File) {
	fmt.Fprint(w, `usage:
  karst                                   serve the embedded default (PLAINTEXT :9092, ./karst-data)
  karst serve [FILE] [--override key=value]... [--log-format text|json]
                                          serve with a Kafka-style server.properties; overrides win;
                                          --log-format sets karst.log.format (default text)
  karst apis                              print the supported API table (Markdown)
  karst bench MODE [flags]                load a broker and measure it (karst bench help)
`)
}
