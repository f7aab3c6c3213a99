package txn

import (
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/karst-broker/karst/internal/coordinator"
)

// snap is what the random test sees of one transactional id.
type snap struct {
	state      State
	pid        int64
	epoch      int16
	partitions map[TopicPartition]struct{}
}

func (f *fixture) snapshot() map[string]snap {
	out := map[string]snap{}
	for _, p := range f.c.rt.Partitions() {
		coordinator.Read(f.c.rt, p, func(s *stateShard) (struct{}, error) {
			for id, m := range s.txns {
				out[id] = snap{m.state, m.producerID, m.epoch, maps.Clone(m.partitions)}
			}
			return struct{}{}, nil
		})
	}
	return out
}

// allowed lists the states a transactional id may reach from each state
// within one operation (Kafka's valid previous states, with the
// background completion run inline).
// Transaction version 2 may abort from Empty and the Complete states.
var allowed = map[State][]State{
	Empty:          {Empty, Ongoing, PrepareAbort, CompleteAbort},
	Ongoing:        {Ongoing, PrepareCommit, PrepareAbort, CompleteCommit, CompleteAbort},
	PrepareCommit:  {PrepareCommit, CompleteCommit},
	PrepareAbort:   {PrepareAbort, CompleteAbort},
	CompleteCommit: {CompleteCommit, Ongoing, Empty, PrepareAbort, CompleteAbort},
	CompleteAbort:  {CompleteAbort, Ongoing, Empty, PrepareAbort},
}

// ending is a transaction between its Prepare state and its markers.
type ending struct {
	// ids are the producer ids and epochs its markers may carry: the
	// epoch after the Prepare write (bumped by transaction version 2, or
	// by a fence), and with an epoch overflow the old producer id.
	ids       []ProducerIDAndEpoch
	commit    bool
	parts     map[TopicPartition]struct{}
	delivered map[TopicPartition]struct{}
}

// TestRandomSequences drives thousands of random operations (producers
// of a few transactional ids, partitions, commits, aborts, re-inits,
// timeouts, held-back completions, failed writes and restarts) and
// checks, after each, that epochs only grow, that states move only as
// Kafka's state machine allows, and that markers are written for exactly
// the partitions of the transaction that ends, with its outcome, before
// it completes.
func TestRandomSequences(t *testing.T) {
	seeds := 1500
	if testing.Short() {
		seeds = 200
	}
	var seen coverage
	for seed := range seeds {
		t.Run(fmt.Sprint(seed), func(t *testing.T) { randomSequence(t, uint64(seed), &seen) })
		if t.Failed() {
			return
		}
	}
	// The sequences must reach the interesting cases, not just refusals.
	if seen.commits < seeds/2 || seen.aborts < seeds/2 || seen.markers < seeds || seen.restartsPrepared < seeds/50 {
		t.Fatalf("too little coverage: %+v", seen)
	}
}

// coverage counts what the random sequences reached.
type coverage struct {
	commits, aborts, markers, restartsPrepared int
}

