package main

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

func must(err error) {
	if err != nil {
		panic(err)
	}
}

func txnClient(addr, id string) *kgo.Client {
	c, err := kgo.NewClient(kgo.SeedBrokers(addr), kgo.TransactionalID(id), kgo.DefaultProduceTopic("txn"),
		kgo.TransactionTimeout(120*time.Second), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	must(err)
	return c
}

func produce(ctx context.Context, c *kgo.Client, n int, tag string) {
	for i := 0; i < n; i++ {
		must(c.ProduceSync(ctx, &kgo.Record{Value: []byte(fmt.Sprintf("%s-%d", tag, i))}).FirstErr())
	}
}

func main() {
	addr := os.Args[1]
	ctx := context.Background()
	admin, err := kgo.NewClient(kgo.SeedBrokers(addr))
	must(err)
	adm := kadm.NewClient(admin)
	segMs := "300"
	_, err = adm.CreateTopic(ctx, 1, 1, map[string]*string{"segment.ms": &segMs}, "txn")
	must(err)
	plain, err := kgo.NewClient(kgo.SeedBrokers(addr), kgo.DefaultProduceTopic("txn"), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	must(err)
	a, b := txnClient(addr, "a"), txnClient(addr, "b")
	pause := func() { time.Sleep(400 * time.Millisecond) } // lets segment.ms roll segments
	produce(ctx, plain, 2, "plain")
	for round := 0; round < 3; round++ {
		must(a.BeginTransaction())
		produce(ctx, a, 3, "a-aborted")
		must(b.BeginTransaction())
		produce(ctx, b, 2, "b-committed")
		pause()
		must(a.EndTransaction(ctx, kgo.TryAbort))
		produce(ctx, b, 1, "b-committed")
		must(b.EndTransaction(ctx, kgo.TryCommit))
		produce(ctx, plain, 1, "plain")
		pause()
		must(a.BeginTransaction())
		must(b.BeginTransaction())
		produce(ctx, b, 1, "b-aborted")
		produce(ctx, a, 2, "a-aborted")
		must(b.EndTransaction(ctx, kgo.TryAbort))
		pause()
		must(a.EndTransaction(ctx, kgo.TryAbort))
	}
	// Left open at shutdown: the snapshot must carry it.
	must(b.BeginTransaction())
	produce(ctx, b, 2, "b-open")
	fmt.Println("done")
}
