package main

// The compaction scenario: the same keyed input written to a broker whose
// cleaner is on, cleaned, and the surviving records compared with what the
// input implies and with what the other broker kept.
//
// The input must clean to the same result on any two brokers however
// their cleaner passes fall in time. Two things make it so:
//   - phase 1 is written behind a transaction held open from the first
//     offset of each partition, so the last stable offset stays at 0 and
//     nothing is cleanable until phase 1 ends: one pass then cleans all of
//     it and sets every tombstone's and empty transaction's delete horizon;
//     filler records after it push all of phase 1 out of the active
//     segment, so none of it first becomes clean in a later pass;
//   - each later phase, written once the pass before is done and
//     delete.retention.ms has passed, has only new keys, no tombstones and
//     no transactions, and rolls each partition's active segment exactly
//     once: one pass per partition per phase. Kafka removes what expired
//     at the previous pass and sets the horizon of what this pass leaves
//     without data: tombstones go at pass 2; a marker gets its horizon at
//     the first pass that sees none of its transaction's batches and goes
//     at the one after (passes 3 and 4 when its last data was a tombstone).
//     Four later phases reach the state no further pass changes.

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	mrand "math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

const (
	compactTopic      = "dd-compact"
	compactPartitions = 2
	// compactRetention is delete.retention.ms: phase 2 starts twice this
	// long after the pass that set the horizons.
	compactRetention = time.Second
)

// compactTopicConfigs: the smallest segment Kafka 4.4 accepts (1 MiB), a
// cleaner that takes any dirty data, and tombstones that expire soon.
var compactTopicConfigs = map[string]string{
	"cleanup.policy":            "compact",
	"segment.bytes":             "1048576",
	"min.cleanable.dirty.ratio": "0.01",
	"delete.retention.ms":       strconv.FormatInt(compactRetention.Milliseconds(), 10),
}

// WrittenRec is one record of the input as the broker placed it.
type WrittenRec struct {
	Partition int32  `json:"p"`
	Offset    int64  `json:"o"`
	Key       string `json:"k"`
	Null      bool   `json:"null,omitempty"`
	Value     string `json:"v,omitempty"` // value digest
	Aborted   bool   `json:"aborted,omitempty"`
}

func digest(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:8])
}

// compactValue is the value of the n-th write: 1,500 to 4,000 bytes, so
// the 1 MiB segments roll every few hundred records.
func compactValue(n int) []byte {
	size := 1500 + (n*37)%2500
	v := []byte(fmt.Sprintf("value-%d-", n))
	for len(v) < size {
		v = append(v, byte('a'+n%26))
	}
	return v[:size]
}

type compactWriter struct {
	ctx     context.Context
	written []WrittenRec
	n       int
}

// write sends one record on its own (one batch per record, so both brokers
// get batches of the same sizes and roll segments at the same offsets).
func (w *compactWriter) write(cl *kgo.Client, p int32, key string, tombstone bool) error {
	w.n++
	r := &kgo.Record{Topic: compactTopic, Partition: p, Key: []byte(key)}
	if !tombstone {
		r.Value = compactValue(w.n)
	}
	if err := cl.ProduceSync(w.ctx, r).FirstErr(); err != nil {
		return fmt.Errorf("produce %s to %d: %w", key, p, err)
	}
	wr := WrittenRec{Partition: p, Offset: r.Offset, Key: key, Null: tombstone}
	if !tombstone {
		wr.Value = digest(r.Value)
	}
	w.written = append(w.written, wr)
	return nil
}

func compactClient(bootstrap string, extra ...kgo.Opt) (*kgo.Client, error) {
	return kgo.NewClient(clientOpts(bootstrap, append([]kgo.Opt{kgo.ProducerLinger(0),
		kgo.ProducerBatchCompression(kgo.NoCompression()), kgo.MaxBufferedRecords(1)}, extra...)...)...)
}

