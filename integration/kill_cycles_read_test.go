package integration

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// maxProblems bounds what one check reports.
const maxProblems = 50

// readStallLimit is how long a read may go without a new record before it
// counts as stuck (a transaction left open holds read_committed back for
// ever); a slow machine reading a long log keeps making progress.
const readStallLimit = time.Minute

// read reads each partition in from, from its offset up to its end in ends,
// with read_committed, keeping control records so that the last offset is
// seen however the range ends, and compares what it finds with the ledger.
func (v *killVerifier) read(ctx context.Context, from, ends map[topicPartition]int64) []string {
	if len(from) == 0 {
		return nil
	}
	offsets := map[string]map[int32]kgo.Offset{}
	for tp, o := range from {
		if offsets[tp.topic] == nil {
			offsets[tp.topic] = map[int32]kgo.Offset{}
		}
		offsets[tp.topic][tp.partition] = kgo.NewOffset().At(o)
	}
	cl, err := kgo.NewClient(kgo.SeedBrokers(v.addr), kgo.ConsumePartitions(offsets),
		kgo.FetchIsolationLevel(kgo.ReadCommitted()), kgo.KeepControlRecords())
	if err != nil {
		return []string{err.Error()}
	}
	defer cl.Close()

	l := v.ledger
	l.mu.Lock()
	defer l.mu.Unlock()
	var problems []string
	report := func(format string, args ...any) {
		if len(problems) < maxProblems {
			problems = append(problems, fmt.Sprintf(format, args...))
		}
	}
	next := map[topicPartition]int64{}
	for tp, o := range from {
		next[tp] = o
	}
	found := map[topicPartition]map[int64]bool{}
	visible := map[txnKey]map[recordID]int64{}
	lastProgress := time.Now()
	for len(next) > 0 {
		pollCtx, cancelPoll := context.WithTimeout(ctx, readStallLimit)
		fetches := cl.PollFetches(pollCtx)
		cancelPoll()
		if ctx.Err() != nil || time.Since(lastProgress) >= readStallLimit {
			report("read stopped with these partitions short of their end (next offset): %v (%s without a new record)", next, time.Since(lastProgress).Round(time.Second))
			break
		}
		fetches.EachError(func(topic string, partition int32, err error) {
			if pollCtx.Err() != nil && errors.Is(err, pollCtx.Err()) {
				return // the poll's own deadline: judged by the stall limit
			}
			report("fetching %s-%d: %v", topic, partition, err)
		})
		fetches.EachRecord(func(r *kgo.Record) {
			tp := topicPartition{r.Topic, r.Partition}
			want, reading := next[tp]
			if !reading || r.Offset >= ends[tp] {
				return
			}
			lastProgress = time.Now()
			if r.Offset < want {
				report("%s-%d: offset %d read after %d", tp.topic, tp.partition, r.Offset, want-1)
			}
			if next[tp] = r.Offset + 1; next[tp] == ends[tp] {
				delete(next, tp)
			}
			if r.Attrs.IsControl() {
				return
			}
			id, err := parseRecordID(r.Value)
			if err != nil {
				report("%s-%d offset %d: %v", tp.topic, tp.partition, r.Offset, err)
				return
			}
			if a, ok := l.acked[tp][r.Offset]; ok {
				if a != id {
					report("%s-%d offset %d holds %v; %v was acknowledged there", tp.topic, tp.partition, r.Offset, id, a)
				} else {
					if found[tp] == nil {
						found[tp] = map[int64]bool{}
					}
					found[tp][r.Offset] = true
				}
			}
			if id.kind != txnRecord {
				return
			}
			key := txnKey{id.cycle, id.txn}
			switch tx := l.txns[key]; {
			case tx == nil:
				report("%s-%d offset %d: %v of a transaction never begun", tp.topic, tp.partition, r.Offset, id)
			case tx.outcome == txnAborted:
				report("%s-%d offset %d: %v of aborted transaction %v is visible with read_committed", tp.topic, tp.partition, r.Offset, id, key)
			case tx.outcome != txnCommitted:
				if visible[key] == nil {
					visible[key] = map[recordID]int64{}
				}
				visible[key][id] = r.Offset
			}
		})
	}
	for tp, m := range l.acked {
		start, reading := from[tp]
		if !reading {
			continue
		}
		for o, id := range m {
			if o < start || o >= ends[tp] {
				continue
			}
			if found[tp][o] {
				v.checked++
				continue
			}
			if id.kind == txnRecord && l.txns[txnKey{id.cycle, id.txn}].outcome != txnCommitted {
				continue // judged with its transaction below
			}
			report("LOST: %v acknowledged at %s-%d offset %d", id, tp.topic, tp.partition, o)
		}
	}
	for key, tx := range l.txns {
		if tx.outcome == txnCommitted || tx.outcome == txnAborted {
			continue
		}
		vis := visible[key]
		whole := len(vis) == len(tx.acked)
		for id, o := range tx.acked {
			if vo, ok := vis[id]; !ok || vo != o {
				whole = false
			}
		}
		switch {
		case len(vis) == 0:
			tx.outcome = txnAborted
		case whole:
			tx.outcome = txnCommitted
			v.checked += int64(len(vis))
		default:
			report("transaction %v left undecided by the kill is partly visible: %d records of %d acknowledged", key, len(vis), len(tx.acked))
		}
	}
	return problems
}
