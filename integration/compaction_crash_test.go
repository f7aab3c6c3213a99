package integration

import (
	"context"
	"fmt"
	mrand "math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// TestSIGKILLDuringCleaningLosesNoRecord kills the broker process with
// SIGKILL while its cleaner compacts a topic, at points spread over the
// pass (the pass is throttled to a few seconds and the kill falls at a
// random moment after its .cleaned file appears, or, every third time, as
// soon as a .swap file is seen), restarts it on the same
// directory and reads the whole partition: each key's last acknowledged
// record must be there at its offset, and no record the cleaner had
// already removed may be back (every offset served must have been served
// by the broker before the kill, or be newly written). At the end a pass
// runs to completion and must leave each key once below the cleaned
// offset.
func TestSIGKILLDuringCleaningLosesNoRecord(t *testing.T) {
	if testing.Short() {
		t.Skip("kills and restarts a broker process")
	}
	k := &karstProcess{t: t, bin: buildKarst(t), dir: filepath.Join(t.TempDir(), "data"),
		addr: "127.0.0.1:" + strconv.Itoa(freePort(t)),
		// 1.5 MB/s of cleaner I/O makes a pass over the ~3 MB log last seconds.
		overrides: []string{"log.cleaner.backoff.ms=10", "log.cleaner.io.max.bytes.per.second=1500000"}}
	k.start()
	defer func() { k.kill() }()
	ctx, cancel := context.WithTimeout(context.Background(), 6*time.Minute)
	defer cancel()

	const topic, keys, perRound, rounds = "crash-compact", 150, 1200, 10
	admin, err := kgo.NewClient(kgo.SeedBrokers(k.addr))
	if err != nil {
		t.Fatal(err)
	}
	createCompacted(t, ctx, kadm.NewClient(admin), topic, "86400000")
	admin.Close()

	type write struct {
		offset int64
		value  string // "" for a tombstone
	}
	last := map[string]write{}
	served := map[int64]bool{} // offsets the broker served at the last read, and written since
	rng := mrand.New(mrand.NewPCG(18, 9))
	pad := strings.Repeat("c", 2000)
	partDir := filepath.Join(k.dir, topic+"-0")
	var killedAt []string
	for round := 0; round <= rounds; round++ {
		cl, err := kgo.NewClient(kgo.SeedBrokers(k.addr), kgo.DefaultProduceTopic(topic),
			kgo.RecordPartitioner(kgo.ManualPartitioner()), kgo.ProducerBatchCompression(kgo.NoCompression()),
			kgo.RetryTimeout(time.Minute))
		if err != nil {
			t.Fatal(err)
		}
		recs := make([]*kgo.Record, perRound)
		for i := range recs {
			key := fmt.Sprintf("key-%03d", rng.IntN(keys))
			recs[i] = &kgo.Record{Key: []byte(key)}
			if rng.IntN(20) != 0 {
				recs[i].Value = []byte(fmt.Sprintf("r%d-%d-%s", round, i, pad))
			}
		}
		if err := cl.ProduceSync(ctx, recs...).FirstErr(); err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		cl.Close()
		for _, r := range recs {
			last[string(r.Key)] = write{r.Offset, string(r.Value)}
			served[r.Offset] = true
		}
		if round == rounds {
			break
		}

		// Kill at a random moment of the pass these writes made dirty: from
		// the appearance of its .cleaned file, when there is one in time, up
		// to past its end (kills after the swap are cases too).
		passStart := time.Now()
		for !hasSuffixFile(partDir, ".cleaned") && time.Since(passStart) < 20*time.Second {
			time.Sleep(2 * time.Millisecond)
		}
		delay := time.Duration(rng.IntN(2500)) * time.Millisecond
		if round%3 == 2 {
			// Every third kill aims at the swap, a few milliseconds long: the
			// moment a .swap file is seen, or when the pass ends without one
			// seen.
			delay = 0
			for !hasSuffixFile(partDir, ".swap") && hasSuffixFile(partDir, ".cleaned") {
				time.Sleep(200 * time.Microsecond)
			}
		}
		time.Sleep(delay)
		state := "after"
		switch {
		case hasSuffixFile(partDir, ".swap"):
			state = "swap"
		case hasSuffixFile(partDir, ".cleaned"):
			state = "copy"
		}
		killedAt = append(killedAt, fmt.Sprintf("%v/%s", delay, state))
		k.kill()
		k.start()

		got := readPartition(t, ctx, k.addr, topic)
		checkCompactedAgainst(t, round, got, served, func(key string) (int64, string) {
			w := last[key]
			return w.offset, w.value
		}, len(last))
		served = map[int64]bool{}
		for _, r := range got {
			served[r.Offset] = true
		}
	}

	// A last pass without a kill cleans everything below the active segment.
	deadline := time.Now().Add(2 * time.Minute)
	for cleanedOffset(k.dir, topic) < activeBase(t, k.dir, topic) {
		if time.Now().After(deadline) {
			t.Fatalf("not cleaned to the active segment (%d) after the kills: cleaned to %d", activeBase(t, k.dir, topic), cleanedOffset(k.dir, topic))
		}
		time.Sleep(10 * time.Millisecond)
	}
	cleaned := cleanedOffset(k.dir, topic)
	got := readPartition(t, ctx, k.addr, topic)
	checkCompactedAgainst(t, rounds, got, served, func(key string) (int64, string) {
		w := last[key]
		return w.offset, w.value
	}, len(last))
	seen := map[string]bool{}
	for _, r := range got {
		if r.Offset < cleaned {
			if seen[string(r.Key)] {
				t.Errorf("%s more than once below the cleaned offset %d", r.Key, cleaned)
			}
			seen[string(r.Key)] = true
		}
	}
	logText, _ := os.ReadFile(k.logPath())
	t.Logf("%d kills at (delay from the .cleaned file/what was on disk) %v; %d records left of %d written, cleaned to %d; "+
		"recovery completed %d interrupted swap files, dropped %d unfinished ones and %d .cleaned files",
		rounds, killedAt, len(got), (rounds+1)*perRound, cleaned, strings.Count(string(logText), "completing an interrupted swap"),
		strings.Count(string(logText), "removing swap file of an unfinished swap"),
		strings.Count(string(logText), "removing file of an interrupted cleaning"))
}

// checkCompactedAgainst requires of a compacted partition read from its
// start: offsets ascending, each key's last record the last one written
// (lastOf), and only offsets in allowed.
func checkCompactedAgainst(t *testing.T, round int, got []*kgo.Record, allowed map[int64]bool,
	lastOf func(string) (int64, string), keys int) {
	t.Helper()
	lastSeen := map[string]*kgo.Record{}
	prev := int64(-1)
	for _, r := range got {
		if r.Offset <= prev {
			t.Fatalf("round %d: offset %d after %d", round, r.Offset, prev)
		}
		prev = r.Offset
		if !allowed[r.Offset] {
			t.Errorf("round %d: %s at offset %d is back after the cleaner had removed it", round, r.Key, r.Offset)
		}
		lastSeen[string(r.Key)] = r
	}
	if len(lastSeen) != keys {
		t.Errorf("round %d: %d keys in the log, %d written", round, len(lastSeen), keys)
	}
	for key, r := range lastSeen {
		off, value := lastOf(key)
		if r.Offset != off || string(r.Value) != value || (value == "") != (r.Value == nil) {
			t.Errorf("round %d: %s: last record at %d (%d bytes), last written at %d (%d bytes)",
				round, key, r.Offset, len(r.Value), off, len(value))
		}
	}
}

// readPartition reads partition 0 of topic from its start to its end.
func readPartition(t *testing.T, ctx context.Context, addr, topic string) []*kgo.Record {
	t.Helper()
	cl := partitionReader(t, addr, topic)
	defer cl.Close()
	ends, err := kadm.NewClient(cl).ListEndOffsets(ctx, topic)
	if err != nil {
		t.Fatal(err)
	}
	end, _ := ends.Lookup(topic, 0)
	var out []*kgo.Record
	for len(out) == 0 || out[len(out)-1].Offset < end.Offset-1 {
		fs := cl.PollFetches(ctx)
		if ctx.Err() != nil {
			t.Fatalf("%s: timed out reading to offset %d (%d records read)", topic, end.Offset, len(out))
		}
		for _, fe := range fs.Errors() {
			t.Fatalf("fetch %s: %v", topic, fe.Err)
		}
		out = append(out, fs.Records()...)
	}
	return out
}

func dirNames(dir string) []string {
	entries, _ := os.ReadDir(dir)
	names := make([]string, 0, len(entries))
	for _, e := range entries {
		names = append(names, e.Name())
	}
	sort.Strings(names)
	return names
}

func hasSuffixFile(dir, suffix string) bool {
	for _, n := range dirNames(dir) {
		if strings.HasSuffix(n, suffix) {
			return true
		}
	}
	return false
}
