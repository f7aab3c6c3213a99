package main

import (
	"context"
	"flag"
	"time"

	"github.com/karst-broker/karst/internal/bench"
)

// benchTxnMode registers the flags of `karst bench txn` and returns its run.
func benchTxnMode(ctx context.Context, fs *flag.FlagSet, common *benchCommon) func() []*bench.Result {
	cfg := bench.TxnConfig{}
	fs.StringVar(&cfg.Topic, "topic", "", "topic (default karst-bench-txn-<partitions>)")
	partitions := fs.Int("partitions", 1, "partitions, if the topic is created; each transaction's records go round-robin over them")
	fs.IntVar(&cfg.RecordsPerTxn, "records-per-txn", 10, "records per transaction")
	fs.IntVar(&cfg.RecordSize, "record-size", 1024, "value bytes per record")
	fs.IntVar(&cfg.Producers, "producers", 1, "concurrent transactional producers, one client and transactional.id each")
	fs.Int64Var(&cfg.Txns, "txns", 0, "stop after this many committed transactions (0: only -duration)")
	fs.DurationVar(&cfg.Duration, "duration", 10*time.Second, "begin transactions for this long")
	return func() []*bench.Result {
		cfg.Addr, cfg.Pid, cfg.Partitions = common.brokers, common.pid, int32(*partitions)
		return []*bench.Result{bench.Txn(ctx, cfg)}
	}
}

// registerIsolation adds consume's -isolation flag.
func registerIsolation(fs *flag.FlagSet, cfg *bench.ConsumeConfig) {
	fs.StringVar(&cfg.Isolation, "isolation", "read_uncommitted", "isolation.level: read_uncommitted or read_committed")
}
