package bench

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
)

// ProducerConfig holds the producer settings shared by Produce and E2E,
// named as in Kafka's producer where there is a match.
type ProducerConfig struct {
	Acks        int           // -1 (all, the default), 0 or 1
	Linger      time.Duration // linger.ms
	BatchBytes  int32         // batch.size; 0 keeps franz-go's default (1 MB)
	MaxBuffered int           // records buffered before Produce blocks; 0 keeps franz-go's default
	// MaxBufferedBytes is buffer.memory: record bytes buffered before
	// Produce blocks; 0 for no byte limit. When set and MaxBuffered is
	// not, the record count is not limited either.
	MaxBufferedBytes int
	Compression      string // none (default), gzip, snappy, lz4, zstd
	// NoIdempotence turns off the idempotent producer (InitProducerId);
	// it is always off unless acks=all.
	NoIdempotence bool
}

func (p ProducerConfig) opts() ([]kgo.Opt, error) {
	var o []kgo.Opt
	switch p.Acks {
	case -1:
		o = append(o, kgo.RequiredAcks(kgo.AllISRAcks()))
		if p.NoIdempotence {
			o = append(o, kgo.DisableIdempotentWrite())
		}
	case 0:
		o = append(o, kgo.RequiredAcks(kgo.NoAck()), kgo.DisableIdempotentWrite())
	case 1:
		o = append(o, kgo.RequiredAcks(kgo.LeaderAck()), kgo.DisableIdempotentWrite())
	default:
		return nil, fmt.Errorf("acks %d: want -1, 0 or 1", p.Acks)
	}
	o = append(o, kgo.ProducerLinger(p.Linger))
	if p.BatchBytes > 0 {
		o = append(o, kgo.ProducerBatchMaxBytes(p.BatchBytes))
	}
	switch {
	case p.MaxBuffered > 0:
		o = append(o, kgo.MaxBufferedRecords(p.MaxBuffered))
	case p.MaxBufferedBytes > 0:
		o = append(o, kgo.MaxBufferedRecords(math.MaxInt32))
	}
	if p.MaxBufferedBytes > 0 {
		o = append(o, kgo.MaxBufferedBytes(p.MaxBufferedBytes))
	}
	codec, err := CompressionCodec(p.Compression)
	if err != nil {
		return nil, err
	}
	o = append(o, kgo.ProducerBatchCompression(codec))
	return o, nil
}

// CompressionCodec is franz-go's codec for a Kafka compression.type name
// (none, gzip, snappy, lz4, zstd; any case, "" for none); the admin CLI's
// produce reads its --compression with it too.
func CompressionCodec(name string) (kgo.CompressionCodec, error) {
	switch strings.ToLower(name) {
	case "", "none":
		return kgo.NoCompression(), nil
	case "gzip":
		return kgo.GzipCompression(), nil
	case "snappy":
		return kgo.SnappyCompression(), nil
	case "lz4":
		return kgo.Lz4Compression(), nil
	case "zstd":
		return kgo.ZstdCompression(), nil
	}
	return kgo.NoCompression(), fmt.Errorf("unknown compression %q", name)
}

// newClient makes a franz-go client for addr with bounded timeouts, so a
// broker that does not answer fails the run instead of hanging it.
func newClient(addr string, opts ...kgo.Opt) (*kgo.Client, error) {
	base := []kgo.Opt{
		kgo.SeedBrokers(addr),
		kgo.ClientID("karst-bench"),
		kgo.DialTimeout(5 * time.Second),
		kgo.RequestTimeoutOverhead(10 * time.Second),
		kgo.RetryTimeout(30 * time.Second),
	}
	return kgo.NewClient(append(append(base, tlsOpts()...), opts...)...)
}

// EnsureTopic creates topic with the given partitions (replication factor
// 1), or accepts it if it already exists with at least that many.
func EnsureTopic(ctx context.Context, addr, topic string, partitions int32) error {
	cl, err := newClient(addr)
	if err != nil {
		return err
	}
	defer cl.Close()
	adm := kadm.NewClient(cl)
	resp, err := adm.CreateTopic(ctx, partitions, 1, nil, topic)
	if err == nil {
		err = resp.Err
	}
	if errors.Is(err, kerr.TopicAlreadyExists) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("creating topic %s: %w", topic, err)
	}
	return nil
}

// randomValue returns n incompressible bytes, so that compression or a
// dedup cache cannot flatter a broker.
func randomValue(n int, seed uint64) []byte {
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	b := make([]byte, n)
	for i := 0; i+8 <= n; i += 8 {
		v := rng.Uint64()
		for j := 0; j < 8; j++ {
			b[i+j] = byte(v >> (8 * j))
		}
	}
	for i := n &^ 7; i < n; i++ {
		b[i] = byte(rng.Uint32())
	}
	return b
}
