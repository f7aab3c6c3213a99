"""kafka-python speaking an old protocol generation against one broker.

python kafka_python_old.py BOOTSTRAP API_VERSION OWN_TOPIC FROM_44_TOPIC GROUP, API_VERSION one of
0.8.2, 0.9, 0.10: kafka-python's api_version pins the request versions (Produce v0/v1/v2, Fetch
v0/v1/v2, message format v0 before 0.10, v1 from it) instead of asking ApiVersions. It writes the
Corpus (src/common/.../Corpus.java, the same records) with every codec to its own topic, each
acknowledged offset checked, reads it back committing offsets (a group member from 0.9; 0.8.2 has
no group coordination, only Kafka-stored commits of assigned partitions), resumes from the
commits, and reads what kafka-clients 4.4 wrote transactionally with headers. Prints PASS/FAIL
lines and "generation API_VERSION: N passed, M failed".
"""
import sys
import time
import traceback

from kafka import KafkaConsumer, KafkaProducer, OffsetAndMetadata, TopicPartition

PARTITIONS = 3
RECORDS_PER_CODEC = 12
CODECS = ["none", "gzip", "snappy", "lz4"]
DEADLINE_S = 30


def key(generation, codec, i):
    return None if i % 4 == 0 else f"{generation}/{codec}/k{i}".encode()


def value(generation, codec, i):
    return b"" if i % 6 == 5 else f"{generation}/{codec}/v{i}/\u00e9\u0000\u00ff".encode()


def timestamp(codec_index, i):
    return 1_500_000_000_000 + codec_index * 100_000 - i * 1_000


def offset_of(codec_index, i):
    return codec_index * (RECORDS_PER_CODEC // PARTITIONS) + i // PARTITIONS


def expected(generation, partition, with_timestamps):
    """What partition holds in offset order; kafka-python gives a magic 0 record the timestamp None."""
    return [(key(generation, c, i), value(generation, c, i), timestamp(ci, i) if with_timestamps else None)
            for ci, c in enumerate(CODECS) for i in range(RECORDS_PER_CODEC) if i % PARTITIONS == partition]


class Checks:
    def __init__(self):
        self.passed = self.failed = 0

    def check(self, name, body):
        start = time.monotonic()
        try:
            body()
        except Exception as e:  # noqa: BLE001 - every failure is reported as the check's
            self.failed += 1
            why = "".join(traceback.format_exception_only(type(e), e)).strip().replace("\n", " ")
            print(f"FAIL {name} ({int((time.monotonic() - start) * 1000)} ms): {why}", flush=True)
            return False
        self.passed += 1
        print(f"PASS {name} ({int((time.monotonic() - start) * 1000)} ms)", flush=True)
        return True

    def not_run(self, name, because):
        self.failed += 1
        print(f"FAIL {name} (0 ms): not run, {because}", flush=True)


def require(condition, message):
    if not condition:
        raise AssertionError(message)


def main():
    bootstrap, api, topic, from44, group = sys.argv[1:6]
    api_version = tuple(int(x) for x in api.split("."))
    generation = "kafka-python-" + api
    # Magic 1 (timestamps) from 0.10; before it magic 0, whose records carry none.
    with_timestamps = api_version >= (0, 10)
    common = dict(bootstrap_servers=bootstrap, api_version=api_version, request_timeout_ms=20000)
    checks = Checks()

    def produce(ci):
        codec = CODECS[ci]
        producer = KafkaProducer(acks="all", linger_ms=50, compression_type=None if codec == "none" else codec, **common)
        try:
            futures = [producer.send(topic, partition=i % PARTITIONS, key=key(generation, codec, i), value=value(generation, codec, i),
                                     timestamp_ms=timestamp(ci, i) if with_timestamps else None)
                       for i in range(RECORDS_PER_CODEC)]
            producer.flush(DEADLINE_S)
            for i, f in enumerate(futures):
                md = f.get(DEADLINE_S)
                want = (i % PARTITIONS, offset_of(ci, i))
                require((md.partition, md.offset) == want, f"record {i} acknowledged at {md.partition}/{md.offset}, expected {want}")
        finally:
            producer.close(5)

    produced = True
    for ci, codec in enumerate(CODECS):
        produced &= checks.check(f"produce_{codec}", lambda ci=ci: produce(ci))

    parts = [TopicPartition(topic, p) for p in range(PARTITIONS)]
    commits = {tp: OffsetAndMetadata(3 + 2 * tp.partition, f"{generation}-{tp.partition}", -1) for tp in parts}

    def consumer(reset, group_id):
        return KafkaConsumer(group_id=group_id, enable_auto_commit=False, auto_offset_reset=reset,
                             session_timeout_ms=10000, heartbeat_interval_ms=1000, **common)

    def read_until(c, count):
        read = {p: [] for p in range(PARTITIONS)}
        n, deadline = 0, time.monotonic() + DEADLINE_S
        while n < count:
            require(time.monotonic() < deadline, f"read {n} of {count} records in {DEADLINE_S} s")
            for tp, records in c.poll(timeout_ms=500).items():
                for r in records:
                    read[tp.partition].append((r.key, r.value, r.timestamp))
                    n += 1
        return read

    def compare(want, got, where):
        require(len(got) == len(want), f"{where}: read {len(got)} records, expected {len(want)}")
        for n, (w, g) in enumerate(zip(want, got)):
            require(w == g, f"{where}: record {n} is {g}, expected {w}")

    def member(c):
        # 0.8.2 has no group coordination: its commits are of assigned partitions.
        if api_version < (0, 9):
            c.assign(parts)
        else:
            c.subscribe([topic])

    def consume_and_commit():
        c = consumer("earliest", group)
        try:
            member(c)
            read = read_until(c, RECORDS_PER_CODEC * len(CODECS))
            for p in range(PARTITIONS):
                compare(expected(generation, p, with_timestamps), read[p], f"partition {p}")
            c.commit(commits)
        finally:
            c.close()

    def resume():
        c = consumer("none", group)
        try:
            member(c)
            per = RECORDS_PER_CODEC * len(CODECS) // PARTITIONS
            read = read_until(c, sum(per - m.offset for m in commits.values()))
            for tp, m in commits.items():
                compare(expected(generation, tp.partition, with_timestamps)[m.offset:], read[tp.partition], f"partition {tp.partition} after the commit")
                got = c.committed(tp, metadata=True)
                require(got is not None and (got.offset, got.metadata) == (m.offset, m.metadata), f"committed({tp}) {got}, expected {m}")
        finally:
            c.close()

    def read_from_44():
        c = consumer("earliest", None)
        try:
            c.assign([TopicPartition(from44, p) for p in range(PARTITIONS)])
            read = read_until(c, RECORDS_PER_CODEC * len(CODECS))
            for p in range(PARTITIONS):
                compare(expected("4.4", p, with_timestamps), read[p], f"partition {p}")
        finally:
            c.close()

    if produced and checks.check("group_consume_commit", consume_and_commit):
        checks.check("group_resume_from_commits", resume)
    else:
        checks.not_run("group_consume_commit" if not produced else "group_resume_from_commits", "nothing produced" if not produced else "no commits")
        if not produced:
            checks.not_run("group_resume_from_commits", "no commits")
    checks.check("read_written_by_4_4", read_from_44)
    print(f"generation {api}: {checks.passed} passed, {checks.failed} failed", flush=True)
    sys.exit(0 if checks.failed == 0 else 1)


if __name__ == "__main__":
    main()
