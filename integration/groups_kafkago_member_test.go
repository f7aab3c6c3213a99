package integration

import (
	"context"
	"errors"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
	"time"

	segkafka "github.com/segmentio/kafka-go"
)

// runKafkaGoMember is a kafka-go Reader with a GroupID (classic protocol,
// range assignor); ReadMessage commits each record synchronously. The
// Reader does not expose its assignment, so the member reads it from the
// Reader's log: a generation starts with "subscribed to topics and
// partitions: map[{topic:T partition:P}:OFFSET ...]" and ends with
// "stopped heartbeat for group".
func runKafkaGoMember(spec memberSpec, closing <-chan struct{}, out *memberReport) error {
	if spec.Protocol != "classic" || spec.Strategy != "range" {
		return fmt.Errorf("kafka-go has no %s/%s member", spec.Protocol, spec.Strategy)
	}
	session := 30 * time.Second
	if spec.SessionTimeoutMs > 0 {
		session = time.Duration(spec.SessionTimeoutMs) * time.Millisecond
	}
	rd := segkafka.NewReader(segkafka.ReaderConfig{
		Brokers: []string{spec.Bootstrap}, GroupID: spec.Group, Topic: spec.Topic,
		GroupBalancers: []segkafka.GroupBalancer{segkafka.RangeGroupBalancer{}},
		StartOffset:    segkafka.FirstOffset, MaxWait: 200 * time.Millisecond, QueueCapacity: 1,
		SessionTimeout: session, HeartbeatInterval: session / 10, RebalanceTimeout: 10 * time.Second,
		CommitInterval: 0, // synchronous commits
		Logger:         kafkaGoAssignmentLog{spec.Topic, out},
		ErrorLogger:    segkafka.LoggerFunc(func(f string, a ...any) { fmt.Fprintf(os.Stderr, f+"\n", a...) }),
	})
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-closing
		cancel()
	}()
	for {
		m, err := rd.FetchMessage(ctx)
		if ctx.Err() != nil {
			break
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "fetch:", err)
			continue
		}
		out.consumed(int32(m.Partition), m.Offset, m.Value)
		switch err := rd.CommitMessages(ctx, m); {
		case err == nil:
			out.committed(int32(m.Partition), m.Offset+1)
		case !errors.Is(err, context.Canceled):
			fmt.Fprintln(os.Stderr, "commit:", err)
		}
	}
	if err := rd.Close(); err != nil { // leaves the group
		return err
	}
	out.left()
	return nil
}

// kafkaGoAssignmentLog turns the Reader's log into ownership reports.
type kafkaGoAssignmentLog struct {
	topic string
	out   *memberReport
}

var kafkaGoSubscribed = regexp.MustCompile(`\{topic:(\S+) partition:(\d+)\}`)

func (l kafkaGoAssignmentLog) Printf(format string, args ...any) {
	line := fmt.Sprintf(format, args...)
	fmt.Fprintln(os.Stderr, time.Now().Format("15:04:05.000"), strings.TrimSpace(line)) // shown if the test fails
	switch {
	case strings.HasPrefix(line, "subscribed to topics and partitions:"):
		var ps []int32
		for _, m := range kafkaGoSubscribed.FindAllStringSubmatch(line, -1) {
			if m[1] == l.topic {
				p, _ := strconv.Atoi(m[2])
				ps = append(ps, int32(p))
			}
		}
		l.out.owns(ps)
	case strings.HasPrefix(line, "stopped heartbeat for group"):
		l.out.owns(nil)
	}
}
