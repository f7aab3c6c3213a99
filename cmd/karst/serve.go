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

// errHelp is parseServeArgs' answer to -h/--help.
var errHelp = errors.New("help requested")

const serveUsage = `usage: karst serve [FILE] [--override key=value]... [--log-format text|json]

Serve the Kafka protocol. FILE is a Kafka-style server.properties with
Apache Kafka's broker key names (config/server.properties is an example);
without it the embedded default is served: node.id=1, PLAINTEXT on :9092,
data in ./karst-data. Later settings win: FILE, then KARST_* variables,
then each --override in order. An unknown key is logged as a warning and
ignored, as Kafka does; an invalid value stops the broker with status 2.
SIGINT or SIGTERM finishes the requests already read and exits 0.

flags:
  --override key=value     set a broker key; repeatable
  --log-format text|json   the broker log's format (karst.log.format; default text)
  -h, --help               print this help

environment:
  KARST_<NAME>=value       a broker key, named as Apache Kafka's image names
                           KAFKA_*: drop KARST_, lower-case, '___' is '-',
                           '__' is '_', '_' is '.'; KARST_LOG_DIRS=/data sets
                           log.dirs, KARST_NUM_PARTITIONS=3 num.partitions
  KARST_EXIT_WITH_PARENT   1: stop (as on SIGTERM) when the parent process
                           dies (Linux); 0: never. Unset: only under go run,
                           whose child would otherwise outlive it
`

func parseServeArgs(args []string) (serveArgs, error) {
	var sa serveArgs
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case isHelpFlag(a):
			return sa, errHelp
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
	if errors.Is(err, errHelp) {
		fmt.Print(serveUsage)
		return 0
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "karst serve: %v\n\n%s", err, serveUsage)
		return exitUsage
	}
	// The environment comes before the command line, so --override wins.
	sa.overrides = append(environmentOverrides(os.Environ()), sa.overrides...)
	cfg, warnings, err := loadNodeConfig(sa)
	if err != nil {
		fmt.Fprintf(os.Stderr, "karst: invalid configuration: %v\n", err)
		return exitUsage
	}
	logger, levels, err := newLogger(os.Stderr, cfg.Settings.String(logFormatKey))
	if err != nil {
		fmt.Fprintf(os.Stderr, "karst: invalid configuration: %v\n", err)
		return exitUsage
	}
	// Packages that log through slog's default use the same format.
	slog.SetDefault(logger)
	for _, w := range warnings {
		logger.Warn(w)
	}
	cfg.Logger, cfg.LogLevels = logger, levels
	followsParent, err := exitWithParent(os.Getenv(exitWithParentEnv))
	if err != nil {
		logger.Error("cannot follow the parent process", "err", err)
		return 1
	}
	// Caught before the listeners open: a SIGTERM that comes as soon as
	// the broker answers must stop it cleanly, not kill it.
	signals := make(chan os.Signal, 1)
	signal.Notify(signals, syscall.SIGINT, syscall.SIGTERM)
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
	if followsParent {
		// A dying parent's threads each send one; only the first counts. A
		// second SIGINT still stops at once.
		signal.Ignore(syscall.SIGTERM)
	}
	ctx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	if err := n.Shutdown(ctx); err != nil {
		logger.Error("shutdown did not finish cleanly", "err", err)
		return 1
	}
	logger.Info("stopped")
	return 0
}
