"""confluent-kafka (librdkafka) against KARST_BOOTSTRAP: admin, produce with every
compression, 1 MiB record, assigned consumer reads back byte-exact; unknown topic."""
import time

import pytest
from confluent_kafka import Consumer, KafkaError, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, ConfigResource, NewTopic

import scenario

SEED = time.time_ns()


_ADMIN = None


def _admin():
    # One long-lived client: librdkafka fails pending futures when their handle is destroyed.
    global _ADMIN
    if _ADMIN is None:
        _ADMIN = AdminClient({"bootstrap.servers": scenario.bootstrap()})
    return _ADMIN


@pytest.fixture(scope="module")
def topic():
    name = scenario.topic_name("interop-confluent")
    fs = _admin().create_topics(
        [NewTopic(name, scenario.PARTITIONS, 1, config={"max.message.bytes": scenario.TOPIC_MAX_MESSAGE_BYTES})],
        request_timeout=30,
    )
    fs[name].result(timeout=30)
    return name


def test_topic_metadata(topic):
    md = _admin().list_topics(topic=topic, timeout=30)
    t = md.topics[topic]
    assert t.error is None, t.error
    assert sorted(t.partitions) == list(range(scenario.PARTITIONS))
    for p in t.partitions.values():
        assert p.leader >= 0


def test_describe_topic_config(topic):
    res = ConfigResource(ConfigResource.Type.TOPIC, topic)
    cfg = _admin().describe_configs([res], request_timeout=30)[res].result(timeout=30)
    assert cfg["max.message.bytes"].value == scenario.TOPIC_MAX_MESSAGE_BYTES


def _produce(topic, compression, records):
    p = Producer({
        "bootstrap.servers": scenario.bootstrap(),
        "compression.type": compression,
        "linger.ms": 20,
        "message.max.bytes": 2097152,
        "message.timeout.ms": 30000,
    })
    acks = [None] * len(records)

    def on_delivery(i):
        def cb(err, msg):
            acks[i] = (err, msg)
        return cb

    for i, r in enumerate(records):
        kwargs = {"partition": r.partition, "timestamp": r.timestamp, "on_delivery": on_delivery(i)}
        if r.headers:
            kwargs["headers"] = r.headers
        p.produce(topic, value=r.value, key=r.key, **kwargs)
    assert p.flush(60) == 0, "messages still in queue after flush"
    offsets = []
    for r, (err, msg) in zip(records, acks):
        assert err is None, f"{r.label}: {err}"
        assert msg.partition() == r.partition
        offsets.append(msg.offset())
    return offsets


def _consume(topic, records, offsets):
    """Reads from the first acked offset of each partition and compares in offset order."""
    want = {}
    for r, off in zip(records, offsets):
        want.setdefault(r.partition, []).append((off, r))
    c = Consumer({
        "bootstrap.servers": scenario.bootstrap(),
        "group.id": scenario.topic_name("unused-group"),
        "enable.auto.commit": False,
        "check.crcs": True,
        "fetch.message.max.bytes": 2097152,
    })
    try:
        c.assign([TopicPartition(topic, p, l[0][0]) for p, l in want.items()])
        got = {p: [] for p in want}
        deadline = time.monotonic() + 60
        while any(len(got[p]) < len(want[p]) for p in want):
            assert time.monotonic() < deadline, f"timed out; got { {p: len(v) for p, v in got.items()} }"
            msg = c.poll(0.5)
            if msg is None:
                continue
            assert msg.error() is None, msg.error()
            if len(got[msg.partition()]) < len(want[msg.partition()]):
                got[msg.partition()].append(msg)
    finally:
        c.close()
    for p, expected in want.items():
        for (off, r), msg in zip(expected, got[p]):
            assert msg.offset() == off, f"{r.label}: offset {msg.offset()} want {off}"
            ts_type, ts = msg.timestamp()
            assert ts_type == 1, f"{r.label}: timestamp type {ts_type} (want CreateTime)"
            d = r.diff(msg.key(), msg.value(), ts, msg.headers() or [])
            assert d is None, d


@pytest.mark.parametrize("compression", scenario.COMPRESSIONS)
def test_roundtrip(topic, compression):
    records = scenario.records_for(compression, SEED)
    _consume(topic, records, _produce(topic, compression, records))


def test_roundtrip_1mib_record(topic):
    records = [scenario.big_record(SEED)]
    _consume(topic, records, _produce(topic, "none", records))


def test_watermarks(topic):
    c = Consumer({"bootstrap.servers": scenario.bootstrap(), "group.id": "interop-unused"})
    try:
        for p in range(scenario.PARTITIONS):
            lo, hi = c.get_watermark_offsets(TopicPartition(topic, p), timeout=30)
            assert lo == 0 and hi >= 0
    finally:
        c.close()


@pytest.mark.skipif(not scenario.autocreate_off(), reason="needs INTEROP_AUTOCREATE_OFF=1 and a broker with auto.create.topics.enable=false")
def test_unknown_topic():
    name = scenario.topic_name("interop-confluent-missing")
    md = _admin().list_topics(topic=name, timeout=30)
    assert md.topics[name].error is not None
    assert md.topics[name].error.code() == KafkaError.UNKNOWN_TOPIC_OR_PART, md.topics[name].error
    p = Producer({"bootstrap.servers": scenario.bootstrap(), "message.timeout.ms": 5000,
                  "topic.metadata.propagation.max.ms": 1000})
    errs = []
    p.produce(name, value=b"v", on_delivery=lambda err, msg: errs.append(err))
    p.flush(30)
    assert len(errs) == 1 and errs[0] is not None, errs
    assert errs[0].code() in (KafkaError._UNKNOWN_TOPIC, KafkaError.UNKNOWN_TOPIC_OR_PART, KafkaError._MSG_TIMED_OUT), errs[0]
    md = _admin().list_topics(topic=name, timeout=30)
    assert md.topics[name].error is not None, "topic was auto-created"
