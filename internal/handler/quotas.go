package handler

import (
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/karst-broker/karst/internal/fetchsession"

	"github.com/karst-broker/karst/internal/metadata"
	"github.com/karst-broker/karst/internal/quota"
)

// Client quotas (internal/quota) the handlers apply themselves: the
// consumer byte rate of Fetch, whose answer is sized and emptied here, and
// the controller mutation rate of CreateTopics, CreatePartitions and
// DeleteTopics, which is per topic. The connection records the producer
// byte rate and request time, sets throttle_time_ms and mutes the
// connection (internal/server).

// Versions from which a controller mutation quota refuses mutations
// (THROTTLING_QUOTA_EXCEEDED) instead of only throttling, as Kafka's
// ControllerApis.
const (
	createTopicsStrictSince     = 6
	deleteTopicsStrictSince     = 5
	createPartitionsStrictSince = 3
)

// quotaClient is who r counts against.
func quotaClient(r *Request) quota.Client {
	return quota.ClientOf(r.Conn.Principal().Name, r.Header.ClientID)
}

// mutationQuota is r's controller mutation quota; nil when none applies.
func (b *Broker) mutationQuota(r *Request, strictSince int16) *quota.MutationQuota {
	return b.opts.Quotas.MutationQuota(quotaClient(r), r.Version() >= strictSince)
}

// throttledError is a mutation a strict quota refused: the code
// THROTTLING_QUOTA_EXCEEDED with Kafka's message.
type throttledError struct{}

func (throttledError) Error() string { return quota.ThrottledMessage }
func (throttledError) Unwrap() error { return kerr.ThrottlingQuotaExceeded }

// mutate makes a topic change under the controller mutation quota q: the
// change is checked without being made (dryRun), and with a quota the
// partitions its records create are then taken from it, as Kafka's
// controller takes them once a change is known valid (validate_only
// included); apply makes it unless validateOnly.
func mutate(q *quota.MutationQuota, validateOnly bool, dryRun func() ([]metadata.Record, error), apply func() error) error {
	if !q.Enabled() {
		if validateOnly {
			_, err := dryRun()
			return err
		}
		return apply()
	}
	records, err := dryRun()
	if err == nil {
		err = recordMutation(q, partitionRecords(records))
	}
	if err != nil || validateOnly {
		return err
	}
	return apply()
}

// recordMutation takes permits from q, returning the refusal as an error.
func recordMutation(q *quota.MutationQuota, permits int) error {
	if q.Record(permits) != nil {
		return throttledError{}
	}
	return nil
}

// partitionRecords counts the partitions records create.
func partitionRecords(records []metadata.Record) int {
	n := 0
	for _, r := range records {
		if r.APIKey() == metadata.KeyPartition {
			n++
		}
	}
	return n
}

// throttleMillis is d in whole milliseconds, as throttle_time_ms.
func throttleMillis(q *quota.MutationQuota) int32 {
	return int32(q.ThrottleTime().Milliseconds())
}

// capFetchToQuota bounds a consumer's fetch to what its consumer_byte_rate
// allows in one quota window, as KafkaApis bounds fetch_max_bytes (and
// min_bytes with it).
func (b *Broker) capFetchToQuota(req *kmsg.FetchRequest, client quota.Client) {
	limit, ok := b.opts.Quotas.FetchMaxBytes(client)
	if !ok {
		return
	}
	if int64(req.MaxBytes) > limit {
		req.MaxBytes = int32(limit)
	}
	req.MinBytes = min(req.MinBytes, req.MaxBytes)
}

// throttleFetch records the bytes a consumer's fetch would return; when
// that breaks its consumer_byte_rate it takes them back and returns the
// empty answer Kafka's fetch contexts give a throttled fetch
// (getThrottledResponse): no partitions, the session's id for an
// incremental fetch (whose epoch still advances), none for a full one,
// whose new session is dropped. nil means the fetch is answered as read.
// The bytes counted are those of the records read; Kafka counts the whole
// response, a few dozen bytes more per partition.
func (b *Broker) throttleFetch(resp *kmsg.FetchResponse, client quota.Client, targets []fetchTarget, sess *fetchsession.Session, incremental bool) *kmsg.FetchResponse {
	size := 0
	for i := range targets {
		size += int(targets[i].region.length)
	}
	throttle := b.opts.Quotas.RecordFetch(client, size)
	if throttle <= 0 {
		return nil
	}
	b.opts.Quotas.UnrecordFetch(client, size)
	resp.ThrottleMillis = int32(throttle.Milliseconds())
	resp.Topics = nil
	switch {
	case incremental:
		sess.NextEpoch()
	case sess != nil:
		b.opts.FetchSessions.Remove(sess.ID)
		resp.SessionID = 0
	}
	return resp
}
