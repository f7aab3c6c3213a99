package server_test

import (
	"errors"
	"io"
	"testing"
	"time"

	"github.com/karst-broker/karst/internal/server"
	"github.com/karst-broker/karst/karsttest"
	"github.com/twmb/franz-go/pkg/kmsg"
)

func TestIdleConnectionIsClosedAfterConnectionsMaxIdle(t *testing.T) {
	const idle = 300 * time.Millisecond
	b := karsttest.Start(t, karsttest.WithConfig("connections.max.idle.ms", "300"))

	quiet := server.DialTest(t, b.Addr())
	apiVersionsOK(t, quiet, 1)
	lastAnswer := time.Now()

	// A connection that keeps asking for longer than the limit stays open.
	busy := server.DialTest(t, b.Addr())
	for corr := int32(1); time.Since(lastAnswer) < 3*idle; corr++ {
		apiVersionsOK(t, busy, corr)
	}

	// The quiet one is closed by now or soon: its read ends with EOF (the
	// dial deadline bounds the wait).
	var one [1]byte
	_, err := quiet.Read(one[:])
	if !errors.Is(err, io.EOF) {
		t.Fatalf("quiet connection read: %v, want EOF after being closed as idle", err)
	}
	if waited := time.Since(lastAnswer); waited < idle {
		t.Fatalf("closed %v after its last answer, before the %v limit", waited, idle)
	}
	apiVersionsOK(t, busy, 1000)
}

func TestConnectionWithARequestInFlightIsNotIdle(t *testing.T) {
	b := karsttest.Start(t, karsttest.WithConfig("connections.max.idle.ms", "200"))
	c := server.DialTest(t, b.Addr())
	// A Fetch for a partition that has no records parks for MaxWaitMillis,
	// longer than the idle limit; it must be answered, not cut off.
	meta := kmsg.NewPtrMetadataRequest()
	topic := kmsg.NewMetadataRequestTopic()
	name := "idle-fetch"
	topic.Topic = &name
	meta.Topics = append(meta.Topics, topic)
	meta.AllowAutoTopicCreation = true
	if _, err := c.Write(request(meta, 9, 1, "t")); err != nil {
		t.Fatal(err)
	}
	readFrame(t, c)

	fetch := kmsg.NewPtrFetchRequest()
	fetch.ReplicaID, fetch.MaxWaitMillis, fetch.MinBytes, fetch.MaxBytes, fetch.SessionEpoch = -1, 1000, 1, 1<<20, -1
	ft := kmsg.NewFetchRequestTopic()
	ft.Topic = name
	fp := kmsg.NewFetchRequestTopicPartition()
	fp.PartitionMaxBytes, fp.CurrentLeaderEpoch, fp.LogStartOffset = 1<<20, -1, -1
	ft.Partitions = append(ft.Partitions, fp)
	fetch.Topics = append(fetch.Topics, ft)
	sent := time.Now()
	if _, err := c.Write(request(fetch, 11, 2, "t")); err != nil {
		t.Fatal(err)
	}
	frame := readFrame(t, c)
	if got := correlationID(frame); got != 2 {
		t.Fatalf("correlation id %d, want the fetch's 2", got)
	}
	if waited := time.Since(sent); waited < 900*time.Millisecond {
		t.Fatalf("fetch answered after %v; it should have waited its 1 s", waited)
	}
}
