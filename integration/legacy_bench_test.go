package integration

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/IBM/sarama"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/karst-broker/karst/karsttest"
)

// legacyBenchBytes is the partition a benchmark fetches whole: 100 MiB, a
// 64th of it under -short.
func legacyBenchBytes() int {
	if testing.Short() {
		return 100 << 20 / 64
	}
	return 100 << 20
}

// BenchmarkFetchDownConversion fetches one 100 MiB partition of 1 KiB
// records whole, with Fetch v2 (down-converted to magic 1 as it is sent)
// and with Fetch v12 (the stored batches, sent with sendfile), reading the
// answer off the socket without keeping it. peak-RSS-MiB is the process's
// high-water resident set during the fetches (reset before them through
// /proc/self/clear_refs), broker and reading client together; base-RSS-MiB
// is the resident set before them.
func BenchmarkFetchDownConversion(b *testing.B) {
	broker := karsttest.Start(b)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	cl, err := kgo.NewClient(kgo.SeedBrokers(broker.Addr()), kgo.ProducerBatchCompression(kgo.NoCompression()),
		kgo.ProducerBatchMaxBytes(1<<20), kgo.ProducerLinger(5*time.Millisecond))
	if err != nil {
		b.Fatal(err)
	}
	defer cl.Close()
	if _, err := kadm.NewClient(cl).CreateTopic(ctx, 1, 1, nil, "bench"); err != nil {
		b.Fatal(err)
	}
	value := bytes.Repeat([]byte("karst-legacy-benchmark-"), 1024/23)
	for sent := 0; sent < legacyBenchBytes(); sent += len(value) {
		cl.Produce(ctx, &kgo.Record{Topic: "bench", Value: value}, func(_ *kgo.Record, err error) {
			if err != nil {
				b.Error(err)
			}
		})
	}
	if err := cl.Flush(ctx); err != nil {
		b.Fatal(err)
	}
	for _, v := range []int16{2, 12} {
		b.Run(fmt.Sprintf("Fetch-v%d", v), func(b *testing.B) {
			c, err := net.DialTimeout("tcp", broker.Addr(), 5*time.Second)
			if err != nil {
				b.Fatal(err)
			}
			defer c.Close()
			base := rssKiB(b, "VmRSS")
			resetPeakRSS(b)
			b.ResetTimer()
			for i := range b.N {
				n := fetchWhole(b, c, v, int32(i))
				b.SetBytes(n)
			}
			b.StopTimer()
			b.ReportMetric(float64(rssKiB(b, "VmHWM"))/1024, "peak-RSS-MiB")
			b.ReportMetric(float64(base)/1024, "base-RSS-MiB")
		})
	}
}

// fetchWhole sends one Fetch of the whole partition at version v and reads
// the answer off the socket, returning its size.
func fetchWhole(b *testing.B, c net.Conn, v int16, corr int32) int64 {
	req := kmsg.NewPtrFetchRequest()
	req.SetVersion(v)
	req.ReplicaID, req.MaxWaitMillis, req.MinBytes, req.MaxBytes, req.SessionEpoch = -1, 0, 1, 1<<30, -1
	rt := kmsg.NewFetchRequestTopic()
	rt.Topic = "bench"
	rp := kmsg.NewFetchRequestTopicPartition()
	rp.PartitionMaxBytes, rp.CurrentLeaderEpoch = 1<<30, -1
	rt.Partitions = append(rt.Partitions, rp)
	req.Topics = append(req.Topics, rt)
	body := req.AppendTo(nil)
	var frame []byte
	frame = binary.BigEndian.AppendUint32(frame, 0)
	frame = binary.BigEndian.AppendUint16(frame, 1)
	frame = binary.BigEndian.AppendUint16(frame, uint16(v))
	frame = binary.BigEndian.AppendUint32(frame, uint32(corr))
	frame = binary.BigEndian.AppendUint16(frame, 5)
	frame = append(frame, "bench"...)
	if v >= 12 {
		frame = append(frame, 0) // flexible request header: no tags
	}
	frame = append(frame, body...)
	binary.BigEndian.PutUint32(frame, uint32(len(frame)-4))
	_ = c.SetDeadline(time.Now().Add(2 * time.Minute))
	if _, err := c.Write(frame); err != nil {
		b.Fatal(err)
	}
	var size [4]byte
	if _, err := io.ReadFull(c, size[:]); err != nil {
		b.Fatal(err)
	}
	n := int64(binary.BigEndian.Uint32(size[:]))
	if n < int64(legacyBenchBytes()) {
		b.Fatalf("a %d-byte answer for a %d-byte partition", n, legacyBenchBytes())
	}
	if _, err := io.CopyN(io.Discard, c, n); err != nil {
		b.Fatal(err)
	}
	return n
}

func resetPeakRSS(b *testing.B) {
	if err := os.WriteFile("/proc/self/clear_refs", []byte("5"), 0); err != nil {
		b.Logf("peak RSS not reset (%v): peak-RSS-MiB covers the whole process life", err)
	}
}

// rssKiB reads one of /proc/self/status's memory lines (VmRSS, VmHWM).
func rssKiB(b *testing.B, field string) int64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		b.Skipf("no /proc/self/status: %v", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), field+":"); ok {
			n, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return n
		}
	}
	b.Fatalf("%s not in /proc/self/status", field)
	return 0
}

// BenchmarkProduceMessageFormats produces 1,000 1 KiB messages a request
// with sarama speaking message format v0 (Produce v0), v1 (Produce v2) and
// record batches v2 (Produce v3+), uncompressed, so the difference is the
// broker's up-conversion.
func BenchmarkProduceMessageFormats(b *testing.B) {
	broker := karsttest.Start(b)
	value := sarama.ByteEncoder(bytes.Repeat([]byte("k"), 1024))
	for _, c := range []struct {
		name    string
		version sarama.KafkaVersion
	}{{"magic0", sarama.V0_8_2_0}, {"magic1", sarama.V0_10_0_0}, {"v2", sarama.V2_1_0_0}} {
		b.Run(c.name, func(b *testing.B) {
			cfg := sarama.NewConfig()
			cfg.Version = c.version
			cfg.Producer.Return.Successes = true
			cfg.Producer.Flush.MaxMessages = 1000
			cfg.Producer.MaxMessageBytes = 4 << 20
			producer, err := sarama.NewSyncProducer([]string{broker.Addr()}, cfg)
			if err != nil {
				b.Fatal(err)
			}
			defer producer.Close()
			msgs := make([]*sarama.ProducerMessage, 1000)
			b.SetBytes(int64(len(msgs) * len(value)))
			b.ResetTimer()
			for range b.N {
				for i := range msgs {
					msgs[i] = &sarama.ProducerMessage{Topic: "produce-" + c.name, Partition: 0, Value: value}
				}
				if err := producer.SendMessages(msgs); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
