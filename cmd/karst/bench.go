package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/karst-broker/karst/internal/admincli"
	"github.com/karst-broker/karst/internal/bench"
)

const benchUsage = `usage: karst bench MODE [flags]

Load a Kafka-protocol broker (Karst or Apache Kafka) on this machine and
print one line of key=value pairs per result (one JSON object with -json).
Every run is bounded by a count and a duration. Exit status: 0 ok, 1 a run
failed (its line has error=...), 2 bad arguments.

modes:
  apiversions   ApiVersions requests/s, pipelined on raw connections
                (one result per entry of -conns; default 1 and 64)
  connections   open -conns idle connections and read the broker's RSS
                before and after (-pid); at most 10000
  startup       launch the broker command given after --, time until its
                first ApiVersions answer on -brokers, then stop it
  produce       records of -record-size bytes to -topic (created with
                -partitions if missing); records/s, MB/s, ack latency
  consume       read -topic from the start without a group until -records
                (-consumers N: N clients, each reading its share of partitions)
  e2e           produce at -rate records/s and consume in the same process;
                send-to-receive latency p50/p99/p999/max
  rebalance     start -members group members (one client each) on a topic of
                -partitions; time until the group is stable with every
                partition owned by exactly one member (rebalance_ms)
  commits       one group member commits offsets synchronously in a loop for
                -duration; commits/s and commit latency
  txn           transactional producers (-producers) commit transactions of
                -records-per-txn records over -partitions; txn/s, txn p50/p99

common flags:
  -brokers host:port   broker address (default 127.0.0.1:9092)
  -json                print JSON instead of key=value
  -pid N               broker pid: sample its RSS (VmRSS) during the run
  -tag key=value       add a field to every result (repeatable)
  -cpuprofile FILE     write the load tool's own CPU profile (is the tool the limit?)
  -tls-ca FILE         dial with TLS (an SSL listener), trusting this PEM CA
  -command-config FILE Kafka client properties: security.protocol, ssl.*,
                       sasl.mechanism, sasl.jaas.config (SSL, SASL_SSL, ...)

examples:
  karst bench apiversions -brokers 127.0.0.1:9092 -conns 1,64 -duration 5s
  karst bench connections -brokers 127.0.0.1:9092 -conns 10000 -pid 1234
  karst bench startup -brokers 127.0.0.1:19092 -- ./karst serve --override listeners=PLAINTEXT://127.0.0.1:19092
  karst bench produce -records 500000 -acks -1 -linger 5ms
  karst bench e2e -rate 10000 -duration 10s
  karst bench rebalance -members 50 -partitions 500

Run 'karst bench MODE -h' for the flags of a mode.
`

// benchTags is the repeatable -tag flag.
type benchTags []string

func (t *benchTags) String() string { return strings.Join(*t, ",") }
func (t *benchTags) Set(v string) error {
	if k, _, ok := strings.Cut(v, "="); !ok || k == "" {
		return fmt.Errorf("want key=value, got %q", v)
	}
	*t = append(*t, v)
	return nil
}

// benchCommon are the flags every mode takes.
type benchCommon struct {
	brokers string
	json    bool
	pid     int
	tags    benchTags
	// cpuProfile names a file for the load tool's own CPU profile, to
	// check that the tool is not what limits a run.
	cpuProfile string
	// tlsCA, tlsCert and tlsKey are PEM files for an SSL listener: the
	// CA the broker's certificate is checked against, and a client
	// certificate and key for ssl.client.auth.
	tlsCA, tlsCert, tlsKey string
	// commandConfig is a Kafka client properties file (security.protocol,
	// ssl.*, sasl.mechanism, sasl.jaas.config), read by the admin CLI's
	// --command-config parser.
	commandConfig string
}

