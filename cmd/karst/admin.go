package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/karst-broker/karst/internal/admincli"
)

// The admin commands (topic, produce, consume, group, config, cluster)
// join the broker's own in `karst help`.
func init() {
	for _, c := range admincli.Commands {
		commands = append(commands, command{c.Name, c.Synopsis, func(args []string) int {
			// Ctrl-C ends a consume that has no end; the command then
			// commits what it printed and exits 0.
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			return c.Run(ctx, args, admincli.Streams{In: os.Stdin, Out: os.Stdout, Err: os.Stderr})
		}})
	}
}
