package karsttest_test

import (
	"context"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/karst-broker/karst/karsttest"
)

// TestGroupsFormWithoutTheInitialRebalanceDelay: a test broker answers
// group.initial.rebalance.delay.ms 0 (Kafka's default is 3000, which
// makes every group test in a user's suite wait 3 s), and an option puts
// it back.
func TestGroupsFormWithoutTheInitialRebalanceDelay(t *testing.T) {
	for _, c := range []struct {
		opts []karsttest.Option
		want string
	}{
		{nil, "0"},
		{[]karsttest.Option{karsttest.WithConfig("group.initial.rebalance.delay.ms", "3000")}, "3000"},
	} {
		b := karsttest.Start(t, c.opts...)
		cl, err := kgo.NewClient(kgo.SeedBrokers(b.Addr()))
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		configs, err := kadm.NewClient(cl).DescribeBrokerConfigs(ctx, 1)
		cancel()
		cl.Close()
		if err != nil {
			t.Fatal(err)
		}
		rc, err := configs.On("1", nil)
		if err != nil {
			t.Fatal(err)
		}
		got := "missing"
		for _, kv := range rc.Configs {
			if kv.Key == "group.initial.rebalance.delay.ms" && kv.Value != nil {
				got = *kv.Value
			}
		}
		if got != c.want {
			t.Errorf("group.initial.rebalance.delay.ms is %s, want %s", got, c.want)
		}
	}
}
