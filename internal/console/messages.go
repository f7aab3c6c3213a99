package console

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// Browsing bounds: records shown on a page, and records read looking for
// a key before the page says the search stopped.
const (
	defaultBrowseLimit = 20
	maxBrowseLimit     = 500
	maxKeyScan         = 100_000
)

// browseQuery is the message browser's form.
type browseQuery struct {
	Partition int32
	Offset    string // empty: the newest records (or, with a key, from the start)
	Timestamp string // RFC 3339 or Unix milliseconds; the first record at or after it
	Key       string // only records whose key contains this
	Limit     int
	Format    string // text, json or hex
}

type browseData struct {
	Topic      string
	Partitions []int32
	Query      browseQuery
	Start, End int64 // the partition's log start and end offsets
	// Listed says Start and End were read: a page refused before them
	// (a topic the user may not describe) shows no offsets or records.
	Listed  bool
	From    int64 // where reading began
	Scanned int
	Stopped string // why a key search stopped short, if it did
	Records []shownRecord
	Formats []string
}

func parseBrowseQuery(r *http.Request) (browseQuery, error) {
	q := browseQuery{Offset: strings.TrimSpace(r.FormValue("offset")), Timestamp: strings.TrimSpace(r.FormValue("timestamp")),
		Key: r.FormValue("key"), Limit: defaultBrowseLimit, Format: r.FormValue("format")}
	if n, ok := intParam(r, "partition"); ok {
		if n < 0 || n > 1<<31-1 {
			return q, fmt.Errorf("partition %d out of range", n)
		}
		q.Partition = int32(n)
	}
	if n, ok := intParam(r, "limit"); ok && n > 0 {
		q.Limit = int(min(n, maxBrowseLimit))
	}
	if q.Format == "" {
		q.Format = "text"
	}
	if _, ok := formatters[q.Format]; !ok {
		return q, fmt.Errorf("format %q: want text, json or hex", q.Format)
	}
	return q, nil
}

// parseTimestamp takes Unix milliseconds or an RFC 3339 time.
func parseTimestamp(s string) (int64, error) {
	if ms, err := strconv.ParseInt(s, 10, 64); err == nil {
		return ms, nil
	}
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05", "2006-01-02T15:04", "2006-01-02"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UnixMilli(), nil
		}
	}
	return 0, fmt.Errorf("timestamp %q: want Unix milliseconds or RFC 3339 (2006-01-02T15:04:05Z)", s)
}

func (s *Server) messages(ctx context.Context, k *kafka, r *http.Request, p *page) error {
	topic := r.PathValue("topic")
	p.Title = "Messages in " + topic
	d := browseData{Topic: topic, Formats: []string{"text", "json", "hex"}}
	p.Data = &d
	q, err := parseBrowseQuery(r)
	d.Query = q
	if err != nil {
		return badQuery{err}
	}
	return s.browse(ctx, k, &d)
}

// browse fills d with the records its query asks for.
func (s *Server) browse(ctx context.Context, k *kafka, d *browseData) error {
	q := d.Query
	details, err := k.admin.ListTopicsWithInternal(ctx, d.Topic)
	if err == nil {
		err = details.Error()
	}
	if err != nil {
		return err
	}
	d.Partitions = details[d.Topic].Partitions.Numbers()
	if _, ok := details[d.Topic].Partitions[q.Partition]; !ok {
		return badQuery{fmt.Errorf("topic %s has no partition %d", d.Topic, q.Partition)}
	}
	starts, err := k.admin.ListStartOffsets(ctx, d.Topic)
	if err != nil {
		return err
	}
	ends, err := k.admin.ListEndOffsets(ctx, d.Topic)
	if err != nil {
		return err
	}
	st, _ := starts.Lookup(d.Topic, q.Partition)
	en, _ := ends.Lookup(d.Topic, q.Partition)
	if err := errors.Join(st.Err, en.Err); err != nil {
		return err
	}
	d.Start, d.End, d.Listed = st.Offset, en.Offset, true
	switch {
	case q.Offset != "":
		if d.From, err = strconv.ParseInt(q.Offset, 10, 64); err != nil || d.From < 0 {
			return badQuery{fmt.Errorf("offset %q: want a number at least 0", q.Offset)}
		}
	case q.Timestamp != "":
		ms, err := parseTimestamp(q.Timestamp)
		if err != nil {
			return badQuery{err}
		}
		after, err := k.admin.ListOffsetsAfterMilli(ctx, ms, d.Topic)
		if err != nil {
			return err
		}
		o, _ := after.Lookup(d.Topic, q.Partition)
		if o.Err != nil {
			return o.Err
		}
		d.From = o.Offset
		if d.From < 0 { // no record at or after it
			d.From = d.End
		}
	case q.Key != "":
		d.From = d.Start
	default:
		d.From = max(d.Start, d.End-int64(q.Limit))
	}
	d.From = max(d.From, d.Start)
	if d.From >= d.End {
		return nil
	}
	return s.read(ctx, k, d)
}

// read consumes the partition from d.From with a client of its own, up to
// the end offset as of the start, keeping the records the query wants.
func (s *Server) read(ctx context.Context, k *kafka, d *browseData) error {
	q := d.Query
	cl, err := kgo.NewClient(s.clientOpts(slices.Concat(k.auth, []kgo.Opt{
		kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{d.Topic: {q.Partition: kgo.NewOffset().At(d.From)}}),
		kgo.FetchMaxWait(250 * time.Millisecond)})...)...)
	if err != nil {
		return err
	}
	defer cl.Close()
	format := formatters[q.Format]
	for len(d.Records) < q.Limit {
		fetches := cl.PollFetches(ctx)
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("reading %s/%d from offset %d: %w", d.Topic, q.Partition, d.From, err)
		}
		var fetchErr error
		fetches.EachError(func(_ string, _ int32, err error) { fetchErr = errors.Join(fetchErr, err) })
		if fetchErr != nil {
			return fetchErr
		}
		done := false
		fetches.EachRecord(func(rec *kgo.Record) {
			if done {
				return
			}
			d.Scanned++
			if q.Key == "" || strings.Contains(string(rec.Key), q.Key) {
				d.Records = append(d.Records, showRecord(rec, format))
			}
			if rec.Offset+1 >= d.End || len(d.Records) >= q.Limit {
				done = true
			}
			if q.Key != "" && d.Scanned >= maxKeyScan && !done {
				d.Stopped = fmt.Sprintf("stopped after reading %d records from offset %d; search again from offset %d", d.Scanned, d.From, rec.Offset+1)
				done = true
			}
		})
		if done {
			return nil
		}
	}
	return nil
}