func (c *benchCommon) register(fs *flag.FlagSet) {
	fs.StringVar(&c.brokers, "brokers", "127.0.0.1:9092", "broker `host:port`")
	fs.BoolVar(&c.json, "json", false, "print JSON objects instead of key=value lines")
	fs.IntVar(&c.pid, "pid", 0, "broker `pid` whose RSS to sample (0: none)")
	fs.Var(&c.tags, "tag", "`key=value` added to every result (repeatable)")
	fs.StringVar(&c.cpuProfile, "cpuprofile", "", "write the load tool's own CPU profile to this `file`")
	fs.StringVar(&c.tlsCA, "tls-ca", "", "dial with TLS (an SSL listener), trusting the CA certificates of this PEM `file`")
	fs.StringVar(&c.tlsCert, "tls-cert", "", "with -tls-ca: client certificate chain, a PEM `file`")
	fs.StringVar(&c.tlsKey, "tls-key", "", "with -tls-ca: the client certificate's private key, a PEM `file`")
	fs.StringVar(&c.commandConfig, "command-config", "", "Kafka client properties `file` as karst's admin commands read it: security.protocol (SSL, SASL_PLAINTEXT, SASL_SSL), ssl.* stores, sasl.mechanism (PLAIN, SCRAM-SHA-256, SCRAM-SHA-512) and sasl.jaas.config; not with -tls-ca")
}

// useTLS sets up the load tool's TLS dialing from -tls-ca, -tls-cert and
// -tls-key.
func (c *benchCommon) useTLS() error {
	if c.commandConfig != "" {
		if c.tlsCA != "" || c.tlsCert != "" || c.tlsKey != "" {
			return errors.New("-command-config holds the TLS settings: drop -tls-ca, -tls-cert and -tls-key")
		}
		tlsCfg, mechanism, err := admincli.ClientSecurity(c.commandConfig, "karst bench", os.Stderr)
		if err != nil {
			return err
		}
		bench.UseTLS(tlsCfg)
		bench.UseSASL(mechanism)
		return nil
	}
	if c.tlsCA == "" {
		if c.tlsCert != "" || c.tlsKey != "" {
			return errors.New("-tls-cert and -tls-key need -tls-ca")
		}
		return nil
	}
	pemCAs, err := os.ReadFile(c.tlsCA)
	if err != nil {
		return err
	}
	roots := x509.NewCertPool()
	if !roots.AppendCertsFromPEM(pemCAs) {
		return fmt.Errorf("-tls-ca %s: no PEM certificate", c.tlsCA)
	}
	cfg := &tls.Config{RootCAs: roots}
	if c.tlsCert != "" || c.tlsKey != "" {
		pair, err := tls.LoadX509KeyPair(c.tlsCert, c.tlsKey)
		if err != nil {
			return err
		}
		cfg.Certificates = []tls.Certificate{pair}
	}
	bench.UseTLS(cfg)
	return nil
}

func registerProducer(fs *flag.FlagSet, p *bench.ProducerConfig, linger time.Duration) {
	fs.IntVar(&p.Acks, "acks", -1, "acks: -1 (all), 0 or 1")
	fs.DurationVar(&p.Linger, "linger", linger, "producer linger (linger.ms)")
	fs.Func("batch-bytes", "max bytes per batch (batch.size; default franz-go's 1 MB)", func(s string) error {
		n, err := strconv.ParseInt(s, 10, 32)
		p.BatchBytes = int32(n)
		return err
	})
	fs.IntVar(&p.MaxBuffered, "max-buffered", 0, "records buffered before sending blocks (0: franz-go default, 10000, unless -max-buffered-bytes is set)")
	fs.IntVar(&p.MaxBufferedBytes, "max-buffered-bytes", 0, "record bytes buffered before sending blocks (buffer.memory; 0: no byte limit)")
	fs.StringVar(&p.Compression, "compression", "none", "none, gzip, snappy, lz4 or zstd")
	fs.BoolVar(&p.NoIdempotence, "no-idempotence", false, "turn off the idempotent producer (acks=-1 only)")
}