func randomSequence(t *testing.T, seed uint64, seen *coverage) {
	rng := rand.New(rand.NewPCG(seed, 7))
	f := newFixture(t)
	f.cfg.AbortTimedOutInterval = time.Second
	f.cfg.IDExpiration = time.Minute
	f.cfg.RemoveExpiredInterval = 10 * time.Second
	f.c = f.newCoordinator()
	ids := []string{"a", "b", "c"}
	parts := []TopicPartition{tp("t", 0), tp("t", 1), tp("u", 0), tp("__consumer_offsets", 4), tp("gone", 0)}
	f.markers.gone["gone"] = true
	// producers holds, per id, the producer ids and epochs handed out.
	producers := map[string][]ProducerIDAndEpoch{}
	pick := func(id string) ProducerIDAndEpoch {
		ps := producers[id]
		if len(ps) == 0 {
			return ProducerIDAndEpoch{ProducerID: 1, ProducerEpoch: 0}
		}
		if rng.IntN(4) == 0 {
			return ps[rng.IntN(len(ps))] // maybe a zombie
		}
		return ps[len(ps)-1]
	}
	endings := map[string]*ending{}
	before := f.snapshot()
	var log []string
	for step := range 80 {
		id := ids[rng.IntN(len(ids))]
		f.store.fail(nil)
		f.markers.fail = nil
		if rng.IntN(15) == 0 {
			f.store.fail(errors.New("store down"))
		}
		if rng.IntN(15) == 0 {
			f.markers.fail = errors.New("log down")
		}
		var op string
		// sent is the producer an EndTxn was sent as.
		var sent ProducerIDAndEpoch
		switch r := rng.IntN(100); {
		case r < 15:
			op = "init"
			req := InitRequest{TransactionalID: id, TimeoutMs: int32(500 + rng.IntN(5000)), ProducerID: -1, ProducerEpoch: -1}
			if ps := producers[id]; len(ps) > 0 && rng.IntN(2) == 0 {
				p := pick(id)
				req.ProducerID, req.ProducerEpoch = p.ProducerID, p.ProducerEpoch
			}
			if pe, err := f.c.InitProducerID(ctx, req); err == nil {
				producers[id] = append(producers[id], pe)
			}
		case r < 45:
			op = "add"
			p := pick(id)
			var tps []TopicPartition
			for range 1 + rng.IntN(3) {
				tps = append(tps, parts[rng.IntN(len(parts))])
			}
			if rng.IntN(2) == 0 {
				f.c.AddPartitions(ctx, id, p.ProducerID, p.ProducerEpoch, tps)
			} else {
				f.c.AddPartitionsImplicit(ctx, id, p.ProducerID, p.ProducerEpoch, tps)
			}
		case r < 55:
			op = "end"
			p := pick(id)
			sent = p
			f.c.EndTxn(ctx, id, p.ProducerID, p.ProducerEpoch, rng.IntN(2) == 0)
		case r < 65:
			op = "end-v2"
			p := pick(id)
			sent = p
			if pe, err := f.c.EndTxnV2(ctx, id, p.ProducerID, p.ProducerEpoch, rng.IntN(2) == 0); err == nil {
				producers[id] = append(producers[id], pe)
			}
		case r < 78:
			op = "tick"
			f.advance(time.Duration(rng.IntN(3000)) * time.Millisecond)
			f.settle()
		case r < 85:
			op = "hold"
			f.q.setHold(true)
		case r < 93:
			op = "release"
			f.q.setHold(false)
			f.q.run()
		default:
			op = "restart"
			for _, b := range before {
				if b.state.preparing() {
					seen.restartsPrepared++
				}
			}
			f.q.drop() // the dead broker's background work dies with it
			f.store.fail(nil)
			f.restart()
		}
		log = append(log, fmt.Sprintf("%d %s %s", step, op, id))
		opID := id
		after := f.snapshot()
		fail := func(format string, args ...any) {
			t.Helper()
			t.Fatalf("seed %d, after %v: "+format, append([]any{seed, log}, args...)...)
		}
		// Transitions.
		for id, a := range after {
			b, ok := before[id]
			if !ok {
				if a.state != Empty || op != "init" {
					fail("%s appeared in %v", id, a.state)
				}
				continue
			}
			if !contains(allowed[b.state], a.state) {
				fail("%s moved %v -> %v", id, b.state, a.state)
			}
			if a.pid == b.pid && a.epoch < b.epoch {
				fail("%s epoch went back %d -> %d", id, b.epoch, a.epoch)
			}
			if b.state == Ongoing && (a.state == Ongoing || a.state.preparing() || a.state == CompleteCommit || a.state == CompleteAbort) {
				for tp := range b.partitions {
					if _, ok := a.partitions[tp]; !ok && (a.state == Ongoing || a.state.preparing()) {
						fail("%s lost partition %v", id, tp)
					}
				}
			}
			// A transaction that ends: remember its partitions.
			// Only the producer of the open transaction ends it: a late
			// EndTxn of an earlier transaction cannot.
			if (op == "end" || op == "end-v2") && id == opID && b.state == Ongoing && endsNow(b, a) &&
				(sent.ProducerID != b.pid || sent.ProducerEpoch != b.epoch) {
				fail("%s ended by %+v, its producer is %d/%d", id, sent, b.pid, b.epoch)
			}
			if endsNow(b, a) {
				parts := b.partitions
				if b.state != Ongoing {
					parts = nil // a version 2 abort with no transaction
				}
				endings[id] = &ending{ids: []ProducerIDAndEpoch{{a.pid, a.epoch}, {b.pid, b.epoch + 1}, {b.pid, b.epoch + 2}},
					commit: a.state == PrepareCommit || a.state == CompleteCommit,
					parts:  parts, delivered: map[TopicPartition]struct{}{}}
			}
		}
		for id, b := range before {
			if _, ok := after[id]; !ok && !b.state.completed() {
				fail("%s vanished in %v", id, b.state)
			}
		}
		// Markers: only for partitions of an ending transaction, with its
		// outcome.
		for _, m := range f.markers.take() {
			var e *ending
			for _, c := range endings {
				for _, pe := range c.ids {
					if pe.ProducerID == m.ProducerID && pe.ProducerEpoch == m.ProducerEpoch {
						e = c
					}
				}
			}
			if e == nil {
				fail("marker %+v of no ending transaction", m)
			}
			if _, ok := e.parts[m.TopicPartition]; !ok || m.Commit != e.commit || m.TopicPartition.Topic == "gone" {
				fail("marker %+v does not belong to %+v", m, e)
			}
			e.delivered[m.TopicPartition] = struct{}{}
			seen.markers++
		}
		for id, a := range after {
			e := endings[id]
			b := before[id]
			if e == nil || (a.state != CompleteCommit && a.state != CompleteAbort) ||
				b.state == a.state && b.epoch == a.epoch && b.pid == a.pid {
				continue
			}
			if a.state == CompleteCommit {
				seen.commits++
			} else {
				seen.aborts++
			}
			if (a.state == CompleteCommit) != e.commit {
				fail("%s completed %v, ended with commit=%v", id, a.state, e.commit)
			}
			for tp := range e.parts {
				if _, ok := e.delivered[tp]; !ok && tp.Topic != "gone" {
					fail("%s completed without a marker in %v", id, tp)
				}
			}
		}
		before = after
	}
}

func contains(states []State, s State) bool {
	for _, x := range states {
		if x == s {
			return true
		}
	}
	return false
}

// endsNow: between two snapshots a transaction ended (Prepare or
// Complete written for it).
func endsNow(b, a snap) bool {
	ended := a.state.preparing() || a.state == CompleteCommit || a.state == CompleteAbort
	if !ended || b.state.preparing() {
		return false
	}
	return b.state == Ongoing || b.state != a.state || b.epoch != a.epoch || b.pid != a.pid
}
