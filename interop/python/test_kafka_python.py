"""kafka-python (pure Python) against KARST_BOOTSTRAP: admin, produce with every compression,
1 MiB record, assigned consumer reads back byte-exact; unknown topic."""
import time

import pytest
from kafka import KafkaConsumer, KafkaProducer, TopicPartition
from kafka.admin import ConfigResource, ConfigResourceType, KafkaAdminClient, NewTopic
from kafka.errors import KafkaTimeoutError, UnknownTopicOrPartitionError

import scenario

SEED = time.time_ns()


def _admin():
    return KafkaAdminClient(bootstrap_servers=scenario.bootstrap(), request_timeout_ms=30000)


@pytest.fixture(scope="module")
def topic():
    name = scenario.topic_name("interop-kafkapy")
    admin = _admin()
    try:
        admin.create_topics([NewTopic(name, scenario.PARTITIONS, 1,
                                      topic_configs={"max.message.bytes": scenario.TOPIC_MAX_MESSAGE_BYTES})],
                            timeout_ms=30000)
    finally:
        admin.close()
    return name


def _consumer(**extra):
    return KafkaConsumer(bootstrap_servers=scenario.bootstrap(), group_id=None, enable_auto_commit=False,
                         auto_offset_reset="earliest", check_crcs=True, request_timeout_ms=30000, **extra)


def test_topic_metadata(topic):
    c = _consumer()
    try:
        deadline = time.monotonic() + 30
        parts = c.partitions_for_topic(topic)
        while not parts:
            assert time.monotonic() < deadline, "topic never appeared in metadata"
            time.sleep(0.2)
            parts = c.partitions_for_topic(topic)
        assert sorted(parts) == list(range(scenario.PARTITIONS))
    finally:
        c.close()


def test_describe_topic_config(topic):
    admin = _admin()
    try:
        # kafka-python 3 answers {resource_type: {name: {config: {"value": ...}}}}.
        res = admin.describe_configs([ConfigResource(ConfigResourceType.TOPIC, topic)])
        value = res["topic"][topic]["max.message.bytes"]["value"]
        assert value == scenario.TOPIC_MAX_MESSAGE_BYTES, value
    finally:
        admin.close()


def _produce(topic, compression, records):
    p = KafkaProducer(bootstrap_servers=scenario.bootstrap(),
                      compression_type=None if compression == "none" else compression,
                      linger_ms=20, max_request_size=2097152, request_timeout_ms=30000, max_block_ms=30000)
    try:
        futures = [p.send(topic, value=r.value, key=r.key, headers=r.headers, partition=r.partition,
                          timestamp_ms=r.timestamp) for r in records]
        p.flush(timeout=60)
        offsets = []
        for r, f in zip(records, futures):
            md = f.get(timeout=30)
            assert md.partition == r.partition
            offsets.append(md.offset)
        return offsets
    finally:
        p.close(timeout=10)


def _consume(topic, records, offsets):
    want = {}
    for r, off in zip(records, offsets):
        want.setdefault(r.partition, []).append((off, r))
    c = _consumer(max_partition_fetch_bytes=2097152)
    try:
        tps = [TopicPartition(topic, p) for p in want]
        c.assign(tps)
        for tp in tps:
            c.seek(tp, want[tp.partition][0][0])
        got = {p: [] for p in want}
        deadline = time.monotonic() + 60
        while any(len(got[p]) < len(want[p]) for p in want):
            assert time.monotonic() < deadline, f"timed out; got { {p: len(v) for p, v in got.items()} }"
            for tp, msgs in c.poll(timeout_ms=500).items():
                room = len(want[tp.partition]) - len(got[tp.partition])
                got[tp.partition].extend(msgs[:max(room, 0)])
    finally:
        c.close()
    for p, expected in want.items():
        for (off, r), msg in zip(expected, got[p]):
            assert msg.offset == off, f"{r.label}: offset {msg.offset} want {off}"
            assert msg.timestamp_type == 0, f"{r.label}: timestamp type {msg.timestamp_type} (want CreateTime)"
            d = r.diff(msg.key, msg.value, msg.timestamp, [(k, v) for k, v in msg.headers])
            assert d is None, d


@pytest.mark.parametrize("compression", scenario.COMPRESSIONS)
def test_roundtrip(topic, compression):
    # kafka-python cannot send a header whose value is null.
    records = scenario.records_for(compression, SEED, null_headers=False)
    _consume(topic, records, _produce(topic, compression, records))


def test_roundtrip_1mib_record(topic):
    records = [scenario.big_record(SEED)]
    _consume(topic, records, _produce(topic, "none", records))


def test_offsets(topic):
    c = _consumer()
    try:
        tps = [TopicPartition(topic, p) for p in range(scenario.PARTITIONS)]
        begin = c.beginning_offsets(tps)
        end = c.end_offsets(tps)
        for tp in tps:
            assert begin[tp] == 0 and end[tp] > 0, (tp, begin[tp], end[tp])
        by_time = c.offsets_for_times({tp: scenario.BASE_TIMESTAMP for tp in tps})
        for tp in tps:
            assert by_time[tp] is not None and by_time[tp].offset == 0, (tp, by_time[tp])
    finally:
        c.close()


@pytest.mark.skipif(not scenario.autocreate_off(), reason="needs INTEROP_AUTOCREATE_OFF=1 and a broker with auto.create.topics.enable=false")
def test_unknown_topic():
    name = scenario.topic_name("interop-kafkapy-missing")
    p = KafkaProducer(bootstrap_servers=scenario.bootstrap(), max_block_ms=3000, request_timeout_ms=10000)
    try:
        with pytest.raises((KafkaTimeoutError, UnknownTopicOrPartitionError)):
            p.send(name, value=b"v").get(timeout=30)
    finally:
        p.close(timeout=10)
    c = _consumer()
    try:
        assert name not in c.topics(), "topic was auto-created"
    finally:
        c.close()