func benchMain(args []string) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		w := os.Stderr
		if len(args) > 0 {
			w = os.Stdout
		}
		fmt.Fprint(w, benchUsage)
		if len(args) == 0 {
			return exitUsage
		}
		return 0
	}
	mode, args := args[0], args[1:]
	loadToolGC()
	fs := flag.NewFlagSet("karst bench "+mode, flag.ContinueOnError)
	fs.SetOutput(os.Stderr)
	var common benchCommon
	common.register(fs)

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	var run func() []*bench.Result
	switch mode {
	case "apiversions":
		cfg := bench.APIVersionsConfig{}
		conns := fs.String("conns", "1,64", "comma-separated connection counts, one run each")
		fs.IntVar(&cfg.Window, "window", 64, "requests in flight per connection")
		fs.Int64Var(&cfg.Requests, "requests", 1_000_000, "stop after this many requests (over all connections)")
		fs.DurationVar(&cfg.Duration, "duration", 10*time.Second, "stop after this long")
		version := fs.Int("version", 3, "ApiVersions version to send (1-4)")
		run = func() []*bench.Result {
			cfg.Addr, cfg.Pid, cfg.Version = common.brokers, common.pid, int16(*version)
			var out []*bench.Result
			for _, s := range strings.Split(*conns, ",") {
				n, err := strconv.Atoi(strings.TrimSpace(s))
				if err != nil || n <= 0 {
					r := bench.NewResult("apiversions")
					r.Fail(fmt.Errorf("bad -conns entry %q", s))
					return append(out, r)
				}
				cfg.Conns = n
				out = append(out, bench.APIVersions(ctx, cfg))
			}
			return out
		}
	case "connections":
		cfg := bench.ConnectionsConfig{}
		fs.IntVar(&cfg.Conns, "conns", 1000, "idle connections to open (at most 10000)")
		fs.IntVar(&cfg.Dialers, "dialers", 32, "connections opened at once")
		fs.DurationVar(&cfg.Hold, "hold", 0, "hold them this long before reading RSS")
		fs.DurationVar(&cfg.Timeout, "timeout", 60*time.Second, "bound on the whole run")
		run = func() []*bench.Result {
			cfg.Addr, cfg.Pid = common.brokers, common.pid
			return []*bench.Result{bench.Connections(ctx, cfg)}
		}
	case "startup":
		cfg := bench.StartupConfig{}
		fs.DurationVar(&cfg.Timeout, "timeout", 60*time.Second, "give up if it has not answered by then")
		fs.StringVar(&cfg.Log, "log", "", "write the broker's output to this `file`")
		fs.DurationVar(&cfg.Settle, "settle", 0, "after it answers, wait this long and report rss_settled_kb")
		run = func() []*bench.Result {
			cfg.Addr, cfg.Command = common.brokers, fs.Args()
			return []*bench.Result{bench.Startup(ctx, cfg)}
		}
	case "produce":
		cfg := bench.ProduceConfig{}
		fs.StringVar(&cfg.Topic, "topic", "karst-bench", "topic")
		partitions := fs.Int("partitions", 6, "partitions, if the topic is created")
		fs.IntVar(&cfg.RecordSize, "record-size", 1024, "value bytes per record")
		fs.Int64Var(&cfg.Records, "records", 1_000_000, "stop after this many records")
		fs.DurationVar(&cfg.Duration, "duration", 10*time.Second, "stop sending after this long")
		registerProducer(fs, &cfg.Producer, 5*time.Millisecond)
		run = func() []*bench.Result {
			cfg.Addr, cfg.Pid, cfg.Partitions = common.brokers, common.pid, int32(*partitions)
			return []*bench.Result{bench.Produce(ctx, cfg)}
		}
	case "consume":
		cfg := bench.ConsumeConfig{}
		fs.StringVar(&cfg.Topic, "topic", "karst-bench", "topic")
		fs.Int64Var(&cfg.Records, "records", 1_000_000, "stop after this many records")
		fs.DurationVar(&cfg.Duration, "duration", 10*time.Second, "stop after this long")
		fetchMax := fs.Int("fetch-max-bytes", 0, "fetch.max.bytes (0: franz-go default)")
		partMax := fs.Int("partition-max-bytes", 0, "max.partition.fetch.bytes (0: franz-go default)")
		fs.IntVar(&cfg.Consumers, "consumers", 1, "franz-go clients reading at once, partition p by client p mod consumers")
		client := fs.String("client", "franz-go", "consumer: franz-go (kgo, records built as kgo.Record) or raw (one connection, hand-written Fetch, batches CRC-checked and records walked in place)")
		registerIsolation(fs, &cfg)
		run = func() []*bench.Result {
			cfg.Addr, cfg.Pid = common.brokers, common.pid
			cfg.FetchMaxBytes, cfg.PartitionMaxBytes = int32(*fetchMax), int32(*partMax)
			switch *client {
			case "franz-go":
				return []*bench.Result{bench.Consume(ctx, cfg)}
			case "raw":
				if cfg.Consumers > 1 {
					break // one connection: it does not split partitions
				}
				return []*bench.Result{bench.ConsumeRaw(ctx, cfg)}
			}
			res := bench.NewResult("consume")
			res.Fail(fmt.Errorf("-client %q with -consumers %d: want franz-go (any -consumers) or raw (-consumers 1)", *client, cfg.Consumers))
			return []*bench.Result{res}
		}
	case "e2e":
		cfg := bench.E2EConfig{}
		fs.StringVar(&cfg.Topic, "topic", "karst-bench-e2e", "topic")
		partitions := fs.Int("partitions", 6, "partitions, if the topic is created")
		fs.IntVar(&cfg.RecordSize, "record-size", 1024, "value bytes per record (at least 16)")
		fs.IntVar(&cfg.Rate, "rate", 10_000, "records per second")
		fs.DurationVar(&cfg.Duration, "duration", 10*time.Second, "send for this long")
		fs.DurationVar(&cfg.Drain, "drain", 5*time.Second, "then wait at most this long for the rest")
		fs.DurationVar(&cfg.Warmup, "warmup", time.Second, "leave records sent in this first stretch out of the latencies (negative: none)")
		registerProducer(fs, &cfg.Producer, 0)
		run = func() []*bench.Result {
			cfg.Addr, cfg.Pid, cfg.Partitions = common.brokers, common.pid, int32(*partitions)
			return []*bench.Result{bench.E2E(ctx, cfg)}
		}
	case "rebalance":
		cfg := bench.RebalanceConfig{}
		fs.StringVar(&cfg.Topic, "topic", "", "topic (default karst-bench-rebalance-<partitions>)")
		fs.StringVar(&cfg.Group, "group", "", "group (default a fresh name per run)")
		fs.IntVar(&cfg.Members, "members", 10, "group members, one client each")
		partitions := fs.Int("partitions", 100, "partitions, if the topic is created")
		fs.StringVar(&cfg.Protocol, "protocol", "classic", "group protocol: classic or consumer (KIP-848)")
		fs.DurationVar(&cfg.Timeout, "timeout", 60*time.Second, "give up if the group is not stable by then")
		run = func() []*bench.Result {
			cfg.Addr, cfg.Pid, cfg.Partitions = common.brokers, common.pid, int32(*partitions)
			return []*bench.Result{bench.Rebalance(ctx, cfg)}
		}
	case "commits":
		cfg := bench.CommitsConfig{}
		fs.StringVar(&cfg.Topic, "topic", "karst-bench-commits", "topic")
		fs.StringVar(&cfg.Group, "group", "", "group (default a fresh name per run)")
		partitions := fs.Int("partitions", 1, "partitions, if the topic is created; each commit covers all")
		fs.DurationVar(&cfg.Duration, "duration", 10*time.Second, "commit for this long")
		run = func() []*bench.Result {
			cfg.Addr, cfg.Pid, cfg.Partitions = common.brokers, common.pid, int32(*partitions)
			return []*bench.Result{bench.Commits(ctx, cfg)}
		}
	case "txn":
		run = benchTxnMode(ctx, fs, &common)
	default:
		fmt.Fprintf(os.Stderr, "karst bench: unknown mode %q\n\n%s", mode, benchUsage)
		return exitUsage
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return exitUsage
	}
	if mode == "startup" && fs.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "karst bench startup: give the broker command after --")
		return exitUsage
	}
	if mode != "startup" && fs.NArg() > 0 {
		fmt.Fprintf(os.Stderr, "karst bench %s: unexpected arguments %q\n", mode, fs.Args())
		return exitUsage
	}
	if err := common.useTLS(); err != nil {
		fmt.Fprintln(os.Stderr, "karst bench:", err)
		return exitUsage
	}
	stopProfile, err := startCPUProfile(common.cpuProfile)
	if err != nil {
		fmt.Fprintln(os.Stderr, "karst bench:", err)
		return 1
	}
	results := run()
	stopProfile()
	status := 0
	for _, r := range results {
		for _, kv := range common.tags {
			k, v, _ := strings.Cut(kv, "=")
			r.SetString(k, v)
		}
		if err := printBenchResult(os.Stdout, r, common.json); err != nil {
			fmt.Fprintln(os.Stderr, "karst bench:", err)
			return 1
		}
		if r.Err() != nil {
			status = 1
		}
	}
	return status
}

func printBenchResult(w io.Writer, r *bench.Result, asJSON bool) error {
	if asJSON {
		b, err := json.Marshal(r)
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(w, "%s\n", b)
		return err
	}
	_, err := fmt.Fprintln(w, r.Line())
	return err
}
