package admincli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"slices"

	"github.com/twmb/franz-go/pkg/kgo"
)

func runConsume(ctx context.Context, args []string, s Streams) error {
	f := newFlags(s, "consume", "TOPIC [--offset beginning|end|N|-N] [--partition N] [--group G] [--count N] [--exit] [--format text|json|hex]",
		`Print TOPIC's records, one a line, until --count records were printed, the end
of every partition was reached (--exit: the end as it was at the start), or
Ctrl-C. In text and hex format a line is the value, after the key and SEP with
--key-separator, after the headers (k:v,k:v) and a tab with --print-headers; null
prints as null. In json format a line is an object with topic, partition, offset,
timestamp, key, value and headers.
Without --group the partitions are read directly from --offset. With --group the
records are read as a member of that consumer group, from its committed offsets
(--offset for partitions without one), and each printed record is committed.
With --share-group the records are read as a member of that share group (KIP-932),
as the broker delivers them, and each printed record is accepted; the group's
share.auto.offset.reset config (karst config set group) says where a new group
starts.`)
	var conn connection
	conn.register(f)
	offset := f.String("offset", "end", "where to start: beginning, end, an `OFFSET`, or -N for the last N records")
	f.alias("o", "offset")
	fromBeginning := f.Bool("from-beginning", false, "same as --offset beginning (kafka-console-consumer's flag)")
	partition := f.Int("partition", -1, "read only partition `N` (-1: every partition)")
	f.alias("p", "partition")
	group := f.String("group", "", "consume as a member of consumer group `G`, committing what is printed")
	f.alias("g", "group")
	count := f.Int("count", 0, "exit after `N` records (0: no limit)")
	f.alias("c", "count")
	exitAtEnd := f.Bool("exit", false, "exit once every partition's end, as of the start, was reached")
	f.alias("e", "exit")
	format := f.String("format", formatText, "output `FORMAT`: text, json or hex")
	keySep := f.String("key-separator", "", "print the key and `SEP` before each value")
	f.alias("K", "key-separator")
	printHeaders := f.Bool("print-headers", false, "print the headers before each key and value")
	committed := f.Bool("read-committed", false, "skip records of aborted transactions and stop at open ones")
	shareGroup := f.String("share-group", "", "consume as a member of share group `G`, accepting what is printed")
	rest, err := f.parse(args)
	if err != nil {
		return err
	}
	if err := f.exactly(rest, 1, "TOPIC"); err != nil {
		return err
	}
	topic := rest[0]
	if *format != formatText && *format != formatJSON && *format != formatHex {
		return usagef(f.help(), "--format %q: want text, json or hex", *format)
	}
	out := recordWriter{out: s.Out, format: *format, keySeparator: *keySep, printHeaders: *printHeaders}
	if *shareGroup != "" {
		var conflict error
		f.Visit(func(fl *flag.Flag) {
			if long := f.longName(fl.Name); conflict == nil && slices.Contains(shareConflicts, long) {
				conflict = usagef(f.help(), "--share-group and --%s: a share group's broker decides which records a member reads", long)
			}
		})
		if conflict != nil {
			return conflict
		}
		return consumeShare(ctx, &conn, s, topic, *shareGroup, *count, out)
	}
	spec, err := parseOffsetSpec(*offset)
	if err != nil {
		return usageError{err: err, help: f.help()}
	}
	if *fromBeginning {
		spec = offsetSpec{kind: offsetBeginning}
	}
	if *group != "" && *partition >= 0 {
		return usagef(f.help(), "--partition and --group: a group's partitions are assigned by the group")
	}

	from, ends, err := conn.startingOffsets(ctx, s, topic, *partition, *group, spec, *committed)
	if err != nil {
		return err
	}
	// unread are the partitions not yet read to their end, for --exit.
	unread := map[int32]bool{}
	for p, at := range from {
		if at < ends[p] {
			unread[p] = true
		}
	}
	if *exitAtEnd && len(unread) == 0 {
		return nil
	}
	// Control records (transaction markers) are kept so that the position
	// passes them: an end offset after a commit marker is reached only so.
	opts := []kgo.Opt{kgo.KeepControlRecords()}
	if *committed {
		opts = append(opts, kgo.FetchIsolationLevel(kgo.ReadCommitted()))
	}
	if *group != "" {
		opts = append(opts, kgo.ConsumerGroup(*group), kgo.ConsumeTopics(topic),
			kgo.ConsumeResetOffset(spec.reset()), kgo.DisableAutoCommit())
	} else {
		partitions := map[int32]kgo.Offset{}
		for p, at := range from {
			partitions[p] = kgo.NewOffset().At(at)
		}
		opts = append(opts, kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{topic: partitions}))
	}
	cl, err := conn.client(ctx, s, opts...)
	if err != nil {
		return err
	}
	defer cl.Close()

	printed := 0
	for {
		fetches, done, err := poll(ctx, cl, "fetching")
		if done || err != nil {
			return err
		}
		var read []*kgo.Record
		full := false
		fetches.EachRecord(func(r *kgo.Record) {
			if full {
				return
			}
			read = append(read, r)
			if r.Offset+1 >= ends[r.Partition] {
				delete(unread, r.Partition)
			}
			if r.Attrs.IsControl() {
				return
			}
			if err == nil {
				err = out.write(r)
			}
			printed++
			full = *count > 0 && printed >= *count
		})
		if err != nil {
			return err
		}
		if *group != "" && len(read) > 0 {
			commitCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), conn.timeout)
			err := cl.CommitRecords(commitCtx, read...)
			cancel()
			if err != nil {
				return fmt.Errorf("committing to group %s: %w", *group, err)
			}
		}
		if full || (*exitAtEnd && len(unread) == 0) {
			return nil
		}
	}
}

