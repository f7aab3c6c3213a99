package integration

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	mrand "math/rand/v2"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// The share-kill checker's consumers are this test binary run again with
// shareConsumerEnv set: a process of their own, so that the checker can
// SIGKILL one the way a consumer host dies. A consumer writes one line per
// event to stdout, unbuffered, and writes an accept only after the broker
// answered it without error, so a line the checker reads is a fact the
// broker stated, whenever the kill falls:
//
//	d PARTITION OFFSET DELIVERYCOUNT   acquired (from ShareFetch)
//	s PARTITION OFFSET                 accept about to be sent
//	a PARTITION OFFSET                 accept answered without error
const shareConsumerEnv = "KARST_SHARE_KILL_CONSUMER"

// shareConsumerCommand is the command of one consumer process of group on
// the topic with id topicID and the given partitions at addr.
func shareConsumerCommand(addr, group string, topicID [16]byte, partitions int32) *exec.Cmd {
	cmd := exec.Command(os.Args[0], "-test.run=^TestShareKillConsumerProcess$", "-test.count=1")
	cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%s,%s,%s,%d", shareConsumerEnv, addr, group, hex.EncodeToString(topicID[:]), partitions))
	return cmd
}

// TestShareKillConsumerProcess is the body of a consumer process started by
// TestShareKillChecker; run by itself, without shareConsumerEnv, it has
// nothing to consume and returns.
func TestShareKillConsumerProcess(_ *testing.T) {
	spec := os.Getenv(shareConsumerEnv)
	if spec == "" {
		return
	}
	f := strings.Split(spec, ",")
	idBytes, _ := hex.DecodeString(f[2])
	var topicID [16]byte
	copy(topicID[:], idBytes)
	n, _ := strconv.Atoi(f[3])
	runShareConsumer(f[0], f[1], topicID, int32(n))
}

// runShareConsumer fetches and accepts until killed, ten records at a time
// with 100 to 300 ms of work on each batch. Acknowledgements ride
// on the next ShareFetch or, one time in three, go in a ShareAcknowledge of
// their own; a failed request, or an error answer, drops the session and
// what it had not acknowledged (the broker gives those records to someone
// later), and opens a new session.
func runShareConsumer(addr, group string, topicID [16]byte, partitions int32) {
	cl, err := kgo.NewClient(kgo.SeedBrokers(addr), kgo.RetryTimeout(time.Second))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	var raw [16]byte
	rand.Read(raw[:])
	member := base64.RawURLEncoding.EncodeToString(raw[:])
	epoch := int32(0)
	pending := map[int32][]int64{}
	for i := 0; ; i++ {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		if epoch > 0 {
			writeLines("s", pending)
		}
		if epoch > 0 && len(pending) > 0 && i%3 == 0 {
			acked, ok := shareAcknowledgeOnly(ctx, cl, group, member, epoch, topicID, pending)
			cancel()
			pending = map[int32][]int64{}
			if !ok {
				epoch = 0
				continue
			}
			epoch++
			writeLines("a", acked)
			continue
		}
		req := kmsg.NewPtrShareFetchRequest()
		req.GroupID, req.MemberID, req.ShareSessionEpoch = &group, &member, epoch
		req.MaxWaitMillis, req.MinBytes, req.MaxBytes, req.MaxRecords, req.BatchSize = 500, 1, 1<<20, 10, 10
		t := kmsg.NewShareFetchRequestTopic()
		t.TopicID = topicID
		for p := range partitions {
			rp := kmsg.NewShareFetchRequestTopicPartition()
			rp.Partition = p
			if epoch > 0 {
				for _, o := range pending[p] {
					b := kmsg.NewShareFetchRequestTopicPartitionAcknowledgementBatch()
					b.FirstOffset, b.LastOffset, b.AcknowledgeTypes = o, o, []int8{ackAccept}
					rp.AcknowledgementBatches = append(rp.AcknowledgementBatches, b)
				}
			}
			t.Partitions = append(t.Partitions, rp)
		}
		req.Topics = append(req.Topics, t)
		sent := pending
		pending = map[int32][]int64{}
		resp, err := req.RequestWith(ctx, cl)
		cancel()
		if err != nil || resp.ErrorCode != 0 {
			epoch = 0
			time.Sleep(100 * time.Millisecond)
			continue
		}
		if epoch > 0 {
			acked := map[int32][]int64{}
			for _, rt := range resp.Topics {
				for _, p := range rt.Partitions {
					if p.AcknowledgeErrorCode == 0 {
						acked[p.Partition] = sent[p.Partition]
					}
				}
			}
			writeLines("a", acked)
		}
		epoch++
		var lines strings.Builder
		for _, rt := range resp.Topics {
			for _, p := range rt.Partitions {
				for _, a := range p.AcquiredRecords {
					for o := a.FirstOffset; o <= a.LastOffset; o++ {
						fmt.Fprintf(&lines, "d %d %d %d\n", p.Partition, o, a.DeliveryCount)
						pending[p.Partition] = append(pending[p.Partition], o)
					}
				}
			}
		}
		os.Stdout.WriteString(lines.String())
		// Work on the records: the consumption spans the checker's kills
		// and the kills fall while records are held.
		time.Sleep(time.Duration(100+mrand.IntN(200)) * time.Millisecond)
	}
}

// shareAcknowledgeOnly accepts pending in a ShareAcknowledge; it returns
// the partitions whose accepts were answered without error, and false when
// the request failed as a whole.
func shareAcknowledgeOnly(ctx context.Context, cl *kgo.Client, group, member string, epoch int32, topicID [16]byte, pending map[int32][]int64) (map[int32][]int64, bool) {
	req := kmsg.NewPtrShareAcknowledgeRequest()
	req.GroupID, req.MemberID, req.ShareSessionEpoch = &group, &member, epoch
	t := kmsg.NewShareAcknowledgeRequestTopic()
	t.TopicID = topicID
	for p, offsets := range pending {
		rp := kmsg.NewShareAcknowledgeRequestTopicPartition()
		rp.Partition = p
		for _, o := range offsets {
			rp.AcknowledgementBatches = append(rp.AcknowledgementBatches, ackBatch(o, o, ackAccept))
		}
		t.Partitions = append(t.Partitions, rp)
	}
	req.Topics = append(req.Topics, t)
	resp, err := req.RequestWith(ctx, cl)
	if err != nil || resp.ErrorCode != 0 {
		return nil, false
	}
	acked := map[int32][]int64{}
	for _, rt := range resp.Topics {
		for _, p := range rt.Partitions {
			if p.ErrorCode == 0 {
				acked[p.Partition] = pending[p.Partition]
			}
		}
	}
	return acked, true
}

func writeLines(kind string, offsets map[int32][]int64) {
	var lines strings.Builder
	for p, os := range offsets {
		for _, o := range os {
			fmt.Fprintf(&lines, "%s %d %d\n", kind, p, o)
		}
	}
	os.Stdout.WriteString(lines.String())
}