// compactProduce writes phase 1 or 2 and appends what it wrote to the
// records file.
func compactProduce(ctx context.Context, bootstrap, dir string, phase int, recordsFile string) error {
	var prior []WrittenRec
	if phase > 1 {
		var err error
		if prior, err = readWritten(recordsFile); err != nil {
			return err
		}
	}
	w := &compactWriter{ctx: ctx, n: len(prior)}
	var err error
	if phase == 1 {
		err = compactPhase1(ctx, bootstrap, w)
	} else {
		err = compactLater(bootstrap, dir, w)
	}
	if err != nil {
		return err
	}
	b, err := json.Marshal(append(prior, w.written...))
	if err != nil {
		return err
	}
	return os.WriteFile(recordsFile, b, 0o644)
}

func compactPhase1(ctx context.Context, bootstrap string, w *compactWriter) error {
	admin, err := compactClient(bootstrap)
	if err != nil {
		return err
	}
	defer admin.Close()
	resp, err := kadm.NewClient(admin).CreateTopic(ctx, compactPartitions, 1, ptrs(compactTopicConfigs), compactTopic)
	if err == nil {
		err = resp.Err
	}
	if err != nil {
		return fmt.Errorf("create %s: %w", compactTopic, err)
	}

	hold, err := compactClient(bootstrap, kgo.TransactionalID("dd-compact-hold"), kgo.TransactionTimeout(10*time.Minute))
	if err != nil {
		return err
	}
	defer hold.Close()
	if err := hold.BeginTransaction(); err != nil {
		return err
	}
	for p := int32(0); p < compactPartitions; p++ {
		if err := w.write(hold, p, "hold", false); err != nil {
			return err
		}
	}

	var plain, txn []*kgo.Client
	for i := 0; i < 3; i++ {
		cl, err := compactClient(bootstrap)
		if err != nil {
			return err
		}
		defer cl.Close()
		plain = append(plain, cl)
	}
	for i := 0; i < 2; i++ {
		cl, err := compactClient(bootstrap, kgo.TransactionalID(fmt.Sprintf("dd-compact-txn-%d", i)))
		if err != nil {
			return err
		}
		defer cl.Close()
		txn = append(txn, cl)
	}
	rng := mrand.New(mrand.NewPCG(18, 44))
	const keys = 80
	key := func() (int32, string) {
		k := rng.IntN(keys)
		return int32(k % compactPartitions), fmt.Sprintf("key-%02d", k)
	}
	for op := 0; op < 700; op++ {
		if rng.IntN(10) < 6 {
			p, k := key()
			if err := w.write(plain[rng.IntN(len(plain))], p, k, rng.IntN(10) == 0); err != nil {
				return err
			}
			continue
		}
		cl := txn[rng.IntN(len(txn))]
		if err := cl.BeginTransaction(); err != nil {
			return err
		}
		first := len(w.written)
		for i, n := 0, 1+rng.IntN(4); i < n; i++ {
			p, k := key()
			if err := w.write(cl, p, k, rng.IntN(10) == 0); err != nil {
				return err
			}
		}
		commit := rng.IntN(10) < 7
		if err := cl.EndTransaction(ctx, kgo.TransactionEndTry(commit)); err != nil {
			return fmt.Errorf("end transaction: %w", err)
		}
		if !commit {
			for i := first; i < len(w.written); i++ {
				w.written[i].Aborted = true
			}
		}
		if err := awaitMarkers(ctx, admin, w.written[first:]); err != nil {
			return err
		}
	}
	// More than a segment of one key into each partition: every record of
	// phase 1 is then below the active segment when the hold ends.
	for p := int32(0); p < compactPartitions; p++ {
		for size := 0; size < 1<<20+1<<18; size += len(compactValue(w.n + 1)) {
			if err := w.write(plain[0], p, "fill", false); err != nil {
				return err
			}
		}
	}
	return hold.EndTransaction(ctx, kgo.TryCommit)
}

// awaitMarkers waits until the markers of the transaction that wrote recs
// are in the log. Kafka writes them after answering EndTxn, so the next
// producer's record could otherwise take a marker's offset on one broker
// and not on the other. Only this input writes, so the marker is the
// record after the transaction's last in each partition.
func awaitMarkers(ctx context.Context, admin *kgo.Client, recs []WrittenRec) error {
	last := map[int32]int64{}
	for _, r := range recs {
		last[r.Partition] = max(last[r.Partition], r.Offset)
	}
	adm := kadm.NewClient(admin)
	for {
		ends, err := adm.ListEndOffsets(ctx, compactTopic)
		if err == nil {
			err = ends.Error()
		}
		if err != nil {
			return err
		}
		done := true
		for p, o := range last {
			end, _ := ends.Lookup(compactTopic, p)
			done = done && end.Offset > o+1
		}
		if done {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("transaction markers after %v never written: %w", last, ctx.Err())
		case <-time.After(5 * time.Millisecond):
		}
	}
}

