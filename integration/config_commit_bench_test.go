package integration

import (
	"context"
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/karst-broker/karst/karsttest"
)

// BenchmarkAlterTopicConfigWith2000Partitions: an AlterConfigs on a broker
// holding 2,000 partitions. Every metadata commit brings each open log's
// configuration up to date, so what that costs per partition is paid
// 2,000 times per commit.
func BenchmarkAlterTopicConfigWith2000Partitions(b *testing.B) {
	broker := karsttest.Start(b, karsttest.WithConfig("log.retention.hours", "100"))
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	cl, err := kgo.NewClient(kgo.SeedBrokers(broker.Addr()))
	if err != nil {
		b.Fatal(err)
	}
	defer cl.Close()
	adm := kadm.NewClient(cl)
	for i := range 250 {
		if _, err := adm.CreateTopic(ctx, 8, 1, nil, fmt.Sprintf("t%03d", i)); err != nil {
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	for i := range b.N {
		retention := strconv.Itoa(1_000_000 + i)
		if _, err := adm.AlterTopicConfigs(ctx, []kadm.AlterConfig{{Name: "retention.ms", Value: &retention}}, "t000"); err != nil {
			b.Fatal(err)
		}
	}
}
