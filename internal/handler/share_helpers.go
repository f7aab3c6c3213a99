package handler

// The share-partition side of ShareFetch and ShareAcknowledge (KIP-932),
// as Kafka's SharePartitionManager serves them: share sessions, the
// acknowledgements, and the reads that acquire records.

import (
	"encoding/binary"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"

	"github.com/karst-broker/karst/internal/coordinator"
	klog "github.com/karst-broker/karst/internal/log"
	"github.com/karst-broker/karst/internal/metadata"
	"github.com/karst-broker/karst/internal/share"
	"github.com/karst-broker/karst/internal/storage"
)

// shareGroupSettings are a share group's settings: its GROUP configs
// over the broker's group.share.* settings.
type shareGroupSettings struct {
	share.Config
	readCommitted bool
	autoReset     string
	renew         bool
}

func (b *Broker) shareSettings(group string) shareGroupSettings {
	set := b.image().Configs(metadata.ConfigResource{Type: metadata.ConfigResourceGroup, Name: group})
	settings := b.staticBrokerConfig()
	s := shareGroupSettings{
		Config: share.Config{
			RecordLockDuration: time.Duration(settings.GroupInt(set, "share.record.lock.duration.ms")) * time.Millisecond,
			DeliveryCountLimit: int16(settings.GroupInt(set, "share.delivery.count.limit")),
			MaxRecordLocks:     int(settings.GroupInt(set, "share.partition.max.record.locks")),
		},
		readCommitted: set["share.isolation.level"] == "read_committed",
		autoReset:     "latest",
		renew:         set["share.renew.acknowledge.enable"] != "false",
	}
	if v, ok := set["share.auto.offset.reset"]; ok {
		s.autoReset = v
	}
	return s
}

// shareTarget is one partition a share request names, resolved.
type shareTarget struct {
	tp    share.TopicPartition
	topic *metadata.Topic
	part  *storage.Partition
	meta  *metadata.Partition
	sp    *share.Partition
	code  int16
	err   string
}

// resolveShare finds tp's log and loads its share-partition for group.
func (b *Broker) resolveShare(img *metadata.Image, group string, tp share.TopicPartition) *shareTarget {
	t := &shareTarget{tp: tp}
	topic, code := requestTopic(img, true, "", tp.TopicID)
	if code != 0 {
		t.code = code
		return t
	}
	t.topic = topic
	t.part, t.meta, t.code = b.leaderPartition(topic, tp.Partition, -1)
	if t.code != 0 {
		return t
	}
	log := t.part.Log
	k := share.Key{Group: group, TopicID: tp.TopicID, Partition: tp.Partition}
	sp, err := b.opts.Shares.Partition(k, func() share.Config { return b.shareSettings(group).Config },
		func() (int64, error) { return shareStartOffset(log, b.shareSettings(group).autoReset, time.Now()) })
	if err != nil {
		t.code, t.err = shareErrorCode(err), err.Error()
		return t
	}
	t.sp = sp
	return t
}

// byDuration is share.auto.offset.reset's by_duration:<ISO-8601 duration>
// as Java's Duration.parse reads the forms the validator accepts.
var byDuration = regexp.MustCompile(`^by_duration:P(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+(?:\.\d+)?)S)?)?$`)

// shareStartOffset is a new share-partition's start offset, by
// share.auto.offset.reset: the log start offset (earliest), the high
// watermark (latest), or the first offset at or after now minus the
// duration (by_duration; the high watermark when no record is that new).
func shareStartOffset(l *klog.Log, reset string, now time.Time) (int64, error) {
	switch reset {
	case "earliest":
		return l.LogStartOffset(), nil
	case "latest", "":
		return l.HighWatermark(), nil
	}
	m := byDuration.FindStringSubmatch(reset)
	if m == nil {
		return 0, fmt.Errorf("share.auto.offset.reset %q", reset)
	}
	var d time.Duration
	for i, unit := range []time.Duration{24 * time.Hour, time.Hour, time.Minute, time.Second} {
		if m[i+1] == "" {
			continue
		}
		f, err := strconv.ParseFloat(m[i+1], 64)
		if err != nil {
			return 0, err
		}
		d += time.Duration(f * float64(unit))
	}
	to, ok, err := l.OffsetForTimestamp(now.Add(-d).UnixMilli())
	if err != nil {
		return 0, err
	}
	if !ok {
		return l.HighWatermark(), nil
	}
	return to.Offset, nil
}

