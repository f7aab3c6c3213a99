package bench

import (
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"maps"
	"net"
	"slices"
	"time"

	"github.com/karst-broker/karst/internal/record"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// rawFetchVersion is the Fetch version the raw consumer speaks: the last one
// that names topics (v13 on use topic ids), served by Kafka 4.x and Karst.
const rawFetchVersion = 12

// Kafka's consumer defaults, which franz-go shares: fetch.max.bytes and
// max.partition.fetch.bytes.
const (
	defaultFetchMaxBytes     = 50 << 20
	defaultPartitionMaxBytes = 1 << 20
)

// ConsumeRaw reads Topic like Consume, but as a consumer with no client
// library: one connection, one Fetch in flight (as the Java client and
// librdkafka keep per broker), every batch's CRC checked and every record's
// framing walked to count it and sum its key and value bytes, with nothing
// allocated per record. On a machine the load tool shares with the broker,
// franz-go's consumer spends more CPU building records than the broker
// spends serving them, so Consume measures the client; this measures the
// broker's consume path (what a consumer that does not copy records can
// get from it).
func ConsumeRaw(ctx context.Context, cfg ConsumeConfig) *Result {
	cfg.defaults()
	res := NewResult("consume")
	res.SetString("topic", cfg.Topic)
	res.SetString("client", "raw")
	if cfg.Isolation != "" {
		res.SetString("isolation", cfg.Isolation)
	}
	isolation := int8(0)
	switch cfg.Isolation {
	case "", "read_uncommitted":
	case "read_committed":
		isolation = 1
	default:
		res.Fail(fmt.Errorf("unknown isolation level %q", cfg.Isolation))
		return res
	}
	setupCtx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	offsets, err := listOffsets(setupCtx, cfg.Addr, cfg.Topic, logStart)
	if err != nil {
		res.Fail(err)
		return res
	}
	conn, err := dial(setupCtx, cfg.Addr)
	if err != nil {
		res.Fail(err)
		return res
	}
	defer conn.Close()
	f, err := newRawFetcher(conn, cfg.Topic, offsets, isolation,
		orDefault(cfg.FetchMaxBytes, defaultFetchMaxBytes), orDefault(cfg.PartitionMaxBytes, defaultPartitionMaxBytes))
	if err != nil {
		res.Fail(err)
		return res
	}
	runConsume(ctx, cfg, res, consumeLoop{
		poll:      f.poll,
		interrupt: func() { conn.SetDeadline(time.Now()) },
		report:    func(res *Result) { res.SetInt("fetches", f.fetches) },
	})
	return res
}

func orDefault(v, def int32) int32 {
	if v > 0 {
		return v
	}
	return def
}

// rawFetcher is the state of one raw consumer: where each partition is
// read up to, and what it has read.
type rawFetcher struct {
	conn     net.Conn
	offsets  map[int32]int64
	maxBytes int32

	// req is the encoded Fetch, which every round sends again with only
	// the correlation id and the fetch offsets changed; partitions is the
	// order it names them in.
	req, resp        []byte
	partitions       []int32
	corrID           int32
	fetches, records int64
	bytes            int64
	rec              record.Record
}

// A Fetch v12 for one topic ends with that topic's partitions, each a
// fixed rawPartitionSize bytes with its fetch offset rawFetchOffsetAt
// bytes in, then rawFetchTail bytes: the topic's tagged fields, the empty
// forgotten-topics array, the empty rack id and the request's tagged
// fields.
const (
	rawPartitionSize = 4 + 4 + 8 + 4 + 8 + 4 + 1 // partition, leader epoch, fetch offset, last fetched epoch, log start, max bytes, tags
	rawFetchOffsetAt = 8
	rawFetchTail     = 4
)

// newRawFetcher encodes the Fetch that conn will send every round, for
// every partition of topic from offsets.
func newRawFetcher(conn net.Conn, topic string, offsets map[int32]int64, isolation int8, maxBytes, partitionMaxBytes int32) (*rawFetcher, error) {
	f := &rawFetcher{conn: conn, offsets: offsets, maxBytes: maxBytes, partitions: slices.Sorted(maps.Keys(offsets))}
	f.req = rawFetchFormatter.AppendRequest(nil, fetchRequest(topic, f.partitions, offsets, isolation, maxBytes, partitionMaxBytes), 0)
	// Patching relies on the layout above; check it rather than send
	// offsets into the wrong bytes.
	for i, p := range f.partitions {
		at := f.partitionAt(i)
		if at < corrIDOffset+4 || int32(binary.BigEndian.Uint32(f.req[at:])) != p ||
			int64(binary.BigEndian.Uint64(f.req[at+rawFetchOffsetAt:])) != offsets[p] {
			return nil, fmt.Errorf("encoded Fetch v%d does not have partition %d where expected", rawFetchVersion, p)
		}
	}
	return f, nil
}

var rawFetchFormatter = kmsg.NewRequestFormatter(kmsg.FormatterClientID("karst-bench"))

// fetchRequest is a sessionless Fetch for partitions of topic from offsets.
func fetchRequest(topic string, partitions []int32, offsets map[int32]int64, isolation int8, maxBytes, partitionMaxBytes int32) *kmsg.FetchRequest {
	req := kmsg.NewPtrFetchRequest()
	req.Version = rawFetchVersion
	req.ReplicaID = -1
	req.MaxWaitMillis = 500
	req.MinBytes = 1
	req.MaxBytes = maxBytes
	req.IsolationLevel = isolation
	req.SessionEpoch = -1 // no fetch session: every request names every partition
	t := kmsg.NewFetchRequestTopic()
	t.Topic = topic
	for _, p := range partitions {
		part := kmsg.NewFetchRequestTopicPartition()
		part.Partition = p
		part.FetchOffset = offsets[p]
		part.PartitionMaxBytes = partitionMaxBytes
		t.Partitions = append(t.Partitions, part)
	}
	req.Topics = append(req.Topics, t)
	return req
}

// partitionAt is where the i-th partition starts in the encoded request.
func (f *rawFetcher) partitionAt(i int) int {
	return len(f.req) - rawFetchTail - (len(f.partitions)-i)*rawPartitionSize
}

// request readies the encoded Fetch for the next round: a new correlation
// id and every partition's next offset.
func (f *rawFetcher) request() []byte {
	f.corrID++
	patchCorrelationID(f.req, f.corrID)
	for i, p := range f.partitions {
		binary.BigEndian.PutUint64(f.req[f.partitionAt(i)+rawFetchOffsetAt:], uint64(f.offsets[p]))
	}
	return f.req
}

// poll is one round of a consume run. A connection error after ctx ended
// is the run's deadline interrupting the read, not a failure.
func (f *rawFetcher) poll(ctx context.Context, _ int64) (records, bytes int64, err error) {
	n, b := f.records, f.bytes
	err = f.fetch()
	if ctx.Err() != nil {
		err = nil
	}
	return f.records - n, f.bytes - b, err
}

// fetch sends one Fetch for every partition from its next offset, reads the
// answer and walks every complete batch in it.
func (f *rawFetcher) fetch() error {
	if _, err := f.conn.Write(f.request()); err != nil {
		return err
	}
	frame, err := readFrame(f.conn, f.resp, int(f.maxBytes)+1<<20)
	if err != nil {
		return err
	}
	f.resp = frame[:0]
	f.fetches++
	body, err := responseBody(frame, f.corrID)
	if err != nil {
		return err
	}
	resp := kmsg.NewPtrFetchResponse()
	resp.Version = rawFetchVersion
	if err := resp.ReadFrom(body); err != nil {
		return fmt.Errorf("decoding Fetch v%d response: %w", rawFetchVersion, err)
	}
	if err := kerr.ErrorForCode(resp.ErrorCode); err != nil {
		return fmt.Errorf("fetch: %w", err)
	}
	for _, t := range resp.Topics {
		for _, p := range t.Partitions {
			if err := kerr.ErrorForCode(p.ErrorCode); err != nil {
				return fmt.Errorf("fetch %s[%d]: %w", t.Topic, p.Partition, err)
			}
			if err := f.walk(p.Partition, p.RecordBatches); err != nil {
				return fmt.Errorf("fetch %s[%d]: %w", t.Topic, p.Partition, err)
			}
		}
	}
	return nil
}

// walk checks and counts the complete batches in one partition's records.
// A broker may end the data with a partial batch (the size limit cut it);
// that batch is asked for again from its offset.
func (f *rawFetcher) walk(partition int32, data []byte) error {
	for len(data) >= record.LogOverhead {
		size := int(int32(binary.BigEndian.Uint32(data[8:]))) + record.LogOverhead
		if size > len(data) {
			break
		}
		batch, n, err := record.ParseBatch(data, len(data))
		if err != nil {
			return err
		}
		data = data[n:]
		if batch.NextOffset() <= f.offsets[partition] {
			continue // before the fetch offset: the start of a batch we had
		}
		f.offsets[partition] = batch.NextOffset()
		if batch.IsControl() {
			continue
		}
		if err := f.countRecords(batch); err != nil {
			return err
		}
	}
	return nil
}

func (f *rawFetcher) countRecords(batch record.Batch) error {
	if batch.Codec() != record.CodecNone {
		return fmt.Errorf("batch at offset %d is compressed (%v); the raw consumer reads uncompressed topics", batch.BaseOffset(), batch.Codec())
	}
	rr := record.NewRecordReader(batch.RecordsData(), batch.RecordCount())
	for {
		err := rr.Next(&f.rec)
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("batch at offset %d: %w", batch.BaseOffset(), err)
		}
		f.records++
		f.bytes += int64(len(f.rec.Key) + len(f.rec.Value))
	}
}

// responseBody checks a response frame's correlation id and returns what
// follows the (flexible, v1) response header.
func responseBody(frame []byte, corrID int32) ([]byte, error) {
	if len(frame) < 5 {
		return nil, fmt.Errorf("response of %d bytes has no header", len(frame))
	}
	if got := int32(binary.BigEndian.Uint32(frame)); got != corrID {
		return nil, fmt.Errorf("correlation id %d, want %d", got, corrID)
	}
	tags, n := binary.Uvarint(frame[4:])
	if n <= 0 || tags != 0 {
		return nil, fmt.Errorf("response header with %d tagged fields (n=%d)", tags, n)
	}
	return frame[4+n:], nil
}