// startingOffsets are, for each partition read, the offset reading starts
// from, and each partition's end offset now (the last stable offset when
// reading committed records).
func (c *connection) startingOffsets(ctx context.Context, s Streams, topic string, partition int, group string, spec offsetSpec, readCommitted bool) (from, ends map[int32]int64, err error) {
	adm, done, err := c.connectAdmin(ctx, s)
	if err != nil {
		return nil, nil, err
	}
	defer done()
	starts, err := adm.ListStartOffsets(adm.ctx, topic)
	if err != nil {
		return nil, nil, err
	}
	listEnds := adm.ListEndOffsets
	if readCommitted {
		listEnds = adm.ListCommittedOffsets
	}
	endOffsets, err := listEnds(adm.ctx, topic)
	if err != nil {
		return nil, nil, err
	}
	if err := endOffsets.Error(); err != nil {
		return nil, nil, fmt.Errorf("topic %s: %w", topic, err)
	}
	var commits map[int32]int64
	if group != "" {
		offsets, err := adm.fetchOffsets(group)
		if err != nil {
			return nil, nil, fmt.Errorf("reading group %s's offsets: %w", group, err)
		}
		commits = map[int32]int64{}
		for p, o := range offsets[topic] {
			if o.Err == nil && o.At >= 0 {
				commits[p] = o.At
			}
		}
	}
	from, ends = map[int32]int64{}, map[int32]int64{}
	for p, end := range endOffsets[topic] {
		if partition >= 0 && p != int32(partition) {
			continue
		}
		start := starts[topic][p].Offset
		ends[p] = end.Offset
		if at, ok := commits[p]; ok {
			from[p] = at
		} else {
			from[p] = spec.resolve(start, end.Offset)
		}
	}
	if len(from) == 0 {
		return nil, nil, fmt.Errorf("topic %s has no partition %d", topic, partition)
	}
	return from, ends, nil
}

// poll waits for the next fetches; done says ctx ended (Ctrl-C), which
// ends a consume without an error.
func poll(ctx context.Context, cl *kgo.Client, what string) (fetches kgo.Fetches, done bool, err error) {
	fetches = cl.PollFetches(ctx)
	if ctx.Err() != nil {
		return nil, true, nil
	}
	for _, fe := range fetches.Errors() {
		if !errors.Is(fe.Err, context.Canceled) {
			return nil, false, fmt.Errorf("%s %s partition %d: %w", what, fe.Topic, fe.Partition, fe.Err)
		}
	}
	return fetches, false, nil
}
