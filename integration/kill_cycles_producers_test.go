package integration

import (
	"context"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// killCycleTxnID is the transactional id of every cycle's transactional
// producer: each one fences the last, whose open transaction is aborted.
const killCycleTxnID = "kill-cycles"

// cycleProducers are one cycle's three franz-go producers, writing until
// stopped: acks=all without idempotence, idempotent, and transactional.
type cycleProducers struct {
	clients []*kgo.Client
	cancel  context.CancelFunc
	wg      sync.WaitGroup
}

// killCycleTopic is a topic the producers write to, with its partitions.
type killCycleTopic struct {
	name       string
	partitions int32
}

func startCycleProducers(addr string, cycle int32, seed uint64, topics []killCycleTopic, ledger *killLedger) (*cycleProducers, error) {
	ctx, cancel := context.WithCancel(context.Background())
	p := &cycleProducers{cancel: cancel}
	common := []kgo.Opt{kgo.SeedBrokers(addr), kgo.RequiredAcks(kgo.AllISRAcks()),
		kgo.RecordPartitioner(kgo.ManualPartitioner()), kgo.RecordRetries(1 << 30),
		kgo.RetryTimeout(time.Minute), kgo.MaxBufferedRecords(500)}
	for i, opts := range [][]kgo.Opt{
		{kgo.DisableIdempotentWrite()},
		{},
		{kgo.TransactionalID(killCycleTxnID), kgo.TransactionTimeout(time.Minute)},
	} {
		cl, err := kgo.NewClient(append(opts, common...)...)
		if err != nil {
			p.stop()
			return nil, err
		}
		p.clients = append(p.clients, cl)
		rng := rand.New(rand.NewPCG(seed, uint64(i)))
		p.wg.Add(1)
		go func() {
			defer p.wg.Done()
			switch i {
			case 0:
				produceUntilDone(ctx, cl, rng, recordID{kind: plainRecord, cycle: cycle, txn: -1}, 50, 20*time.Millisecond, topics, ledger)
			case 1:
				large := []killCycleTopic{topics[1], topics[0]}
				produceUntilDone(ctx, cl, rng, recordID{kind: idempotentRecord, cycle: cycle, txn: -1}, 2, 2*time.Millisecond, large, ledger)
			default:
				produceTransactions(ctx, cl, rng, cycle, topics, ledger)
			}
		}()
	}
	return p, nil
}

// stop ends the producers (after the broker was killed): what was not
// acknowledged by now fails with the client closed.
func (p *cycleProducers) stop() {
	p.cancel()
	for _, cl := range p.clients {
		cl.Close()
	}
	p.wg.Wait()
}

// pick chooses where a record goes: three in four to the first topic.
func pick(rng *rand.Rand, topics []killCycleTopic) (string, int32) {
	t := topics[0]
	if len(topics) > 1 && rng.IntN(4) == 0 {
		t = topics[1+rng.IntN(len(topics)-1)]
	}
	return t.name, rng.Int32N(t.partitions)
}

// produceUntilDone writes bursts of records with a pause after each, at
// most 1,000 records a second, which bounds what a long run keeps in its
// ledger.
func produceUntilDone(ctx context.Context, cl *kgo.Client, rng *rand.Rand, id recordID, burst int, pause time.Duration, topics []killCycleTopic, ledger *killLedger) {
	for ctx.Err() == nil {
		for range burst {
			rid := id
			id.seq++
			topic, partition := pick(rng, topics)
			cl.Produce(ctx, &kgo.Record{Topic: topic, Partition: partition, Value: rid.value()}, func(r *kgo.Record, err error) {
				if err == nil {
					ledger.ack(r, rid)
				}
			})
		}
		select {
		case <-ctx.Done():
		case <-time.After(pause):
		}
	}
}

// produceTransactions runs transactions of 1 to 12 records, three in four
// committed and the rest aborted, until one fails (the broker was killed)
// or the producers are stopped.
func produceTransactions(ctx context.Context, cl *kgo.Client, rng *rand.Rand, cycle int32, topics []killCycleTopic, ledger *killLedger) {
	for n := int32(0); ctx.Err() == nil; n++ {
		key := txnKey{cycle, n}
		ledger.beginTxn(key)
		if err := cl.BeginTransaction(); err != nil {
			ledger.endTxn(key, txnUndecided)
			return
		}
		for seq := range 1 + rng.Int32N(12) {
			id := recordID{kind: txnRecord, cycle: cycle, txn: n, seq: seq}
			topic, partition := pick(rng, topics)
			cl.Produce(ctx, &kgo.Record{Topic: topic, Partition: partition, Value: id.value()}, func(r *kgo.Record, err error) {
				if err == nil {
					ledger.ack(r, id)
				}
			})
		}
		commit := kgo.TryCommit
		if err := cl.Flush(ctx); err != nil || rng.IntN(4) == 0 {
			commit = kgo.TryAbort
		}
		if err := cl.EndTransaction(ctx, commit); err != nil {
			ledger.endTxn(key, txnUndecided)
			return
		}
		if commit == kgo.TryCommit {
			ledger.endTxn(key, txnCommitted)
		} else {
			ledger.endTxn(key, txnAborted)
		}
		select {
		case <-ctx.Done():
		case <-time.After(time.Duration(rng.IntN(20)) * time.Millisecond):
		}
	}
}
