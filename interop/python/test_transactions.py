"""Transactions against KARST_BOOTSTRAP with confluent-kafka (librdkafka); INTEROP_TXN=0 skips them.

A transactional producer commits and aborts transactions over two partitions: a read_committed
consumer sees exactly the committed records, a read_uncommitted one sees both. A consume-transform-
produce loop hands the input offsets to each transaction (send_offsets_to_transaction), so the output
holds every input record exactly once and the group's committed offsets cover the input. A second
producer with the same transactional.id fences the first, whose open transaction is aborted.

Reads stop at a sentinel record written outside any transaction after the transactions: a
read_committed consumer reaches it only once everything before it is decided.
"""
import collections
import os
import time

import pytest
from confluent_kafka import Consumer, KafkaError, KafkaException, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic

import scenario

pytestmark = pytest.mark.skipif(os.environ.get("INTEROP_TXN") == "0", reason="INTEROP_TXN=0")

DEADLINE_S = 60


def _new_topic(prefix, partitions):
    name = scenario.topic_name(prefix)
    admin = AdminClient({"bootstrap.servers": scenario.bootstrap()})
    admin.create_topics([NewTopic(name, partitions, 1)], request_timeout=30)[name].result(timeout=30)
    return name


def _txn_producer(txn_id):
    p = Producer({"bootstrap.servers": scenario.bootstrap(), "transactional.id": txn_id,
                  "transaction.timeout.ms": 30000, "linger.ms": 5})
    p.init_transactions(30)
    return p


def _plain_produce(topic, values_by_partition):
    p = Producer({"bootstrap.servers": scenario.bootstrap(), "message.timeout.ms": 30000})
    errs = []
    for part, values in values_by_partition.items():
        for v in values:
            p.produce(topic, value=v.encode(), partition=part, on_delivery=lambda err, msg: err and errs.append(err))
    assert p.flush(60) == 0 and not errs, errs


def _sentinels(topic, partitions, tag):
    _plain_produce(topic, {part: [f"end-{tag}"] for part in range(partitions)})


def _read_to_sentinels(topic, partitions, tag, isolation):
    """Reads topic from the beginning with an assigned consumer until every partition's sentinel."""
    c = Consumer({"bootstrap.servers": scenario.bootstrap(), "group.id": scenario.topic_name("unused"),
                  "isolation.level": isolation, "enable.auto.commit": False, "enable.partition.eof": False})
    got, done = [], set()
    try:
        c.assign([TopicPartition(topic, part, 0) for part in range(partitions)])
        deadline = time.monotonic() + DEADLINE_S
        while len(done) < partitions:
            assert time.monotonic() < deadline, f"{isolation} read of {topic} timed out: {got}, sentinels {done}"
            msg = c.poll(0.5)
            if msg is None:
                continue
            assert msg.error() is None, msg.error()
            if msg.partition() in done:
                continue
            if msg.value() == f"end-{tag}".encode():
                done.add(msg.partition())
            else:
                got.append(msg.value().decode())
    finally:
        c.close()
    return got


def _require_exactly(what, got, want):
    count = collections.Counter(got)
    missing = [v for v in want if count[v] == 0]
    dup = [v for v in want if count[v] > 1]
    extra = sorted(set(count) - set(want))
    assert not (missing or dup or extra), f"{what}: missing {missing}, more than once {dup}, unexpected {extra}"


def test_confluent_txn_commit_abort_read_committed():
    topic = _new_topic("interop-py-txn", 2)
    p = _txn_producer(scenario.topic_name("interop-py-txn"))
    committed, everything = [], []
    for round_, commit in enumerate([True, False, True, False]):
        values = [f"{'committed' if commit else 'aborted'}{round_}-{i}" for i in range(6)]
        p.begin_transaction()
        for i, v in enumerate(values):
            p.produce(topic, value=v.encode(), partition=i % 2)
        if commit:
            p.commit_transaction(30)
            committed += values
        else:
            assert p.flush(30) == 0  # the aborted records reach the log before the abort marker
            p.abort_transaction(30)
        everything += values
    _sentinels(topic, 2, "a")
    _require_exactly("read_committed", _read_to_sentinels(topic, 2, "a", "read_committed"), committed)
    _require_exactly("read_uncommitted", _read_to_sentinels(topic, 2, "a", "read_uncommitted"), everything)


def test_confluent_txn_consume_transform_produce():
    n = 20
    src = _new_topic("interop-py-txn-in", 2)
    dst = _new_topic("interop-py-txn-out", 2)
    group = scenario.topic_name("interop-py-txn")
    _plain_produce(src, {part: [f"in-{i}" for i in range(n) if i % 2 == part] for part in range(2)})

    p = _txn_producer(scenario.topic_name("interop-py-txn-ctp"))
    c = Consumer({"bootstrap.servers": scenario.bootstrap(), "group.id": group, "group.protocol": "classic",
                  "isolation.level": "read_committed", "enable.auto.commit": False, "auto.offset.reset": "earliest"})
    transformed = transactions = 0
    try:
        c.subscribe([src])
        deadline = time.monotonic() + DEADLINE_S
        while transformed < n:
            assert time.monotonic() < deadline, f"timed out after {transformed} of {n} records"
            batch = [m for m in c.consume(num_messages=7, timeout=0.5)]
            for m in batch:
                assert m.error() is None, m.error()
            if not batch:
                continue
            p.begin_transaction()
            for m in batch:
                p.produce(dst, value=b"out-" + m.value()[3:], partition=m.partition())
            p.send_offsets_to_transaction(c.position(c.assignment()), c.consumer_group_metadata(), 30)
            p.commit_transaction(30)
            transformed += len(batch)
            transactions += 1
        committed = c.committed([TopicPartition(src, 0), TopicPartition(src, 1)], timeout=30)
        assert [tp.offset for tp in committed] == [n // 2, n // 2], committed
    finally:
        c.close()
    _sentinels(dst, 2, "o")
    _require_exactly(f"output read_committed ({transactions} transactions)",
                     _read_to_sentinels(dst, 2, "o", "read_committed"), [f"out-{i}" for i in range(n)])


def test_confluent_txn_producer_fenced():
    topic = _new_topic("interop-py-txn-fenced", 1)
    txn_id = scenario.topic_name("interop-py-txn-fenced")
    zombie = _txn_producer(txn_id)
    zombie.begin_transaction()
    zombie.produce(topic, value=b"zombie-open", partition=0)
    assert zombie.flush(30) == 0
    # init_transactions bumps the epoch and aborts the zombie's open transaction.
    successor = _txn_producer(txn_id)

    errors = []
    zombie.produce(topic, value=b"zombie-late", partition=0, on_delivery=lambda err, msg: err and errors.append(err))
    try:
        zombie.commit_transaction(30)
    except KafkaException as e:
        errors.append(e.args[0])
    assert errors, "the fenced producer wrote and committed"
    fenced = {KafkaError._FENCED, KafkaError.PRODUCER_FENCED, KafkaError.INVALID_PRODUCER_EPOCH}
    assert any(e.code() in fenced for e in errors), f"zombie refused with {errors}; want a fencing error"

    successor.begin_transaction()
    for i in range(3):
        successor.produce(topic, value=f"successor-{i}".encode(), partition=0)
    successor.commit_transaction(30)
    _sentinels(topic, 1, "f")
    _require_exactly("read_committed", _read_to_sentinels(topic, 1, "f", "read_committed"),
                     [f"successor-{i}" for i in range(3)])
