"""Classic consumer groups against KARST_BOOTSTRAP (INTEROP_GROUPS=0 skips them).

confluent-kafka (group.protocol=classic) and kafka-python each: a subscribed consumer reads every
record of a 3-partition topic, commits and closes; after more records are produced, a second
consumer of the same group resumes exactly after the committed offsets.
"""
import os
import time

import pytest
from confluent_kafka import Consumer, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic
from kafka import KafkaConsumer
from kafka import TopicPartition as KTopicPartition

import scenario

pytestmark = pytest.mark.skipif(os.environ.get("INTEROP_GROUPS") == "0", reason="INTEROP_GROUPS=0")

PER_PARTITION = 5
DEADLINE_S = 60


def _new_topic(prefix):
    name = scenario.topic_name(prefix)
    admin = AdminClient({"bootstrap.servers": scenario.bootstrap()})
    admin.create_topics([NewTopic(name, scenario.PARTITIONS, 1)], request_timeout=30)[name].result(timeout=30)
    return name


def _produce(topic, round_):
    """PER_PARTITION records to each partition; values name their round, partition and index."""
    p = Producer({"bootstrap.servers": scenario.bootstrap(), "message.timeout.ms": 30000})
    errs = []
    for part in range(scenario.PARTITIONS):
        for i in range(PER_PARTITION):
            p.produce(topic, value=f"r{round_}-p{part}-{i}".encode(), partition=part,
                      on_delivery=lambda err, msg: err and errs.append(err))
    assert p.flush(60) == 0 and not errs, errs
    return {(part, f"r{round_}-p{part}-{i}") for part in range(scenario.PARTITIONS) for i in range(PER_PARTITION)}


def _confluent_consume(topic, group, want):
    """Subscribes, reads until `want` (set of (partition, value)) is seen, commits synchronously
    and closes; fails on anything unexpected, e.g. a record of an already committed round."""
    c = Consumer({
        "bootstrap.servers": scenario.bootstrap(),
        "group.id": group,
        "group.protocol": "classic",
        "enable.auto.commit": False,
        "auto.offset.reset": "earliest",
        "session.timeout.ms": 10000,
    })
    got = set()
    try:
        c.subscribe([topic])
        deadline = time.monotonic() + DEADLINE_S
        while got != want:
            assert time.monotonic() < deadline, f"timed out: {len(got)}/{len(want)} records"
            msg = c.poll(0.5)
            if msg is None:
                continue
            assert msg.error() is None, msg.error()
            item = (msg.partition(), msg.value().decode())
            assert item in want, f"unexpected record {item}"
            got.add(item)
        committed = c.commit(asynchronous=False)
        assert all(tp.error is None for tp in committed), committed
    finally:
        c.close()


def _confluent_committed(topic, group):
    c = Consumer({"bootstrap.servers": scenario.bootstrap(), "group.id": group, "group.protocol": "classic"})
    try:
        tps = c.committed([TopicPartition(topic, p) for p in range(scenario.PARTITIONS)], timeout=30)
        return {tp.partition: tp.offset for tp in tps}
    finally:
        c.close()


def test_confluent_classic_group_resumes_after_commit():
    topic = _new_topic("interop-confluent-group")
    group = scenario.topic_name("interop-confluent-group")
    _confluent_consume(topic, group, _produce(topic, 1))
    assert _confluent_committed(topic, group) == {p: PER_PARTITION for p in range(scenario.PARTITIONS)}
    _confluent_consume(topic, group, _produce(topic, 2))
    assert _confluent_committed(topic, group) == {p: 2 * PER_PARTITION for p in range(scenario.PARTITIONS)}


def _kafka_python_consume(topic, group, want):
    c = KafkaConsumer(topic, bootstrap_servers=scenario.bootstrap(), group_id=group, enable_auto_commit=False,
                      auto_offset_reset="earliest", request_timeout_ms=30000, session_timeout_ms=10000,
                      heartbeat_interval_ms=1000)
    got = set()
    try:
        deadline = time.monotonic() + DEADLINE_S
        while got != want:
            assert time.monotonic() < deadline, f"timed out: {len(got)}/{len(want)} records"
            for _, msgs in c.poll(timeout_ms=500).items():
                for m in msgs:
                    item = (m.partition, m.value.decode())
                    assert item in want, f"unexpected record {item}"
                    got.add(item)
        c.commit()
        return {p: c.committed(KTopicPartition(topic, p)) for p in range(scenario.PARTITIONS)}
    finally:
        c.close()


def test_kafka_python_group_resumes_after_commit():
    topic = _new_topic("interop-kafkapy-group")
    group = scenario.topic_name("interop-kafkapy-group")
    committed = _kafka_python_consume(topic, group, _produce(topic, 1))
    assert committed == {p: PER_PARTITION for p in range(scenario.PARTITIONS)}, committed
    committed = _kafka_python_consume(topic, group, _produce(topic, 2))
    assert committed == {p: 2 * PER_PARTITION for p in range(scenario.PARTITIONS)}, committed
