package admincli

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/karst-broker/karst/internal/bench"
)

// maxInputLine bounds one record's line on stdin (a record's value is
// bounded by the broker's message.max.bytes anyway).
const maxInputLine = 64 << 20

func runProduce(ctx context.Context, args []string, s Streams) error {
	f := newFlags(s, "produce", "TOPIC [--key-separator SEP] [--header KEY=VALUE]... [--partition N] [--format text|json]",
		`Read records from stdin, one a line, and write them to TOPIC; print how many were
acknowledged. In text format a line is the value, or KEY SEP VALUE with
--key-separator; in json format a line is an object as consume --format json
prints it ({"key":...,"value":...,"headers":[{"key":...,"value":...}],"timestamp":MS};
its topic, partition and offset are ignored). Without --partition, keyed records
go to the partition Kafka's Java client picks (murmur2 of the key).`)
	var conn connection
	conn.register(f)
	keySep := f.String("key-separator", "", "split each text line into key and value at the first `SEP`")
	f.alias("K", "key-separator")
	var headers repeated
	f.Var(&headers, "header", "add header `KEY=VALUE` to every record (repeatable)")
	f.alias("H", "header")
	partition := f.Int("partition", -1, "write every record to partition `N` (-1: by key)")
	f.alias("p", "partition")
	format := f.String("format", formatText, "input `FORMAT`: text or json")
	acks := f.String("acks", "all", "acknowledgement `LEVEL`: all, 1 or 0")
	compression := f.String("compression", "none", "batch `CODEC`: none, gzip, snappy, lz4 or zstd")
	printOffsets := f.Bool("print-offsets", false, "print each record's partition@offset as it is acknowledged")
	rest, err := f.parse(args)
	if err != nil {
		return err
	}
	if err := f.exactly(rest, 1, "TOPIC"); err != nil {
		return err
	}
	reader := recordReader{format: *format, keySeparator: *keySep}
	if *format != formatText && *format != formatJSON {
		return usagef(f.help(), "--format %q: want text or json", *format)
	}
	for _, h := range headers {
		k, v, ok := strings.Cut(h, "=")
		if !ok {
			return usagef(f.help(), "--header %q is not KEY=VALUE", h)
		}
		reader.headers = append(reader.headers, kgo.RecordHeader{Key: k, Value: []byte(v)})
	}
	opts := []kgo.Opt{kgo.DefaultProduceTopic(rest[0]), kgo.RecordDeliveryTimeout(conn.timeout)}
	switch *acks {
	case "all", "-1":
		opts = append(opts, kgo.RequiredAcks(kgo.AllISRAcks()))
	case "1":
		opts = append(opts, kgo.RequiredAcks(kgo.LeaderAck()), kgo.DisableIdempotentWrite())
	case "0":
		opts = append(opts, kgo.RequiredAcks(kgo.NoAck()), kgo.DisableIdempotentWrite())
	default:
		return usagef(f.help(), "--acks %q: want all, 1 or 0", *acks)
	}
	codec, err := bench.CompressionCodec(*compression)
	if err != nil {
		return usageError{err: err, help: f.help()}
	}
	opts = append(opts, kgo.ProducerBatchCompression(codec))
	if *partition >= 0 {
		opts = append(opts, kgo.RecordPartitioner(kgo.ManualPartitioner()))
	}
	cl, err := conn.client(ctx, s, opts...)
	if err != nil {
		return err
	}
	defer cl.Close()

	var (
		mu       sync.Mutex
		acked    int
		firstErr error
		wg       sync.WaitGroup
	)
	delivered := func(r *kgo.Record, err error) {
		defer wg.Done()
		mu.Lock()
		defer mu.Unlock()
		if err != nil {
			if firstErr == nil {
				firstErr = fmt.Errorf("producing to %s: %w", r.Topic, err)
			}
			return
		}
		acked++
		if *printOffsets {
			fmt.Fprintf(s.Out, "%s/%d@%d\n", r.Topic, r.Partition, r.Offset)
		}
	}
	lines := bufio.NewScanner(s.In)
	lines.Buffer(make([]byte, 0, 64<<10), maxInputLine)
	lineNo := 0
	var readErr error
	for lines.Scan() {
		lineNo++
		r, err := reader.parse(lines.Text())
		if err != nil {
			readErr = fmt.Errorf("stdin line %d: %w", lineNo, err)
			break
		}
		if *partition >= 0 {
			r.Partition = int32(*partition)
		}
		wg.Add(1)
		cl.Produce(ctx, r, delivered)
	}
	if err := lines.Err(); err != nil && readErr == nil && !errors.Is(err, io.EOF) {
		readErr = fmt.Errorf("reading stdin: %w", err)
	}
	wg.Wait()
	fmt.Fprintf(s.Err, "produced %d records to %s\n", acked, rest[0])
	return errors.Join(readErr, firstErr)
}
