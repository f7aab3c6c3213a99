package quota

import (
	"testing"
	"time"

	"github.com/karst-broker/karst/internal/metadata"
)

// BenchmarkRecordProduce is the per-request cost of the producer byte
// rate: with no quota ever set (the common case, nothing is recorded) and
// with a quota over the client's entity.
func BenchmarkRecordProduce(b *testing.B) {
	c := Client{User: "alice", ClientID: "app"}
	b.Run("no-quotas", func(b *testing.B) {
		m := NewManager(Config{})
		for b.Loop() {
			m.RecordProduce(c, 1000)
		}
	})
	b.Run("client-id-quota", func(b *testing.B) {
		m := NewManager(Config{})
		m.SetQuotas([]metadata.Quotas{q("", "app", ProducerByteRate, 1e12)})
		start := time.Now()
		i := 0
		m.cfg.Now = func() time.Time { i++; return start.Add(time.Duration(i) * time.Microsecond) }
		for b.Loop() {
			m.RecordProduce(c, 1000)
		}
	})
}