// shareErrorCode maps the errors of share-partitions and of their
// persistence to Kafka's codes.
func shareErrorCode(err error) int16 {
	switch {
	case errors.Is(err, share.ErrInvalidRecordState):
		return kerr.InvalidRecordState.Code
	case errors.Is(err, share.ErrInvalidRequest):
		return kerr.InvalidRequest.Code
	case errors.Is(err, share.ErrFencedStateEpoch):
		return kerr.FencedStateEpoch.Code
	case errors.Is(err, share.ErrFencedLeaderEpoch):
		return kerr.FencedLeaderEpoch.Code
	case errors.Is(err, share.ErrSessionNotFound):
		return kerr.ShareSessionNotFound.Code
	case errors.Is(err, share.ErrSessionEpoch):
		return kerr.InvalidShareSessionEpoch.Code
	case errors.Is(err, share.ErrSessionLimit):
		return kerr.ShareSessionLimitReached.Code
	case errors.Is(err, coordinator.ErrNotCoordinator):
		return kerr.CoordinatorNotAvailable.Code
	}
	return kerr.UnknownServerError.Code
}

// shareAck is one partition's acknowledgements, as both requests carry
// them.
type shareAck struct {
	tp   share.TopicPartition
	acks []share.Ack
}

// acknowledge applies one partition's acknowledgements; the code is the
// partition's acknowledgement error.
func (b *Broker) acknowledge(img *metadata.Image, group, member string, a shareAck, renew bool) (int16, string) {
	t := b.resolveShare(img, group, a.tp)
	if t.code != 0 {
		return t.code, t.err
	}
	if err := t.sp.Acknowledge(member, a.acks, renew && b.shareSettings(group).renew); err != nil {
		return shareErrorCode(err), err.Error()
	}
	return 0, ""
}

// shareAcquire reads t's log from its share-partition's fetch offset and
// acquires for member what the read holds; records are the whole batches
// read, which the client filters by the acquired ranges.
func shareAcquire(t *shareTarget, member string, s shareGroupSettings, maxBytes, maxRecords, batchSize int, strict bool) ([]byte, []share.AcquiredRange, error) {
	l := t.part.Log
	if err := t.sp.AdvanceTo(l.LogStartOffset()); err != nil {
		return nil, nil, err
	}
	from, ok := t.sp.FetchOffset()
	if !ok {
		return nil, nil, nil
	}
	iso := klog.ReadUncommitted
	if s.readCommitted {
		iso = klog.ReadCommitted
	}
	data, rr, err := l.ReadBytesIsolated(nil, from, maxBytes, true, iso)
	if errors.Is(err, klog.ErrOffsetOutOfRange) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	batches, whole := fetchedBatches(data, s.readCommitted, rr.AbortedTransactions)
	acquired := t.sp.Acquire(member, from, batches, maxRecords, batchSize, strict)
	if len(acquired) == 0 {
		return nil, nil, nil
	}
	return data[:whole], acquired, nil
}

// The fields of a v2 record batch header a share fetch reads.
const (
	batchHeaderBytes     = 61
	batchAttributesAt    = 21
	batchLastDeltaAt     = 23
	batchProducerIDAt    = 43
	batchAttrTransaction = 0x10
	batchAttrControl     = 0x20
)

// fetchedBatches lists the whole batches of data (a read may end inside
// one) and how many bytes they take. Control batches are not
// deliverable, nor, for read_committed, data of aborted transactions.
func fetchedBatches(data []byte, readCommitted bool, aborted []klog.AbortedTxn) ([]share.FetchedBatch, int) {
	var out []share.FetchedBatch
	pos := 0
	for len(data)-pos >= batchHeaderBytes {
		b := data[pos:]
		size := int(int32(binary.BigEndian.Uint32(b[8:12]))) + 12
		if size < batchHeaderBytes || size > len(b) {
			break
		}
		base := int64(binary.BigEndian.Uint64(b[0:8]))
		attrs := binary.BigEndian.Uint16(b[batchAttributesAt:])
		last := base + int64(int32(binary.BigEndian.Uint32(b[batchLastDeltaAt:])))
		deliverable := attrs&batchAttrControl == 0
		if deliverable && readCommitted && attrs&batchAttrTransaction != 0 {
			pid := int64(binary.BigEndian.Uint64(b[batchProducerIDAt:]))
			for _, a := range aborted {
				if a.ProducerID == pid && base >= a.FirstOffset && base <= a.LastOffset {
					deliverable = false
					break
				}
			}
		}
		out = append(out, share.FetchedBatch{FirstOffset: base, LastOffset: last, Deliverable: deliverable})
		pos += size
	}
	return out, pos
}

// shareCurrentLeader is the CurrentLeader of a ShareFetch or
// ShareAcknowledge partition answer as Kafka 4.4's KafkaApis fills it:
// the metadata's leader only for NOT_LEADER_OR_FOLLOWER and
// FENCED_LEADER_EPOCH, the schema's default (0, 0) otherwise.
func shareCurrentLeader(img *metadata.Image, topicID [16]byte, partition int32, code int16) (int32, int32) {
	if code != kerr.NotLeaderForPartition.Code && code != kerr.FencedLeaderEpoch.Code {
		return 0, 0
	}
	if img != nil {
		if t, ok := img.TopicByID(metadata.UUID(topicID)); ok && partition >= 0 && int(partition) < len(t.Partitions) {
			return t.Partitions[partition].Leader, t.Partitions[partition].LeaderEpoch
		}
	}
	return -1, -1
}
