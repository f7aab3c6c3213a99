package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/karst-broker/karst/internal/node"
)

// shutdownGrace bounds how long in-flight requests may take to finish
// after SIGINT or SIGTERM.
const shutdownGrace = 10 * time.Second

// serveArgs are the parsed arguments of `karst serve`.
type serveArgs struct {
	propertiesFile string
	overrides      []string
	// logFormat is --log-format; it wins over karst.log.format wherever
	// that is set.
	logFormat string
}

func parseServeArgs(args []string) (serveArgs, error) {
	var sa serveArgs
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--override" || a == "-override":
			if i+1 == len(args) {
				return sa, errors.New("--override needs key=value")
			}
			i++
			sa.overrides = append(sa.overrides, args[i])
		case strings.HasPrefix(a, "--override="):
			sa.overrides = append(sa.overrides, strings.TrimPrefix(a, "--override="))
		case a == "--log-format" || a == "-log-format":
			if i+1 == len(args) {
				return sa, errors.New("--log-format needs text or json")
			}
			i++
			sa.logFormat = args[i]
		case strings.HasPrefix(a, "--log-format="):
			sa.logFormat = strings.TrimPrefix(a, "--log-format=")
		case strings.HasPrefix(a, "-"):
			return sa, fmt.Errorf("unknown flag %s", a)
		case sa.propertiesFile == "":
			sa.propertiesFile = a
		default:
			return sa, fmt.Errorf("unexpected argument %q (one properties file at most)", a)
		}
	}
	if sa.logFormat != "" {
		// Applied last, so the flag wins; config validates the value.
		sa.overrides = append(sa.overrides, logFormatKey+"="+sa.logFormat)
	}
	return sa, nil
}

func serve(args []string) int {
	sa, err := parseServeArgs(args)
	if err != nil {
		fmt.Fprintf(os.Stderr, "karst: %v\n", err)
		usage(os.Stderr)
		return exitUsage
	}
	cfg, warnings, err := loadNodeConfig(sa)
	if err != nil {
		fmt.Fprintf(os.Stderr, "karst: invalid configuration: %v\n", err)
		return exitUsage
	}
	logger, err := newLogger(os.Stderr, cfg.Settings.String(logFormatKey))
	if err != nil {
		fmt.Fprintf(os.Stderr, "karst: invalid configuration: %v\n", err)
		return exitUsage
	}
	// Packages that log through slog's default use the same format.
	slog.SetDefault(logger)
	for _, w := range warnings {
		logger.Warn(w)
	}
	cfg.Logger = logger
	start := time.Now()
	n, err := node.Start(cfg)
	if err != nil {
		fmt.Fprintf(os.Stderr, "karst: %v\n", err)
		return 1
	}
	for _, l := range cfg.Listeners {
		logger.Info("listening", "listener", l.Name, "addr", n.Addr(l.Name).String())
	}
	logger.Info("karst started", "node_id", cfg.NodeID, "cluster_id", n.ClusterID(), "startup", time.Since(start))

	signals := make(chan os.Signal, 1)
	signal.Notify(signals, syscall.SIGINT, syscall.SIGTERM)
	var sig os.Signal
	select {
	case sig = <-signals:
	case <-n.Failed():
		// The broker shut itself down: its only log dir failed.
		signal.Stop(signals)
		logger.Error("stopped after a log dir failure", "err", n.Failure())
		return 1
	}
	logger.Info("shutting down", "signal", sig.String())
	signal.Stop(signals)
	ctx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	if err := n.Shutdown(ctx); err != nil {
		logger.Error("shutdown did not finish cleanly", "err", err)
		return 1
	}
	logger.Info("stopped")
	return 0
}
