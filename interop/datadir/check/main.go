// Command check drives the data-directory interop suite: it writes topics
// and records to one broker (produce) and checks that another broker,
// started later on the same data directory, serves exactly the same
// topics, ids, config overrides, records and offsets (verify).
//
//	check produce -bootstrap HOST:PORT -manifest FILE [-broker KIND]
//	check verify  -bootstrap HOST:PORT -manifest FILE -name SCENARIO [-out FILE] [-broker KIND]
//	check compact-produce -bootstrap HOST:PORT -phase N -records FILE -dir LOGDIR
//	check compact-wait -dir LOGDIR
//	check compact-bench -bootstrap HOST:PORT -records-count N -keys K -value-bytes S
//	check compact-dump -bootstrap HOST:PORT -dir LOGDIR -records FILE -dump FILE -name SCENARIO
//	check compact-kill -dir LOGDIR -pid PID [-at any|swap]
//	check compact-survivors -bootstrap HOST:PORT -records FILE -name SCENARIO
//
// produce also records the broker's ListOffsets answers (earliest, latest,
// max timestamp and a timestamp lookup around every record timestamp) for
// each partition; verify requires the same answers from the next broker.
//
// verify also appends records to every partition (new writes must continue
// the offsets) and records its broker's ListOffsets answers on the grown
// data; -out saves the manifest with both, for a further broker change on
// the same directory.
//
// The compact-* commands drive the compaction scenario (compact.go).
//
// verify prints one "PASS name" or "FAIL name: why" line per check and
// exits 1 if any failed.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"time"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: check produce|verify -bootstrap HOST:PORT -manifest FILE [-name SCENARIO]")
		os.Exit(2)
	}
	fs := flag.NewFlagSet(os.Args[1], flag.ExitOnError)
	bootstrap := fs.String("bootstrap", "127.0.0.1:9092", "broker address")
	manifest := fs.String("manifest", "manifest.json", "where produce writes and verify reads the expected state")
	name := fs.String("name", "datadir", "scenario name prefixed to each check")
	out := fs.String("out", "", "verify: write the manifest including the records verify appended here")
	broker := fs.String("broker", "", "the kind of broker at -bootstrap (kafka, karst), named in mismatch reports")
	timeout := fs.Duration("timeout", 120*time.Second, "deadline for the whole command")
	phase := fs.Int("phase", 1, "compact-produce: which phase of the compaction input to write (1, or a later one)")
	records := fs.String("records", "compact-records.json", "compact-*: the records the compaction input placed")
	dir := fs.String("dir", "", "compact-*: the broker's log dir")
	dump := fs.String("dump", "compact-dump.txt", "compact-dump: where the served records go")
	benchRecords := fs.Int("records-count", 500_000, "compact-bench: records to write")
	benchKeys := fs.Int("keys", 10_000, "compact-bench: distinct keys")
	benchValue := fs.Int("value-bytes", 200, "compact-bench: bytes of each value")
	pid := fs.Int("pid", 0, "compact-kill: the broker process to kill")
	at := fs.String("at", "any", "compact-kill: kill at the first .cleaned or .swap file (any) or at a .swap file (swap)")
	_ = fs.Parse(os.Args[2:])
	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()

	switch os.Args[1] {
	case "produce":
		m, err := produce(ctx, *bootstrap, *broker)
		if err == nil {
			err = writeManifest(*manifest, m)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "produce:", err)
			os.Exit(1)
		}
		fmt.Printf("produced %d records to %d topics\n", len(m.Records), len(m.Topics))
	case "verify":
		m, err := readManifest(*manifest)
		if err != nil {
			fmt.Fprintln(os.Stderr, "verify:", err)
			os.Exit(1)
		}
		r := &reporter{prefix: *name}
		verify(ctx, *bootstrap, *broker, m, r)
		// Written even after a failed check, so the next broker is compared
		// with what this one served, not with data it no longer holds.
		if *out != "" {
			if err := writeManifest(*out, m); err != nil {
				fmt.Fprintln(os.Stderr, "verify:", err)
				os.Exit(1)
			}
		}
		if r.failed > 0 {
			os.Exit(1)
		}
	case "compact-produce":
		if err := compactProduce(ctx, *bootstrap, *dir, *phase, *records); err != nil {
			fmt.Fprintln(os.Stderr, "compact-produce:", err)
			os.Exit(1)
		}
	case "compact-wait":
		if err := compactWait(ctx, *dir); err != nil {
			fmt.Fprintln(os.Stderr, "compact-wait:", err)
			os.Exit(1)
		}
	case "compact-bench":
		if err := compactBench(ctx, *bootstrap, *benchRecords, *benchKeys, *benchValue); err != nil {
			fmt.Fprintln(os.Stderr, "compact-bench:", err)
			os.Exit(1)
		}
	case "compact-dump":
		r := &reporter{prefix: *name}
		if err := compactDump(ctx, *bootstrap, *dir, *records, *dump, r); err != nil {
			fmt.Fprintln(os.Stderr, "compact-dump:", err)
			os.Exit(1)
		}
		if r.failed > 0 {
			os.Exit(1)
		}
	case "compact-kill":
		if err := compactKill(ctx, *dir, *pid, *at); err != nil {
			fmt.Fprintln(os.Stderr, "compact-kill:", err)
			os.Exit(1)
		}
	case "compact-survivors":
		r := &reporter{prefix: *name}
		if err := compactSurvivors(ctx, *bootstrap, *records, r); err != nil {
			fmt.Fprintln(os.Stderr, "compact-survivors:", err)
			os.Exit(1)
		}
		if r.failed > 0 {
			os.Exit(1)
		}
	default:
		fmt.Fprintln(os.Stderr, "unknown command", os.Args[1])
		os.Exit(2)
	}
}

// reporter prints one line per check.
type reporter struct {
	prefix         string
	passed, failed int
}

func (r *reporter) check(name string, err error) bool {
	if err != nil {
		r.failed++
		fmt.Printf("FAIL %s/%s: %v\n", r.prefix, name, err)
		return false
	}
	r.passed++
	fmt.Printf("PASS %s/%s\n", r.prefix, name)
	return true
}
