package integration

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/karst-broker/karst/karsttest"
)

// offsetsCompaction is what one run of commitsThenClean measured.
type offsetsCompaction struct {
	commits                   int
	commitTime                time.Duration
	bytesBefore, bytesAfter   int64 // __consumer_offsets-0 on disk
	loadBefore, loadAfter     time.Duration
	cleanTime                 time.Duration
	recordsBelow, cleanedTo   int64
	segmentsBefore, segsAfter int
}

// commitsThenClean has groups simple groups commit partitions offsets of
// benchCommitTopic rounds times each (offset = round), all groups at once,
// into one __consumer_offsets partition of 1 MiB segments, on a broker
// whose cleaner is off. It restarts that broker and times until every
// group's last offset is answered (the load of the whole history), then
// restarts it with the cleaner on, waits until the partition is cleaned to
// its active segment, checks that below the cleaned offset each group and
// partition's offset is there once, and times the load again.
func commitsThenClean(t testing.TB, groups, partitions, rounds int) offsetsCompaction {
	dir := t.TempDir()
	start := func(cleaner bool) *karsttest.Broker { return startOffsetsBroker(t, dir, cleaner) }
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	var res offsetsCompaction
	br := start(false)
	cl, err := kgo.NewClient(kgo.SeedBrokers(br.Addr()), kgo.RetryTimeout(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	createBenchCommitTopic(t, ctx, cl, int32(partitions))
	began := time.Now()
	commitRounds(t, ctx, cl, groups, partitions, rounds, nil)
	res.commits, res.commitTime = groups*partitions*rounds, time.Since(began)
	cl.Close()
	if err := br.Stop(); err != nil {
		t.Fatal(err)
	}
	part := filepath.Join(dir, "__consumer_offsets-0")
	res.bytesBefore, res.segmentsBefore = dirLogBytes(t, part)

	// load times until every group's last commit is answered after a start.
	load := func(br *karsttest.Broker) time.Duration {
		began := time.Now()
		cl, err := kgo.NewClient(kgo.SeedBrokers(br.Addr()), kgo.RetryTimeout(time.Minute))
		if err != nil {
			t.Fatal(err)
		}
		defer cl.Close()
		for g := range groups {
			for {
				off, err := fetchedOffset(ctx, cl, fmt.Sprintf("offsets-%03d", g))
				if err == nil && off == int64(rounds-1) {
					break
				}
				if ctx.Err() != nil {
					t.Fatalf("group %d: offset %d, %v", g, off, err)
				}
				time.Sleep(time.Millisecond)
			}
		}
		return time.Since(began)
	}
	began = time.Now()
	br = start(false)
	res.loadBefore = time.Since(began) + load(br)
	if err := br.Stop(); err != nil {
		t.Fatal(err)
	}

	began = time.Now()
	br = start(true)
	waitCleanedToActive(t, ctx, dir)
	res.cleanTime = time.Since(began)
	res.cleanedTo = cleanedOffset(dir, "__consumer_offsets")
	below := readKeysBelow(t, ctx, br.Addr(), "__consumer_offsets", res.cleanedTo)
	seen := map[string]bool{}
	for _, r := range below {
		if seen[string(r.Key)] {
			t.Fatalf("__consumer_offsets key %q more than once below the cleaned offset %d", r.Key, res.cleanedTo)
		}
		seen[string(r.Key)] = true
	}
	res.recordsBelow = int64(len(below))
	if res.recordsBelow > int64(groups*partitions) {
		t.Fatalf("%d records below the cleaned offset, more than the %d offsets committed", res.recordsBelow, groups*partitions)
	}
	if err := br.Stop(); err != nil {
		t.Fatal(err)
	}
	res.bytesAfter, res.segsAfter = dirLogBytes(t, part)
	began = time.Now()
	br = start(true)
	res.loadAfter = time.Since(began) + load(br)
	return res
}

// dirLogBytes sums the segment files of a partition directory.
func dirLogBytes(t testing.TB, dir string) (int64, int) {
	if _, err := os.Stat(dir); err != nil {
		t.Fatal(err)
	}
	return liveLogBytes(dir)
}

func (r offsetsCompaction) String() string {
	return fmt.Sprintf("%d commits in %v; __consumer_offsets-0 %d bytes in %d segments before cleaning, %d in %d after; "+
		"cleaned to %d in %v (start included), %d records below it; load of every group's offsets %v before, %v after",
		r.commits, r.commitTime.Round(time.Millisecond), r.bytesBefore, r.segmentsBefore, r.bytesAfter, r.segsAfter,
		r.cleanedTo, r.cleanTime.Round(time.Millisecond), r.recordsBelow, r.loadBefore.Round(time.Millisecond), r.loadAfter.Round(time.Millisecond))
}

// TestConsumerOffsetsCleanedToTheLatestOffsets: 100 groups commit 5
// partitions 100 times each (50,000 offset commits); the cleaned
// __consumer_offsets holds each group's latest offsets once below the
// cleaned offset, and restarts on it answer them.
func TestConsumerOffsetsCleanedToTheLatestOffsets(t *testing.T) {
	if testing.Short() {
		t.Skip("commits 50,000 offsets and restarts the broker three times")
	}
	r := commitsThenClean(t, 100, 5, 100)
	if r.bytesAfter >= r.bytesBefore/2 {
		t.Fatalf("cleaning left %d of %d bytes", r.bytesAfter, r.bytesBefore)
	}
	t.Log(r)
}

// BenchmarkConsumerOffsetsCleaning is the 1,000,000-commit run: 100 groups
// commit 10 partitions 1,000 times each. Figures, not a loop: it runs once
// whatever b.N.
func BenchmarkConsumerOffsetsCleaning(b *testing.B) {
	for b.Loop() {
		r := commitsThenClean(b, 100, 10, 1000)
		b.Log(r)
		b.ReportMetric(r.loadBefore.Seconds(), "s-load-before")
		b.ReportMetric(r.loadAfter.Seconds(), "s-load-after")
		b.ReportMetric(float64(r.bytesBefore), "bytes-before")
		b.ReportMetric(float64(r.bytesAfter), "bytes-after")
	}
}

// startOffsetsBroker starts a broker on dir with one __consumer_offsets
// partition of 1 MiB segments, so that a commit run rolls many.
func startOffsetsBroker(t testing.TB, dir string, cleaner bool) *karsttest.Broker {
	return karsttest.Start(t, karsttest.WithConfig("log.dirs", dir),
		karsttest.WithConfig("offsets.topic.num.partitions", "1"),
		karsttest.WithConfig("offsets.topic.segment.bytes", "1048576"),
		karsttest.WithConfig("log.cleaner.backoff.ms", "100"),
		karsttest.WithConfig("log.cleaner.enable", fmt.Sprint(cleaner)))
}

// waitCleanedToActive waits until the cleaner has checkpointed
// __consumer_offsets-0 up to its active segment, or ctx's deadline.
func waitCleanedToActive(t testing.TB, ctx context.Context, dir string) {
	t.Helper()
	for cleanedOffset(dir, "__consumer_offsets") < activeBase(t, dir, "__consumer_offsets") {
		if ctx.Err() != nil {
			t.Fatalf("__consumer_offsets-0 not cleaned to its active segment %d: cleaned to %d",
				activeBase(t, dir, "__consumer_offsets"), cleanedOffset(dir, "__consumer_offsets"))
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// commitRounds has groups simple groups (offsets-000...) commit partitions
// offsets of benchCommitTopic rounds times each (offset = round), all
// groups at once; committed, if not nil, is called after each request.
func commitRounds(t testing.TB, ctx context.Context, cl *kgo.Client, groups, partitions, rounds int, committed func()) {
	var wg sync.WaitGroup
	errs := make(chan error, groups)
	for g := range groups {
		wg.Go(func() {
			for r := range rounds {
				if err := commitOffsets(ctx, cl, fmt.Sprintf("offsets-%03d", g), int32(partitions), int64(r)); err != nil {
					errs <- err
					return
				}
				if committed != nil {
					committed()
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}

// offsetsSizeSample is __consumer_offsets-0's segments on disk after a
// number of commits.
type offsetsSizeSample struct {
	commits  int64
	elapsed  time.Duration
	logBytes int64
	segments int
}

// commitsSampled commits as commitsThenClean does, on one broker whose
// cleaner is on or off, and samples the partition's .log bytes every
// step commits (rounded to whole requests); with the cleaner on, a last
// sample is taken once it has cleaned to the active segment.
func commitsSampled(t testing.TB, cleaner bool, groups, partitions, rounds int, step int64) []offsetsSizeSample {
	dir := t.TempDir()
	br := startOffsetsBroker(t, dir, cleaner)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	cl, err := kgo.NewClient(kgo.SeedBrokers(br.Addr()), kgo.RetryTimeout(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	createBenchCommitTopic(t, ctx, cl, int32(partitions))
	part := filepath.Join(dir, "__consumer_offsets-0")
	began := time.Now()
	var (
		mu      sync.Mutex
		samples []offsetsSizeSample
		done    atomic.Int64
	)
	sample := func(commits int64) {
		n, segs := liveLogBytes(part)
		mu.Lock()
		samples = append(samples, offsetsSizeSample{commits, time.Since(began), n, segs})
		mu.Unlock()
	}
	perRequest := int64(partitions)
	commitRounds(t, ctx, cl, groups, partitions, rounds, func() {
		if n := done.Add(perRequest); n%step < perRequest {
			sample(n)
		}
	})
	if cleaner {
		waitCleanedToActive(t, ctx, dir)
		sample(done.Load())
	}
	sort.Slice(samples, func(i, j int) bool { return samples[i].elapsed < samples[j].elapsed })
	return samples
}

// liveLogBytes sums dir's .log segments; it may run while the broker
// writes and cleans them: a segment the cleaner deletes between the
// listing and its stat is not counted.
func liveLogBytes(dir string) (int64, int) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return 0, 0
	}
	var n int64
	segs := 0
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".log") {
			continue
		}
		if info, err := e.Info(); err == nil {
			n += info.Size()
			segs++
		}
	}
	return n, segs
}

// BenchmarkConsumerOffsetsSizeOverTime is the figure of the partition's
// size over a long commit run, with and without the cleaner: 100 groups
// commit 10 partitions 1,000 times each (1,000,000 commits), sampled every
// 100,000. Figures, not a loop: it runs once whatever b.N.
func BenchmarkConsumerOffsetsSizeOverTime(b *testing.B) {
	for b.Loop() {
		for _, cleaner := range []bool{false, true} {
			s := commitsSampled(b, cleaner, 100, 10, 1000, 100_000)
			var rows strings.Builder
			for _, x := range s {
				fmt.Fprintf(&rows, "\n| %d | %.3f s | %d | %d |", x.commits, x.elapsed.Seconds(), x.logBytes, x.segments)
			}
			last := ""
			if cleaner {
				last = " (the last row: once the cleaner had cleaned to the active segment)"
			}
			b.Logf("log.cleaner.enable=%v%s\n| commits | elapsed | .log bytes | segments |%s", cleaner, last, rows.String())
			b.ReportMetric(float64(s[len(s)-1].logBytes), fmt.Sprintf("bytes-end-cleaner-%v", cleaner))
		}
	}
}
