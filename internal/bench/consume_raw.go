package bench

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"maps"
	"net"
	"slices"
	"time"

	"github.com/karst-broker/karst/internal/record"
	"github.com/twmb/franz-go/pkg/kadm"
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
	offsets, err := startOffsets(setupCtx, cfg.Addr, cfg.Topic)
	if err != nil {
		res.Fail(err)
		return res
	}
	var d net.Dialer
	conn, err := d.DialContext(setupCtx, "tcp", cfg.Addr)
	if err != nil {
		res.Fail(err)
		return res
	}
	defer conn.Close()
	rss := startRSSSampler(cfg.Pid)

	runCtx, cancelRun := context.WithTimeout(ctx, cfg.Duration)
	defer cancelRun()
	stop := context.AfterFunc(runCtx, func() { conn.SetDeadline(time.Now()) })
	defer stop()
	f := rawFetcher{
		conn: conn, topic: cfg.Topic, offsets: offsets, isolation: isolation,
		maxBytes: orDefault(cfg.FetchMaxBytes, defaultFetchMaxBytes), partitionMaxBytes: orDefault(cfg.PartitionMaxBytes, defaultPartitionMaxBytes),
	}
	start := time.Now()
	last := start
	var fetchErr error
	for f.records < cfg.Records && runCtx.Err() == nil {
		n := f.records
		if err := f.fetch(); err != nil {
			if runCtx.Err() == nil {
				fetchErr = err
			}
			break
		}
		if f.records > n {
			last = time.Now()
		}
	}
	res.setThroughput(last.Sub(start), f.records, f.bytes)
	res.SetInt("fetches", f.fetches)
	if f.records < cfg.Records {
		res.SetInt("short", 1)
	}
	rss.finish(res)
	if fetchErr != nil {
		res.Fail(fetchErr)
	} else if f.records == 0 {
		res.Fail(errors.New("consume: no record read"))
	}
	return res
}

func (cfg *ConsumeConfig) defaults() {
	if cfg.Topic == "" {
		cfg.Topic = "karst-bench"
	}
	if cfg.Records <= 0 {
		cfg.Records = 1_000_000
	}
	if cfg.Duration <= 0 {
		cfg.Duration = 10 * time.Second
	}
}

func orDefault(v, def int32) int32 {
	if v > 0 {
		return v
	}
	return def
}

// startOffsets lists the log start offset of every partition of topic.
func startOffsets(ctx context.Context, addr, topic string) (map[int32]int64, error) {
	cl, err := newClient(addr)
	if err != nil {
		return nil, err
	}
	defer cl.Close()
	listed, err := kadm.NewClient(cl).ListStartOffsets(ctx, topic)
	if err != nil {
		return nil, fmt.Errorf("listing start offsets of %s: %w", topic, err)
	}
	offsets := map[int32]int64{}
	var lerr error
	listed.Each(func(o kadm.ListedOffset) {
		if o.Err != nil && lerr == nil {
			lerr = fmt.Errorf("start offset of %s[%d]: %w", o.Topic, o.Partition, o.Err)
		}
		offsets[o.Partition] = o.Offset
	})
	if lerr == nil && len(offsets) == 0 {
		lerr = fmt.Errorf("topic %s has no partitions", topic)
	}
	return offsets, lerr
}

// rawFetcher is the state of one raw consumer: where each partition is
// read up to, and what it has read.
type rawFetcher struct {
	conn                        net.Conn
	offsets                     map[int32]int64
	isolation                   int8
	maxBytes, partitionMaxBytes int32
	topic                       string

	req, resp        []byte
	corrID           int32
	fetches, records int64
	bytes            int64
	rec              record.Record
}

// fetch sends one Fetch for every partition from its next offset, reads the
// answer and walks every complete batch in it.
func (f *rawFetcher) fetch() error {
	f.corrID++
	f.req = f.request()
	if _, err := f.conn.Write(f.req); err != nil {
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

// request encodes the next Fetch into the reused request buffer.
func (f *rawFetcher) request() []byte {
	req := kmsg.NewPtrFetchRequest()
	req.Version = rawFetchVersion
	req.ReplicaID = -1
	req.MaxWaitMillis = 500
	req.MinBytes = 1
	req.MaxBytes = f.maxBytes
	req.IsolationLevel = f.isolation
	req.SessionEpoch = -1 // no fetch session: every request names every partition
	topic := kmsg.NewFetchRequestTopic()
	topic.Topic = f.topic
	for _, p := range slices.Sorted(maps.Keys(f.offsets)) {
		part := kmsg.NewFetchRequestTopicPartition()
		part.Partition = p
		part.FetchOffset = f.offsets[p]
		part.PartitionMaxBytes = f.partitionMaxBytes
		topic.Partitions = append(topic.Partitions, part)
	}
	req.Topics = append(req.Topics, topic)
	return kmsg.NewRequestFormatter(kmsg.FormatterClientID("karst-bench")).AppendRequest(f.req[:0], req, f.corrID)
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
