package txn

import (
	"fmt"
	"io"
	"log/slog"
	"testing"

	"github.com/karst-broker/karst/internal/coordinator"
)

// BenchmarkLoadPartition measures loading one __transaction_state
// partition that holds the records of 100,000 transactions (four records
// each: Empty, Ongoing, PrepareCommit, CompleteCommit) of 10,000
// transactional ids, through the one Replay the coordinator serves with.
// With -short (the CI smoke run, which only checks that benchmarks run)
// it loads a hundredth of that.
func BenchmarkLoadPartition(b *testing.B) {
	ids, txnsPerID := 10_000, 10
	if testing.Short() {
		ids = 100
	}
	log := coordinator.NewMemoryLog()
	for i := range ids {
		id := fmt.Sprintf("txn-%05d", i)
		m := newTxnMeta(id, int64(i), 60000, scriptStart.UnixMilli())
		var recs []coordinator.Record
		for range txnsPerID {
			for _, st := range []State{Empty, Ongoing, PrepareCommit, CompleteCommit} {
				m.state = st
				m.partitions = map[TopicPartition]struct{}{}
				if st == Ongoing || st == PrepareCommit {
					m.partitions[TopicPartition{Topic: "orders", Partition: int32(i % 12)}] = struct{}{}
				}
				recs = append(recs, coordinator.Record{Key: EncodeKey(id), Value: EncodeValue(m.value())})
			}
			m.epoch++
		}
		if _, err := log.Append(coordinator.Batch{Producer: coordinator.NoProducer, Records: recs}); err != nil {
			b.Fatal(err)
		}
	}
	logs := singleLog{log}
	clock := coordinator.NewManualClock(scriptStart)
	b.ResetTimer()
	for range b.N {
		c := New(DefaultConfig(), Options{Logs: logs, Clock: clock, ProducerIDs: NewProducerIDs(func() (int64, error) { return 0, nil }),
			Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
		if err := c.LoadPartition(0); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		if n := len(c.List(ListFilter{MinDurationMs: -1})); n != ids {
			b.Fatalf("%d ids loaded", n)
		}
		c.Close()
		b.StartTimer()
	}
	b.ReportMetric(float64(ids*txnsPerID*4), "records")
}

// singleLog is one partition's log behind every partition number.
type singleLog struct{ log *coordinator.MemoryLog }

func (s singleLog) Open(int32) (coordinator.PartitionLog, error) { return s.log, nil }