// compactLater writes one later phase: new keys into each partition until
// its active segment rolls once, so the phase makes exactly one pass per
// partition.
func compactLater(bootstrap, dir string, w *compactWriter) error {
	cl, err := compactClient(bootstrap)
	if err != nil {
		return err
	}
	defer cl.Close()
	for p := int32(0); p < compactPartitions; p++ {
		_, active, err := cleanedAndActive(dir, p)
		if err != nil {
			return err
		}
		for i := 0; ; i++ {
			if err := w.write(cl, p, fmt.Sprintf("later-%d-%02d", p, i%20), false); err != nil {
				return err
			}
			_, now, err := cleanedAndActive(dir, p)
			if err != nil {
				return err
			}
			if now != active {
				break
			}
		}
	}
	return nil
}

func ptrs(m map[string]string) map[string]*string {
	out := map[string]*string{}
	for k, v := range m {
		out[k] = &v
	}
	return out
}

func readWritten(path string) ([]WrittenRec, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var recs []WrittenRec
	return recs, json.Unmarshal(b, &recs)
}

var segmentLogName = regexp.MustCompile(`^([0-9]{20})\.log$`)

// cleanedAndActive reads the partition's cleaner checkpoint from the log
// dir root and its active segment's base offset (-1 when absent).
func cleanedAndActive(dir string, p int32) (cleaned, active int64, err error) {
	cleaned, active = -1, -1
	part := fmt.Sprintf("%s-%d", compactTopic, p)
	entries, err := os.ReadDir(filepath.Join(dir, part))
	if err != nil {
		return 0, 0, err
	}
	for _, e := range entries {
		if m := segmentLogName.FindStringSubmatch(e.Name()); m != nil {
			base, _ := strconv.ParseInt(m[1], 10, 64)
			active = max(active, base)
		}
	}
	f, err := os.Open(filepath.Join(dir, "cleaner-offset-checkpoint"))
	if errors.Is(err, os.ErrNotExist) {
		return cleaned, active, nil
	}
	if err != nil {
		return 0, 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for line := 0; sc.Scan(); line++ {
		fields := strings.Fields(sc.Text())
		if line < 2 || len(fields) != 3 || fields[0] != compactTopic || fields[1] != strconv.Itoa(int(p)) {
			continue
		}
		if cleaned, err = strconv.ParseInt(fields[2], 10, 64); err != nil {
			return 0, 0, fmt.Errorf("cleaner-offset-checkpoint: %q: %w", sc.Text(), err)
		}
	}
	return cleaned, active, sc.Err()
}

// compactWait waits until every partition is cleaned up to its active
// segment, the furthest a cleaner may go once no transaction is open.
func compactWait(ctx context.Context, dir string) error {
	for {
		done := true
		var state []string
		for p := int32(0); p < compactPartitions; p++ {
			cleaned, active, err := cleanedAndActive(dir, p)
			if err != nil {
				return err
			}
			state = append(state, fmt.Sprintf("partition %d cleaned to %d, active segment at %d", p, cleaned, active))
			done = done && active > 0 && cleaned == active
		}
		if done {
			fmt.Println(strings.Join(state, "; "))
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("not cleaned in time: %s", strings.Join(state, "; "))
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// compactExpected is what a cleaned log holds: everything from the cleaned
// offset on, and below it each key's last record that is neither aborted
// nor a tombstone (all tombstones below it are past their horizon).
func compactExpected(written []WrittenRec, cleaned map[int32]int64) []string {
	last := map[string]WrittenRec{}
	var out []string
	for _, r := range written {
		if r.Offset >= cleaned[r.Partition] {
			out = append(out, r.line())
			continue
		}
		if !r.Aborted {
			last[fmt.Sprintf("%d/%s", r.Partition, r.Key)] = r
		}
	}
	for _, r := range last {
		if !r.Null {
			out = append(out, r.line())
		}
	}
	sort.Slice(out, func(i, j int) bool { return lineOrder(out[i]) < lineOrder(out[j]) })
	return out
}

func (r WrittenRec) line() string {
	if r.Null {
		return fmt.Sprintf("%d %d %s null", r.Partition, r.Offset, r.Key)
	}
	return fmt.Sprintf("%d %d %s %s", r.Partition, r.Offset, r.Key, r.Value)
}

// lineOrder sorts dump lines by partition, then offset.
func lineOrder(l string) int64 {
	f := strings.Fields(l)
	p, _ := strconv.ParseInt(f[0], 10, 64)
	o, _ := strconv.ParseInt(f[1], 10, 64)
	return p<<48 | o
}

// compactDump reads every record and transaction marker the broker serves
// (read_uncommitted), writes them to out, and checks the data records
// against what the input and the cleaned offsets in dir imply.
func compactDump(ctx context.Context, bootstrap, dir, recordsFile, out string, r *reporter) error {
	written, err := readWritten(recordsFile)
	if err != nil {
		return err
	}
	cleaned := map[int32]int64{}
	for p := int32(0); p < compactPartitions; p++ {
		c, active, err := cleanedAndActive(dir, p)
		if err != nil {
			return err
		}
		if !r.check(fmt.Sprintf("partition_%d_cleaned_to_active_segment", p), func() error {
			if c != active || c <= 0 {
				return fmt.Errorf("cleaned to %d, active segment at %d", c, active)
			}
			return nil
		}()) {
			return nil
		}
		cleaned[p] = c
	}
	served, err := readServed(ctx, bootstrap)
	if err != nil {
		return err
	}
	var data, all []string
	for _, rec := range served {
		all = append(all, rec.line)
		if !rec.control {
			data = append(data, rec.line)
		}
	}
	sort.Slice(all, func(i, j int) bool { return lineOrder(all[i]) < lineOrder(all[j]) })
	sort.Slice(data, func(i, j int) bool { return lineOrder(data[i]) < lineOrder(data[j]) })
	if err := os.WriteFile(out, []byte(strings.Join(all, "\n")+"\n"), 0o644); err != nil {
		return err
	}
	want := compactExpected(written, cleaned)
	r.check("survivors_are_each_keys_last_value", diffLines(want, data))
	r.check("cleaning_removed_records", func() error {
		if len(data) >= len(written)/2 {
			return fmt.Errorf("%d of %d written records left", len(data), len(written))
		}
		return nil
	}())
	fmt.Printf("%d records written, %d served (%d of them markers), cleaned to %v\n", len(written), len(all), len(all)-len(data), cleaned)
	return nil
}

// servedRec is one record or transaction marker as a broker served it.
type servedRec struct {
	partition int32
	offset    int64
	control   bool
	line      string
}

// readServed reads every record and transaction marker of the compacted
// topic (read_uncommitted) up to the log end offsets, in the order served.
func readServed(ctx context.Context, bootstrap string) ([]servedRec, error) {
	cl, err := kgo.NewClient(clientOpts(bootstrap)...)
	if err != nil {
		return nil, err
	}
	defer cl.Close()
	ends, err := kadm.NewClient(cl).ListEndOffsets(ctx, compactTopic)
	if err != nil {
		return nil, err
	}
	if err := ends.Error(); err != nil {
		return nil, err
	}
	from := map[int32]kgo.Offset{}
	remaining := 0
	end := map[int32]int64{}
	for p := int32(0); p < compactPartitions; p++ {
		o, _ := ends.Lookup(compactTopic, p)
		end[p] = o.Offset
		from[p] = kgo.NewOffset().AtStart()
		remaining++
	}
	consumer, err := kgo.NewClient(clientOpts(bootstrap, kgo.KeepControlRecords(),
		kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{compactTopic: from}))...)
	if err != nil {
		return nil, err
	}
	defer consumer.Close()
	var served []servedRec
	for remaining > 0 {
		fetches := consumer.PollFetches(ctx)
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("reading %s: %w", compactTopic, err)
		}
		for _, fe := range fetches.Errors() {
			return nil, fmt.Errorf("fetch %s/%d: %w", fe.Topic, fe.Partition, fe.Err)
		}
		fetches.EachRecord(func(rec *kgo.Record) {
			var l string
			switch {
			case rec.Attrs.IsControl():
				// The key is the marker type; the value holds the coordinator
				// epoch, which the two brokers need not share.
				l = fmt.Sprintf("%d %d control %s", rec.Partition, rec.Offset, hex.EncodeToString(rec.Key))
			case rec.Value == nil:
				l = WrittenRec{Partition: rec.Partition, Offset: rec.Offset, Key: string(rec.Key), Null: true}.line()
			default:
				l = WrittenRec{Partition: rec.Partition, Offset: rec.Offset, Key: string(rec.Key), Value: digest(rec.Value)}.line()
			}
			served = append(served, servedRec{partition: rec.Partition, offset: rec.Offset, control: rec.Attrs.IsControl(), line: l})
			if rec.Offset == end[rec.Partition]-1 {
				remaining--
			}
		})
	}
	return served, nil
}

// diffLines names the first lines only one side has.
func diffLines(want, got []string) error {
	in := func(ls []string) map[string]bool {
		m := map[string]bool{}
		for _, l := range ls {
			m[l] = true
		}
		return m
	}
	w, g := in(want), in(got)
	var missing, extra []string
	for _, l := range want {
		if !g[l] {
			missing = append(missing, l)
		}
	}
	for _, l := range got {
		if !w[l] {
			extra = append(extra, l)
		}
	}
	if len(missing) == 0 && len(extra) == 0 && len(want) == len(got) {
		return nil
	}
	return fmt.Errorf("want %d records, got %d; missing %d (first %v); unexpected %d (first %v)",
		len(want), len(got), len(missing), head(missing), len(extra), head(extra))
}

func head(ls []string) []string {
	if len(ls) > 5 {
		return ls[:5]
	}
	return ls
}

// benchTopic is the topic of compact-bench, the input of
// scripts/bench/cleaner-vs-kafka.sh.
const benchTopic = "cleaner-bench"

// compactBench writes n records of valueBytes over keys keys (uncompressed
// batches) to a new compacted one-partition topic behind a transaction
// held open from its first offset, so that nothing is cleaned until the
// whole input is in: committing it then starts one pass over all of it,
// which the caller times from the moment this command returns.
func compactBench(ctx context.Context, bootstrap string, n, keys, valueBytes int) error {
	admin, err := compactClient(bootstrap)
	if err != nil {
		return err
	}
	defer admin.Close()
	resp, err := kadm.NewClient(admin).CreateTopic(ctx, 1, 1, ptrs(map[string]string{
		"cleanup.policy": "compact", "segment.bytes": "16777216", "min.cleanable.dirty.ratio": "0.01"}), benchTopic)
	if err == nil {
		err = resp.Err
	}
	if err != nil {
		return fmt.Errorf("create %s: %w", benchTopic, err)
	}
	hold, err := compactClient(bootstrap, kgo.TransactionalID("cleaner-bench-hold"), kgo.TransactionTimeout(10*time.Minute))
	if err != nil {
		return err
	}
	defer hold.Close()
	if err := hold.BeginTransaction(); err != nil {
		return err
	}
	if err := hold.ProduceSync(ctx, &kgo.Record{Topic: benchTopic, Key: []byte("hold"), Value: []byte("hold")}).FirstErr(); err != nil {
		return err
	}
	cl, err := kgo.NewClient(clientOpts(bootstrap, kgo.ProducerBatchCompression(kgo.NoCompression()),
		kgo.ProducerBatchMaxBytes(1<<20), kgo.MaxBufferedRecords(50_000))...)
	if err != nil {
		return err
	}
	defer cl.Close()
	value := make([]byte, valueBytes)
	for i := range value {
		value[i] = byte('a' + i%26)
	}
	errs := make(chan error, 1)
	for i := 0; i < n; i++ {
		cl.Produce(ctx, &kgo.Record{Topic: benchTopic, Key: []byte(fmt.Sprintf("key-%07d", i%keys)), Value: value},
			func(_ *kgo.Record, err error) {
				if err != nil {
					select {
					case errs <- err:
					default:
					}
				}
			})
	}
	if err := cl.Flush(ctx); err != nil {
		return err
	}
	select {
	case err := <-errs:
		return err
	default:
	}
	return hold.EndTransaction(ctx, kgo.TryCommit)
}
