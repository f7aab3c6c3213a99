package admincli

import (
	"context"
	"fmt"
	"sort"
	"time"

	"github.com/karst-broker/karst/internal/groupview"
	"github.com/twmb/franz-go/pkg/kadm"
)

// resetTarget is where reset-offsets moves each partition: exactly one of
// its fields is set, as the one reset specification kafka-consumer-groups
// and kafka-share-groups take.
type resetTarget struct {
	earliest, latest bool
	offset           int64 // -1: not given
	shiftBy          int64
	datetime         string
	millis           int64 // datetime parsed
}

func groupResetOffsets(ctx context.Context, args []string, s Streams) error {
	f := newFlags(s, "group reset-offsets", "GROUP (--topic T... | --all-topics) (--to-earliest | --to-latest | --to-offset N | --to-datetime T | --shift-by N) [--execute]",
		"Compute new offsets for the group's partitions of the topics and print them;\nwith --execute, write them. A consumer group's committed offsets are committed;\na share group's share-partition start offsets are altered (AlterShareGroupOffsets,\nas kafka-share-groups --reset-offsets, which has no --shift-by). The group must\nhave no members (Kafka's rule; a share group with members is refused even for a\ndry run, as kafka-share-groups does). Offsets are kept inside each partition's\nlog start and end. A group the broker does not know is reset as a consumer group.")
	var conn connection
	conn.register(f)
	var topics repeated
	f.Var(&topics, "topic", "reset the partitions of `TOPIC` (repeatable)")
	allTopics := f.Bool("all-topics", false, "reset every topic the group has offsets for")
	var to resetTarget
	f.BoolVar(&to.earliest, "to-earliest", false, "to each partition's log start")
	f.BoolVar(&to.latest, "to-latest", false, "to each partition's log end")
	f.Int64Var(&to.offset, "to-offset", -1, "to `OFFSET`")
	f.StringVar(&to.datetime, "to-datetime", "", "to the first offset whose timestamp is at or after `T`, as YYYY-MM-DDThh:mm:ss.sss\n(local time) or with a zone (Z, +hh:mm), as Kafka's tools take it")
	f.Int64Var(&to.shiftBy, "shift-by", 0, "move the committed offsets by `N` (negative: back; consumer groups only)")
	execute := f.Bool("execute", false, "write the offsets (without it, only print them)")
	rest, err := f.parse(args)
	if err != nil {
		return err
	}
	if err := f.exactly(rest, 1, "GROUP"); err != nil {
		return err
	}
	group := rest[0]
	if (len(topics) > 0) == *allTopics {
		return usagef(f.help(), "give --topic or --all-topics")
	}
	chosen := 0
	for _, on := range []bool{to.earliest, to.latest, to.offset >= 0, to.datetime != "", to.shiftBy != 0} {
		if on {
			chosen++
		}
	}
	if chosen != 1 {
		return usagef(f.help(), "give one of --to-earliest, --to-latest, --to-offset, --to-datetime, --shift-by")
	}
	if to.datetime != "" {
		at, err := parseDatetime(to.datetime)
		if err != nil {
			return usagef(f.help(), "%v", err)
		}
		to.millis = at.UnixMilli()
	}
	adm, done, err := conn.connectAdmin(ctx, s)
	if err != nil {
		return err
	}
	defer done()
	described, err := groupview.Describe(adm.ctx, adm.Client, group)
	if err != nil {
		return err
	}
	d := described[group]
	if d.Err != nil {
		return resultErr("describing group "+group, d.Err, "")
	}
	share := d.Type == "share"
	switch {
	case share && to.shiftBy != 0:
		return fmt.Errorf("group %s is a share group, whose offsets have no --shift-by (kafka-share-groups has none)", group)
	case share && d.State != "Empty" && d.State != "Dead":
		return fmt.Errorf("share group %s is not empty: its offsets can only be reset while it has no members, but its state is %s", group, d.State)
	case *execute && d.State != "Empty" && d.State != "Dead":
		return fmt.Errorf("offsets of group %s can only be reset while it has no members, but its state is %s", group, d.State)
	}

	// current is the group's offset per partition: a consumer group's
	// commits (what --shift-by moves), a share group's start offsets.
	current := kadm.Offsets{}
	if share {
		for _, p := range d.Lag {
			if p.Committed >= 0 {
				current.Add(kadm.Offset{Topic: p.Topic, Partition: p.Partition, At: p.Committed, LeaderEpoch: -1})
			}
		}
	} else {
		committed, err := adm.fetchOffsets(group)
		if err != nil {
			return err
		}
		current = committed.Offsets()
	}
	if *allTopics {
		for t := range current {
			topics = append(topics, t)
		}
		sort.Strings(topics)
		if len(topics) == 0 {
			return fmt.Errorf("group %s has no committed offsets", group)
		}
	}
	next, err := resetOffsets(adm, topics, to, current)
	if err != nil {
		return err
	}
	t := newTable(s.Out, "GROUP", "TOPIC", "PARTITION", "NEW-OFFSET")
	for _, o := range next.Sorted() {
		t.row(group, o.Topic, o.Partition, o.At)
	}
	t.flush()
	if !*execute {
		fmt.Fprintln(s.Err, "dry run: pass --execute to write these offsets")
		return nil
	}
	if share {
		resp, err := adm.AlterShareGroupOffsets(adm.ctx, group, next)
		if err != nil {
			return fmt.Errorf("altering the offsets of share group %s: %w", group, err)
		}
		if err := resp.Error(); err != nil {
			return fmt.Errorf("altering the offsets of share group %s: %w", group, err)
		}
		fmt.Fprintf(s.Err, "altered %d share-partition start offsets for group %s\n", len(next.Sorted()), group)
		return nil
	}
	resp, err := adm.CommitOffsets(adm.ctx, group, next)
	if err != nil {
		return err
	}
	if err := resp.Error(); err != nil {
		return fmt.Errorf("committing offsets of group %s: %w", group, err)
	}
	fmt.Fprintf(s.Err, "committed %d offsets for group %s\n", len(next.Sorted()), group)
	return nil
}

