package main

import (
	"fmt"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// Scenarios of idempotent producers and transactions.
func init() {
	register(kmsg.InitProducerID,
		scenario{name: "idempotent", run: func(s *session, v int16) {
			s.compare("1", initProducerIDRequest(v, nil))
		}},
		scenario{name: "transactional", run: func(s *session, v int16) {
			id := fmt.Sprintf("init-v%d", v)
			s.compare("1", initProducerIDRequest(v, &id))
			s.compare("again", initProducerIDRequest(v, &id))
		}},
		scenario{name: "bad-timeout", run: func(s *session, v int16) {
			id := fmt.Sprintf("init-timeout-v%d", v)
			req := initProducerIDRequest(v, &id)
			req.TransactionTimeoutMillis = 1 << 30
			s.compare("1", req)
		}},
	)
	register(kmsg.AddPartitionsToTxn,
		scenario{name: "happy", run: func(s *session, v int16) {
			id := fmt.Sprintf("add-partitions-v%d", v)
			pid, epoch := initTransactional(s, id)
			s.compare("1", addPartitionsRequest(v, id, pid, epoch, dataTopic, 0))
		}},
		scenario{name: "unknown-topic", run: func(s *session, v int16) {
			id := fmt.Sprintf("add-partitions-topic-v%d", v)
			pid, epoch := initTransactional(s, id)
			s.compare("1", addPartitionsRequest(v, id, pid, epoch, "no-such-topic", 0))
		}},
		scenario{name: "wrong-epoch", run: func(s *session, v int16) {
			id := fmt.Sprintf("add-partitions-epoch-v%d", v)
			pid, epoch := initTransactional(s, id)
			s.compare("1", addPartitionsRequest(v, id, pid, epoch+3, dataTopic, 0))
		}},
		scenario{name: "unknown-transactional-id", run: func(s *session, v int16) {
			s.compare("1", addPartitionsRequest(v, "no-such-txn", 77, 0, dataTopic, 0))
		}},
	)
	register(kmsg.AddOffsetsToTxn,
		scenario{name: "happy", run: func(s *session, v int16) {
			id := fmt.Sprintf("add-offsets-v%d", v)
			pid, epoch := initTransactional(s, id)
			s.compare("1", addOffsetsRequest(v, id, pid, epoch, "txn-group"))
		}},
		scenario{name: "unknown-transactional-id", run: func(s *session, v int16) {
			s.compare("1", addOffsetsRequest(v, "no-such-txn", 77, 0, "txn-group"))
		}},
	)
	register(kmsg.EndTxn,
		scenario{name: "commit", run: func(s *session, v int16) {
			id := fmt.Sprintf("end-v%d", v)
			pid, epoch := initTransactional(s, id)
			s.send(addPartitionsRequest(4, id, pid, epoch, dataTopic, 2))
			s.send(produceRequest(9, dataTopic, [16]byte{}, 2, recordBatch(recordsTime, pid, epoch, 0, 0x10, "t"), -1))
			s.compare("1", endTxnRequest(v, id, pid, epoch, true))
		}},
		scenario{name: "abort-empty", run: func(s *session, v int16) {
			id := fmt.Sprintf("end-empty-v%d", v)
			pid, epoch := initTransactional(s, id)
			s.compare("1", endTxnRequest(v, id, pid, epoch, false))
		}},
		scenario{name: "unknown-transactional-id", run: func(s *session, v int16) {
			s.compare("1", endTxnRequest(v, "no-such-txn", 77, 0, true))
		}},
	)
	register(kmsg.TxnOffsetCommit,
		scenario{name: "happy", run: func(s *session, v int16) {
			id := fmt.Sprintf("txn-commit-v%d", v)
			group := fmt.Sprintf("txn-commit-group-v%d", v)
			pid, epoch := initTransactional(s, id)
			s.send(addOffsetsRequest(3, id, pid, epoch, group))
			s.compare("1", txnOffsetCommitRequest(v, id, group, pid, epoch, dataTopic))
		}},
		scenario{name: "without-add-offsets", run: func(s *session, v int16) {
			id := fmt.Sprintf("txn-commit-noadd-v%d", v)
			pid, epoch := initTransactional(s, id)
			s.compare("1", txnOffsetCommitRequest(v, id, fmt.Sprintf("txn-commit-noadd-v%d", v), pid, epoch, dataTopic))
		}},
		scenario{name: "unknown-topic", run: func(s *session, v int16) {
			id := fmt.Sprintf("txn-commit-topic-v%d", v)
			group := fmt.Sprintf("txn-commit-topic-group-v%d", v)
			pid, epoch := initTransactional(s, id)
			s.send(addOffsetsRequest(3, id, pid, epoch, group))
			s.compare("1", txnOffsetCommitRequest(v, id, group, pid, epoch, "no-such-topic"))
		}},
	)
	register(kmsg.WriteTxnMarkers,
		scenario{name: "abort-marker", run: func(s *session, v int16) {
			s.compare("1", writeTxnMarkersRequest(v, dataTopic, 2))
		}},
		scenario{name: "unknown-topic", run: func(s *session, v int16) {
			s.compare("1", writeTxnMarkersRequest(v, "no-such-topic", 0))
		}},
	)
	register(kmsg.DescribeProducers,
		scenario{name: "idempotent", run: func(s *session, v int16) {
			topic := "describe-producers"
			if createTopic(s, topic, 1, nil) != nil {
				return
			}
			init, _ := s.send(initProducerIDRequest(4, nil)).(*kmsg.InitProducerIDResponse)
			if init == nil {
				return
			}
			s.send(produceRequest(9, topic, [16]byte{}, 0, recordBatch(recordsTime, init.ProducerID, init.ProducerEpoch, 0, 0, "a", "b"), -1))
			req := kmsg.NewPtrDescribeProducersRequest()
			req.SetVersion(v)
			for _, name := range []string{topic, "no-such-topic"} {
				t := kmsg.NewDescribeProducersRequestTopic()
				t.Topic, t.Partitions = name, []int32{0, 5}
				req.Topics = append(req.Topics, t)
			}
			s.compare("1", req)
		}},
	)
	register(kmsg.DescribeTransactions,
		scenario{name: "ongoing-and-unknown", run: func(s *session, v int16) {
			id := "describe-txn"
			pid, epoch := initTransactional(s, id)
			s.send(addPartitionsRequest(4, id, pid, epoch, dataTopic, 1))
			req := kmsg.NewPtrDescribeTransactionsRequest()
			req.SetVersion(v)
			req.TransactionalIDs = []string{id, "no-such-txn"}
			s.compare("1", req)
		}},
	)
	register(kmsg.ListTransactions,
		scenario{name: "all", run: func(s *session, v int16) {
			req := kmsg.NewPtrListTransactionsRequest()
			req.SetVersion(v)
			s.compare("1", req)
		}},
		scenario{name: "state-filter", run: func(s *session, v int16) {
			req := kmsg.NewPtrListTransactionsRequest()
			req.SetVersion(v)
			req.StateFilters = []string{"Ongoing"}
			s.compare("1", req)
		}},
		scenario{name: "unknown-state", run: func(s *session, v int16) {
			req := kmsg.NewPtrListTransactionsRequest()
			req.SetVersion(v)
			req.StateFilters = []string{"Sleeping"}
			s.compare("1", req)
		}},
		scenario{name: "pattern", minVersion: 2, run: func(s *session, v int16) {
			req := kmsg.NewPtrListTransactionsRequest()
			req.SetVersion(v)
			req.TransactionalIDPattern = kmsg.StringPtr("end-.*")
			s.compare("1", req)
		}},
	)
}

func initProducerIDRequest(v int16, transactionalID *string) *kmsg.InitProducerIDRequest {
	req := kmsg.NewPtrInitProducerIDRequest()
	req.SetVersion(v)
	req.TransactionalID, req.TransactionTimeoutMillis = transactionalID, 60000
	req.ProducerID, req.ProducerEpoch = -1, -1
	return req
}

// initTransactional gets a producer id and epoch for transactional id.
func initTransactional(s *session, id string) (int64, int16) {
	resp, _ := s.send(initProducerIDRequest(4, &id)).(*kmsg.InitProducerIDResponse)
	if resp == nil {
		return -1, -1
	}
	return resp.ProducerID, resp.ProducerEpoch
}

func addPartitionsRequest(v int16, id string, pid int64, epoch int16, topic string, partition int32) *kmsg.AddPartitionsToTxnRequest {
	req := kmsg.NewPtrAddPartitionsToTxnRequest()
	req.SetVersion(v)
	if v < 4 {
		req.TransactionalID, req.ProducerID, req.ProducerEpoch = id, pid, epoch
		t := kmsg.NewAddPartitionsToTxnRequestTopic()
		t.Topic, t.Partitions = topic, []int32{partition}
		req.Topics = append(req.Topics, t)
		return req
	}
	txn := kmsg.NewAddPartitionsToTxnRequestTransaction()
	txn.TransactionalID, txn.ProducerID, txn.ProducerEpoch = id, pid, epoch
	t := kmsg.NewAddPartitionsToTxnRequestTransactionTopic()
	t.Topic, t.Partitions = topic, []int32{partition}
	txn.Topics = append(txn.Topics, t)
	req.Transactions = append(req.Transactions, txn)
	return req
}

func addOffsetsRequest(v int16, id string, pid int64, epoch int16, group string) *kmsg.AddOffsetsToTxnRequest {
	req := kmsg.NewPtrAddOffsetsToTxnRequest()
	req.SetVersion(v)
	req.TransactionalID, req.ProducerID, req.ProducerEpoch, req.Group = id, pid, epoch, group
	return req
}

func endTxnRequest(v int16, id string, pid int64, epoch int16, commit bool) *kmsg.EndTxnRequest {
	req := kmsg.NewPtrEndTxnRequest()
	req.SetVersion(v)
	req.TransactionalID, req.ProducerID, req.ProducerEpoch, req.Commit = id, pid, epoch, commit
	return req
}

func txnOffsetCommitRequest(v int16, id, group string, pid int64, epoch int16, topic string) *kmsg.TxnOffsetCommitRequest {
	req := kmsg.NewPtrTxnOffsetCommitRequest()
	req.SetVersion(v)
	req.TransactionalID, req.Group, req.ProducerID, req.ProducerEpoch, req.Generation = id, group, pid, epoch, -1
	t := kmsg.NewTxnOffsetCommitRequestTopic()
	t.Topic = topic
	p := kmsg.NewTxnOffsetCommitRequestTopicPartition()
	p.Partition, p.Offset, p.LeaderEpoch = 0, 1, -1
	t.Partitions = append(t.Partitions, p)
	req.Topics = append(req.Topics, t)
	return req
}

func writeTxnMarkersRequest(v int16, topic string, partition int32) *kmsg.WriteTxnMarkersRequest {
	req := kmsg.NewPtrWriteTxnMarkersRequest()
	req.SetVersion(v)
	m := kmsg.NewWriteTxnMarkersRequestMarker()
	m.ProducerID, m.ProducerEpoch, m.Committed, m.CoordinatorEpoch = 424242, 0, false, 0
	t := kmsg.NewWriteTxnMarkersRequestMarkerTopic()
	t.Topic, t.Partitions = topic, []int32{partition}
	m.Topics = append(m.Topics, t)
	req.Markers = append(req.Markers, m)
	return req
}
