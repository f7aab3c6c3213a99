package integration

import (
	"context"
	"errors"
	"fmt"
	"log"
	"os"
	"time"

	"github.com/IBM/sarama"
)

// runSaramaMember is a sarama ConsumerGroup member (classic protocol,
// range assignor). It commits synchronously after every record; sarama
// rejoins only after every ConsumeClaim returned, so nothing read is left
// uncommitted when partitions move.
func runSaramaMember(spec memberSpec, closing <-chan struct{}, out *memberReport) error {
	if spec.Protocol != "classic" || spec.Strategy != "range" {
		return fmt.Errorf("sarama has no %s/%s member", spec.Protocol, spec.Strategy)
	}
	sarama.Logger = log.New(os.Stderr, "sarama ", log.Lmicroseconds) // shown if the test fails
	cfg := sarama.NewConfig()
	cfg.Version = sarama.V3_9_0_0
	cfg.Consumer.Offsets.Initial = sarama.OffsetOldest
	cfg.Consumer.Offsets.AutoCommit.Enable = false
	cfg.Consumer.Return.Errors = true
	cfg.Consumer.MaxWaitTime = 200 * time.Millisecond
	cfg.Consumer.Group.Rebalance.GroupStrategies = []sarama.BalanceStrategy{sarama.NewBalanceStrategyRange()}
	cfg.Consumer.Group.Rebalance.Timeout = 10 * time.Second
	if spec.SessionTimeoutMs > 0 {
		cfg.Consumer.Group.Session.Timeout = time.Duration(spec.SessionTimeoutMs) * time.Millisecond
		cfg.Consumer.Group.Heartbeat.Interval = time.Duration(spec.SessionTimeoutMs/10) * time.Millisecond
	}
	cg, err := sarama.NewConsumerGroup([]string{spec.Bootstrap}, spec.Group, cfg)
	if err != nil {
		return err
	}
	go func() {
		for err := range cg.Errors() {
			fmt.Fprintln(os.Stderr, "sarama:", err)
		}
	}()
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-closing
		cancel()
	}()
	h := saramaMember{topic: spec.Topic, out: out}
	for ctx.Err() == nil {
		if err := cg.Consume(ctx, []string{spec.Topic}, h); err != nil && !errors.Is(err, sarama.ErrClosedConsumerGroup) {
			fmt.Fprintln(os.Stderr, "consume:", err)
		}
	}
	if err := cg.Close(); err != nil { // leaves the group
		return err
	}
	out.left()
	return nil
}

// saramaMember reports a session's claims as what it owns.
type saramaMember struct {
	topic string
	out   *memberReport
}

func (h saramaMember) Setup(s sarama.ConsumerGroupSession) error {
	h.out.owns(s.Claims()[h.topic])
	return nil
}

func (h saramaMember) Cleanup(sarama.ConsumerGroupSession) error {
	h.out.owns(nil)
	return nil
}

// ConsumeClaim takes what the claim has buffered, then commits it
// synchronously before reading on. Committing after every single record
// would be slow: sarama sends commits on the connection its fetches use,
// so each one waits behind a fetch's long poll (as it would with Kafka).
func (h saramaMember) ConsumeClaim(s sarama.ConsumerGroupSession, c sarama.ConsumerGroupClaim) error {
	defer s.Commit()
	for {
		select {
		case m, ok := <-c.Messages():
			if !ok {
				return nil
			}
			h.consume(s, m)
			for drained := false; !drained; {
				select {
				case m, ok := <-c.Messages():
					if !ok {
						return nil
					}
					h.consume(s, m)
				default:
					drained = true
				}
			}
			s.Commit()
		case <-s.Context().Done():
			return nil
		}
	}
}

func (h saramaMember) consume(s sarama.ConsumerGroupSession, m *sarama.ConsumerMessage) {
	h.out.consumed(m.Partition, m.Offset, m.Value)
	s.MarkMessage(m, "")
}