// resetOffsets is the new offset of every partition of the topics, kept
// inside [log start, log end] as Kafka's GroupOffsetsResetter keeps it.
func resetOffsets(adm *admin, topics []string, to resetTarget, current kadm.Offsets) (kadm.Offsets, error) {
	starts, err := adm.ListStartOffsets(adm.ctx, topics...)
	if err != nil {
		return nil, err
	}
	ends, err := adm.ListEndOffsets(adm.ctx, topics...)
	if err != nil {
		return nil, err
	}
	if err := ends.Error(); err != nil {
		return nil, err
	}
	var stamped kadm.ListedOffsets
	if to.datetime != "" {
		// kadm asks again for the log end where no record is that late,
		// which is where Kafka's tools reset such a partition.
		if stamped, err = adm.ListOffsetsAfterMilli(adm.ctx, to.millis, topics...); err != nil {
			return nil, err
		}
		if err := stamped.Error(); err != nil {
			return nil, err
		}
	}
	next := kadm.Offsets{}
	for _, topic := range topics {
		for p, e := range ends[topic] {
			start, end := starts[topic][p].Offset, e.Offset
			at := end
			switch {
			case to.earliest:
				at = start
			case to.offset >= 0:
				at = to.offset
			case to.datetime != "":
				at = stamped[topic][p].Offset
			case to.shiftBy != 0:
				if c, ok := current.Lookup(topic, p); ok && c.At >= 0 {
					at = c.At + to.shiftBy
				}
			}
			next.Add(kadm.Offset{Topic: topic, Partition: p, At: min(max(at, start), end), LeaderEpoch: -1})
		}
	}
	return next, nil
}

// parseDatetime reads --to-datetime as Kafka's Utils.getDateTime does:
// milliseconds optional here, a zone optional (none: local time).
func parseDatetime(s string) (time.Time, error) {
	for _, layout := range []string{"2006-01-02T15:04:05.000Z07:00", "2006-01-02T15:04:05.000Z0700", "2006-01-02T15:04:05Z07:00"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t, nil
		}
	}
	for _, layout := range []string{"2006-01-02T15:04:05.000", "2006-01-02T15:04:05"} {
		if t, err := time.ParseInLocation(layout, s, time.Local); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("--to-datetime %q: want YYYY-MM-DDThh:mm:ss.sss, optionally with a zone (Z, +hh:mm)", s)
}
