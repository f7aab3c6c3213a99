package integration

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// killVerifier checks a restarted broker against the ledger.
type killVerifier struct {
	addr     string
	topics   []killCycleTopic
	ledger   *killLedger
	readFrom map[topicPartition]int64 // the high watermark at the last check
	checked  int64                    // acknowledged records found in place, over all checks
}

// check runs every check on a restarted broker to which nothing has been
// written since it started: created topics exist, no partition lost its
// start or its acknowledged tail, and then, once the open transaction is
// fenced, a read_committed read of what was written since the last check
// (of everything if full) finds each acknowledged record at its offset
// with its value, each committed transaction whole and no aborted one.
func (v *killVerifier) check(ctx context.Context, full bool) []string {
	admin, err := kgo.NewClient(kgo.SeedBrokers(v.addr))
	if err != nil {
		return []string{err.Error()}
	}
	defer admin.Close()
	adm := kadm.NewClient(admin)
	problems := v.checkTopics(ctx, adm)
	problems = append(problems, v.checkEnds(ctx, adm)...)
	if len(problems) > 0 {
		return problems
	}
	if err := fenceTxnID(ctx, admin); err != nil {
		return []string{err.Error()}
	}
	ends, err := v.waitStable(ctx, adm)
	if err != nil {
		return []string{err.Error()}
	}
	from := map[topicPartition]int64{}
	for tp, end := range ends {
		if full {
			from[tp] = 0
		} else {
			from[tp] = v.readFrom[tp]
		}
		if from[tp] >= end {
			delete(from, tp)
		}
	}
	problems = v.read(ctx, from, ends)
	v.readFrom = ends
	return problems
}

func (v *killVerifier) checkTopics(ctx context.Context, adm *kadm.Client) []string {
	listed, err := adm.ListTopics(ctx)
	if err != nil {
		return []string{fmt.Sprintf("listing topics: %v", err)}
	}
	v.ledger.mu.Lock()
	defer v.ledger.mu.Unlock()
	var problems []string
	for name, partitions := range v.ledger.topics {
		if d, ok := listed[name]; !ok {
			problems = append(problems, fmt.Sprintf("topic %s, whose creation was acknowledged, is gone", name))
		} else if len(d.Partitions) != partitions {
			problems = append(problems, fmt.Sprintf("topic %s has %d partitions, created with %d", name, len(d.Partitions), partitions))
		}
	}
	return problems
}

// checkEnds compares each partition's start and end offsets with what was
// acknowledged: before anything is written again a cut tail still shows.
func (v *killVerifier) checkEnds(ctx context.Context, adm *kadm.Client) []string {
	names := v.topicNames()
	starts, err := listed(adm.ListStartOffsets(ctx, names...))
	if err != nil {
		return []string{fmt.Sprintf("listing start offsets: %v", err)}
	}
	ends, err := listed(adm.ListEndOffsets(ctx, names...))
	if err != nil {
		return []string{fmt.Sprintf("listing end offsets: %v", err)}
	}
	v.ledger.mu.Lock()
	defer v.ledger.mu.Unlock()
	var problems []string
	for tp, max := range v.ledger.maxAcked {
		if s, _ := starts.Lookup(tp.topic, tp.partition); s.Offset != 0 {
			problems = append(problems, fmt.Sprintf("%s-%d starts at %d, not 0", tp.topic, tp.partition, s.Offset))
		}
		if e, _ := ends.Lookup(tp.topic, tp.partition); e.Offset <= max {
			problems = append(problems, fmt.Sprintf("%s-%d ends at %d; offset %d was acknowledged", tp.topic, tp.partition, e.Offset, max))
		}
	}
	return problems
}

func (v *killVerifier) topicNames() []string {
	var names []string
	for _, t := range v.topics {
		names = append(names, t.name)
	}
	return names
}

// fenceTxnID bumps the transactional id's epoch, as a new producer's
// InitProducerId does: the coordinator aborts a transaction the killed
// cycle left open, so the last stable offset can reach the high watermark.
func fenceTxnID(ctx context.Context, cl *kgo.Client) error {
	for {
		req := kmsg.NewPtrInitProducerIDRequest()
		id := killCycleTxnID
		req.TransactionalID = &id
		req.TransactionTimeoutMillis = 60_000
		req.ProducerID, req.ProducerEpoch = -1, -1
		resp, err := req.RequestWith(ctx, cl)
		if err == nil {
			err = kerr.ErrorForCode(resp.ErrorCode)
		}
		if err == nil {
			return nil
		}
		if ctx.Err() != nil || !kerr.IsRetriable(err) && !errors.Is(err, kerr.ConcurrentTransactions) {
			return fmt.Errorf("fencing %s: %v", killCycleTxnID, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// waitStable waits until every partition's last stable offset is its high
// watermark and returns those offsets. One that stays short (a transaction
// marker lost, say) is reported after 30 seconds.
func (v *killVerifier) waitStable(ctx context.Context, adm *kadm.Client) (map[topicPartition]int64, error) {
	deadline := time.Now().Add(30 * time.Second)
	for {
		hw, err := listed(adm.ListEndOffsets(ctx, v.topicNames()...))
		var lso kadm.ListedOffsets
		if err == nil {
			lso, err = listed(adm.ListCommittedOffsets(ctx, v.topicNames()...))
		}
		if err != nil {
			return nil, fmt.Errorf("listing offsets: %v", err)
		}
		ends := map[topicPartition]int64{}
		var short []string
		hw.Each(func(o kadm.ListedOffset) {
			ends[topicPartition{o.Topic, o.Partition}] = o.Offset
			if l, _ := lso.Lookup(o.Topic, o.Partition); l.Offset != o.Offset {
				short = append(short, fmt.Sprintf("%s-%d: last stable offset %d, high watermark %d", o.Topic, o.Partition, l.Offset, o.Offset))
			}
		})
		if len(short) == 0 {
			return ends, nil
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("after fencing %s, read_committed stays behind: %v", killCycleTxnID, short)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// listed folds a listing's per-partition errors into its error.
func listed(o kadm.ListedOffsets, err error) (kadm.ListedOffsets, error) {
	if err == nil {
		err = o.Error()
	}
	return o, err
}
