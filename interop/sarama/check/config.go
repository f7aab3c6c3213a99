package check

import (
	"time"

	"github.com/IBM/sarama"
)

// callTimeout bounds each request and each admin call; the suite's per-version deadline bounds
// the whole run.
const callTimeout = 10 * time.Second

// newConfig is the configuration every client of the checks uses: Version at the newest protocol
// the sarama release knows, and every wait bounded.
func newConfig() *sarama.Config {
	cfg := sarama.NewConfig()
	cfg.Version = sarama.MaxVersion
	cfg.ClientID = "karst-interop-sarama"
	cfg.Net.DialTimeout = callTimeout
	cfg.Net.ReadTimeout = callTimeout
	cfg.Net.WriteTimeout = callTimeout
	cfg.Metadata.Retry.Max = 10
	cfg.Metadata.Retry.Backoff = 250 * time.Millisecond
	cfg.Admin.Timeout = callTimeout
	cfg.Admin.Retry.Max = 3

	cfg.Producer.RequiredAcks = sarama.WaitForAll
	cfg.Producer.Idempotent = true
	cfg.Net.MaxOpenRequests = 1 // required by Idempotent
	cfg.Producer.Return.Successes = true
	cfg.Producer.Partitioner = sarama.NewManualPartitioner
	cfg.Producer.Retry.Max = 5
	cfg.Producer.Timeout = callTimeout

	cfg.Consumer.Offsets.AutoCommit.Enable = false
	cfg.Consumer.Group.Session.Timeout = 10 * time.Second
	cfg.Consumer.Group.Heartbeat.Interval = time.Second
	cfg.Consumer.Group.Rebalance.Timeout = 10 * time.Second
	cfg.Consumer.Return.Errors = true
	return cfg
}
