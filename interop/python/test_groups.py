"""Consumer groups against KARST_BOOTSTRAP (INTEROP_GROUPS=0 skips them).

confluent-kafka (group.protocol=classic and, unless INTEROP_GROUPS_CONSUMER=0, group.protocol=consumer,
KIP-848) and kafka-python each: a subscribed consumer reads every record of a 3-partition topic,
commits and closes; after more records are produced, a second consumer of the same group resumes
exactly after the committed offsets.

Membership with group.protocol=consumer: three members over six partitions, each in its own process
(this file run as `python test_groups.py member ...`) so that one can crash (SIGKILL, no leave
heartbeat: the broker's group.consumer.session.timeout.ms, 45 s by default, takes it out). One
member leaves (close), one crashes, both come back, while records are produced before and during
each step. Once the group is stable every partition has exactly one owner (by the members' own
assignments, sampled repeatedly, and by DescribeConsumerGroups); no record is skipped; none is
consumed twice except what the crashed member had read but not committed; everything ends up
committed.

Membership with kafka-python (classic protocol, the only one it speaks): the same with kafka-python
members (`python test_groups.py kafka-python-member ...`) whose 6 s session timeout (the broker's
default group.min.session.timeout.ms) takes a crashed member out; after every member left, records
produced to the empty group are read by a restarted member, and by nobody else.
"""
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time

import pytest
from confluent_kafka import Consumer, ConsumerGroupState, ConsumerGroupType, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic
from kafka import KafkaConsumer
from kafka import TopicPartition as KTopicPartition

import scenario

pytestmark = pytest.mark.skipif(os.environ.get("INTEROP_GROUPS") == "0", reason="INTEROP_GROUPS=0")
consumer_protocol = pytest.mark.skipif(os.environ.get("INTEROP_GROUPS_CONSUMER") == "0",
                                       reason="INTEROP_GROUPS_CONSUMER=0")

PER_PARTITION = 5
DEADLINE_S = 60


def _new_topic(prefix, partitions=scenario.PARTITIONS):
    name = scenario.topic_name(prefix)
    admin = AdminClient({"bootstrap.servers": scenario.bootstrap()})
    admin.create_topics([NewTopic(name, partitions, 1)], request_timeout=30)[name].result(timeout=30)
    return name


def _group_config(group, protocol):
    """Consumer settings for `group`; session.timeout.ms is the broker's business with protocol=consumer."""
    conf = {"bootstrap.servers": scenario.bootstrap(), "group.id": group, "group.protocol": protocol}
    if protocol == "classic":
        conf["session.timeout.ms"] = 10000
    return conf


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


def _confluent_consume(topic, group, want, protocol="classic"):
    """Subscribes, reads until `want` (set of (partition, value)) is seen, commits synchronously
    and closes; fails on anything unexpected, e.g. a record of an already committed round."""
    c = Consumer({**_group_config(group, protocol), "enable.auto.commit": False, "auto.offset.reset": "earliest"})
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


def _confluent_committed(topic, group, protocol="classic", partitions=scenario.PARTITIONS):
    c = Consumer(_group_config(group, protocol))
    try:
        tps = c.committed([TopicPartition(topic, p) for p in range(partitions)], timeout=30)
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


@consumer_protocol
def test_confluent_consumer_protocol_group_resumes_after_commit():
    topic = _new_topic("interop-confluent-848")
    group = scenario.topic_name("interop-confluent-848")
    _confluent_consume(topic, group, _produce(topic, 1), "consumer")
    assert _confluent_committed(topic, group, "consumer") == {p: PER_PARTITION for p in range(scenario.PARTITIONS)}
    _confluent_consume(topic, group, _produce(topic, 2), "consumer")
    assert _confluent_committed(topic, group, "consumer") == {p: 2 * PER_PARTITION for p in range(scenario.PARTITIONS)}


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


# ---- membership with group.protocol=consumer: members in child processes

MEMBER_PARTITIONS = 6
MEMBERSHIP_DEADLINE_S = 150  # covers one 45 s session timeout and several 5 s heartbeat intervals


def _member_main(bootstrap, group, topic):
    """Child side: a KIP-848 member that reports on stdout `owns P,Q`, `consumed P O VALUE` and
    `left`; it commits synchronously after every record (retrying on the next loop, and before
    giving partitions up) and closes when stdin says `close` or ends."""
    closing = threading.Event()

    def read_stdin():
        for line in sys.stdin:
            if line.strip() == "close":
                break
        closing.set()

    threading.Thread(target=read_stdin, daemon=True).start()
    pending = {}  # partition -> next offset to commit
    c = Consumer({"bootstrap.servers": bootstrap, "group.id": group, "group.protocol": "consumer",
                  "enable.auto.commit": False, "auto.offset.reset": "earliest"})

    def commit():
        if not pending:
            return
        try:
            done = c.commit(offsets=[TopicPartition(topic, p, o) for p, o in pending.items()], asynchronous=False)
        except Exception as e:  # retried on the next loop
            print(f"commit: {e}", file=sys.stderr, flush=True)
            return
        for tp in done:
            if tp.error is None and pending.get(tp.partition) == tp.offset:
                del pending[tp.partition]

    def on_revoke(consumer, partitions):
        commit()
        for tp in partitions:
            pending.pop(tp.partition, None)

    def on_lost(consumer, partitions):
        for tp in partitions:
            pending.pop(tp.partition, None)

    c.subscribe([topic], on_revoke=on_revoke, on_lost=on_lost)
    last = None
    while not closing.is_set():
        msg = c.poll(0.05)
        if msg is not None:
            if msg.error() is not None:
                print(f"error: {msg.error()}", file=sys.stderr, flush=True)
            else:
                print(f"consumed {msg.partition()} {msg.offset()} {msg.value().decode()}", flush=True)
                pending[msg.partition()] = msg.offset() + 1
                commit()
        owns = ",".join(str(p) for p in sorted(tp.partition for tp in c.assignment()))
        if owns != last:
            print(f"owns {owns}", flush=True)
            last = owns
    commit()
    c.close()
    print("left", flush=True)


class _Member:
    """The test's handle on a child member: its current assignment and the records it reported."""

    def __init__(self, name, group, topic, ledger, kind="member"):
        self.name = name
        self.owns = set()
        self.left = False
        self.log = tempfile.TemporaryFile(mode="w+")
        self.proc = subprocess.Popen(
            [sys.executable, os.path.abspath(__file__), kind, scenario.bootstrap(), group, topic],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.log, text=True)
        self.reader = threading.Thread(target=self._read, args=(ledger,), daemon=True)
        self.reader.start()

    def _read(self, ledger):
        for line in self.proc.stdout:
            f = line.split()
            if f and f[0] == "owns":
                self.owns = {int(p) for p in f[1].split(",")} if len(f) == 2 else set()
            elif len(f) == 4 and f[0] == "consumed":
                ledger.add(f[3], self.name)
            elif f == ["left"]:
                self.left = True
                self.owns = set()

    def leave(self):
        self.proc.stdin.write("close\n")
        self.proc.stdin.close()
        self.proc.wait(timeout=60)
        self.reader.join(timeout=10)
        assert self.left, f"member {self.name} exited ({self.proc.returncode}) without leaving:\n{self.stderr()}"

    def crash(self):
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(timeout=30)
        self.reader.join(timeout=10)
        self.owns = set()

    def kill_if_running(self):
        if self.proc.poll() is None:
            self.crash()

    def stderr(self):
        self.log.seek(0)
        return self.log.read()[-3000:]


class _Ledger:
    def __init__(self):
        self.lock = threading.Lock()
        self.by = {}  # value -> names of the members that consumed it

    def add(self, value, member):
        with self.lock:
            self.by.setdefault(value, []).append(member)

    def has_all(self, values):
        with self.lock:
            return all(self.by.get(v) for v in values)


def _eventually(what, cond, deadline):
    while not cond():
        assert time.monotonic() < deadline, f"timed out waiting until {what}"
        time.sleep(0.05)


def _split_exactly(members):
    owned = [p for m in members for p in m.owns]
    return all(m.owns for m in members) and sorted(owned) == list(range(MEMBER_PARTITIONS))


def _described_stable(admin, group, n, type_=ConsumerGroupType.CONSUMER, partitions=None):
    """DescribeConsumerGroups: `group` is of `type_`, stable with n members and, when `partitions`
    is given, assigns each of those partitions to exactly one member."""
    try:
        d = admin.describe_consumer_groups([group], request_timeout=10)[group].result(timeout=15)
    except Exception:
        return False
    if d.type != type_ or d.state != ConsumerGroupState.STABLE or len(d.members) != n:
        return False
    assigned = sorted(tp.partition for m in d.members for tp in (m.assignment.topic_partitions if m.assignment else []))
    return partitions is None or assigned == list(range(partitions))


def _stable_for(samples, cond):
    """cond must hold on `samples` consecutive checks: one sample may be a moment inside a rebalance."""
    streak = [0]

    def check():
        streak[0] = streak[0] + 1 if cond() else 0
        return streak[0] >= samples
    return check


def _produce_tagged(topic, tag, n=60):
    p = Producer({"bootstrap.servers": scenario.bootstrap(), "message.timeout.ms": 30000})
    errs = []
    values = [f"{tag}-{i}" for i in range(n)]
    for i, v in enumerate(values):
        p.produce(topic, value=v.encode(), partition=i % MEMBER_PARTITIONS, on_delivery=lambda err, msg: err and errs.append(err))
    assert p.flush(60) == 0 and not errs, errs
    return values


@consumer_protocol
def test_confluent_consumer_protocol_members_join_leave_crash_and_return():
    topic = _new_topic("interop-confluent-848-members", MEMBER_PARTITIONS)
    group = scenario.topic_name("interop-confluent-848-members")
    admin = AdminClient({"bootstrap.servers": scenario.bootstrap()})
    deadline = time.monotonic() + MEMBERSHIP_DEADLINE_S
    ledger = _Ledger()
    produced = []
    started = []

    def start(name):
        m = _Member(name, group, topic, ledger)
        started.append(m)
        return m

    def settle(what, members):
        _eventually(what, _stable_for(10, lambda: _split_exactly(members) and _described_stable(admin, group, len(members))),
                    deadline)

    def consumed_all():
        _eventually(f"{len(produced)} records consumed", lambda: ledger.has_all(produced), deadline)

    try:
        produced += _produce_tagged(topic, "before")
        a, b, c = start("a"), start("b"), start("c")
        produced += _produce_tagged(topic, "joining")
        settle("3 members own 2 partitions each", [a, b, c])
        assert [len(m.owns) for m in (a, b, c)] == [2, 2, 2], [m.owns for m in (a, b, c)]
        consumed_all()

        a.leave()
        produced += _produce_tagged(topic, "after-leave")
        settle("the 2 remaining members own all 6 partitions", [b, c])
        consumed_all()

        b.crash()
        produced += _produce_tagged(topic, "after-crash")
        settle("the last member owns all 6 partitions once the crashed one's session expired", [c])
        consumed_all()

        a2, b2 = start("a2"), start("b2")
        produced += _produce_tagged(topic, "rejoining")
        settle("3 members own 2 partitions each again", [c, a2, b2])
        consumed_all()
        produced += _produce_tagged(topic, "after")
        consumed_all()

        for m in (c, a2, b2):
            m.leave()
        committed = _confluent_committed(topic, group, "consumer", MEMBER_PARTITIONS)
        assert sum(committed.values()) == len(produced), committed
    except Exception:
        for m in started:
            m.kill_if_running()
            print(f"--- member {m.name} stderr:\n{m.stderr()}", file=sys.stderr)
        raise
    finally:
        for m in started:
            m.kill_if_running()

    with ledger.lock:
        unexpected = set(ledger.by) - set(produced)
        assert not unexpected, f"consumed records never produced: {sorted(unexpected)[:10]}"
        for v in produced:
            by = ledger.by.get(v, [])
            assert by, f"record {v} skipped"
            assert len(by) == 1 or (len(by) == 2 and "b" in by and by[0] != by[1]), \
                f"record {v} consumed by {by}: a committed record was consumed again"


# ---- membership with kafka-python (classic protocol): members in child processes

KAFKA_PYTHON_MEMBERSHIP_DEADLINE_S = 120


def _kafka_python_member_main(bootstrap, group, topic):
    """Child side of the kafka-python churn test; speaks the same stdout/stdin protocol as
    _member_main. Its 6 s session timeout is the broker's default group.min.session.timeout.ms,
    so a crashed member is out of the group 6 s after it died."""
    import logging

    from kafka import ConsumerRebalanceListener
    from kafka.structs import OffsetAndMetadata

    # The coordinator's joins, syncs and heartbeat failures, for the test's report if it fails.
    logging.basicConfig(stream=sys.stderr, level=logging.WARNING, format="%(asctime)s %(name)s %(message)s")
    logging.getLogger("kafka.coordinator").setLevel(logging.INFO)
    closing = threading.Event()

    def read_stdin():
        for line in sys.stdin:
            if line.strip() == "close":
                break
        closing.set()

    threading.Thread(target=read_stdin, daemon=True).start()
    pending = {}  # KTopicPartition -> next offset to commit
    c = KafkaConsumer(bootstrap_servers=bootstrap, group_id=group, enable_auto_commit=False,
                      auto_offset_reset="earliest", request_timeout_ms=30000, session_timeout_ms=6000,
                      heartbeat_interval_ms=1000)

    def commit():
        if not pending:
            return
        offsets = dict(pending)
        try:
            c.commit({tp: OffsetAndMetadata(o, "", -1) for tp, o in offsets.items()})
        except Exception as e:  # retried on the next loop
            print(f"commit: {e!r}", file=sys.stderr, flush=True)
            return
        for tp, o in offsets.items():
            if pending.get(tp) == o:
                del pending[tp]

    class Listener(ConsumerRebalanceListener):
        def on_partitions_revoked(self, revoked):
            commit()
            for tp in revoked:
                pending.pop(tp, None)

        def on_partitions_assigned(self, assigned):
            pass

        def on_partitions_lost(self, lost):
            for tp in lost:
                pending.pop(tp, None)

    # kafka-python's group leader can stall when it assigns before it has the topic's metadata
    # (seen against Kafka 4.1.2 and Karst alike, with group.initial.rebalance.delay.ms=0): "No
    # partition metadata for topic", an immediate rejoin, then silence as leader until its session
    # expires. The member therefore learns the topic's partitions before it joins.
    deadline = time.monotonic() + 30
    while not c.partitions_for_topic(topic) and time.monotonic() < deadline:
        time.sleep(0.05)
    c.subscribe([topic], listener=Listener())
    last = None
    while not closing.is_set():
        for tp, msgs in c.poll(timeout_ms=100).items():
            for m in msgs:
                print(f"consumed {m.partition} {m.offset} {m.value.decode()}", flush=True)
                pending[tp] = m.offset + 1
        commit()
        owns = ",".join(str(p) for p in sorted(tp.partition for tp in c.assignment()))
        if owns != last:
            print(f"owns {owns}", flush=True)
            last = owns
    commit()
    c.close(autocommit=False)
    print("left", flush=True)


@pytest.mark.skipif(os.environ.get("INTEROP_KAFKA_PYTHON_CHURN") != "1",
                    reason="kafka-python's group leader sometimes stalls (seen against Kafka 4.1.2 and Karst "
                           "alike); set INTEROP_KAFKA_PYTHON_CHURN=1 to run it")
def test_kafka_python_members_join_leave_crash_and_return():
    """kafka-python members of a classic group: three join; one leaves (close, LeaveGroup); one
    crashes (SIGKILL); both come back; all leave and a restarted member reads what was produced
    meanwhile. Checks as in the confluent test above, with the broker's view of a classic group."""
    topic = _new_topic("interop-kafkapy-members", MEMBER_PARTITIONS)
    group = scenario.topic_name("interop-kafkapy-members")
    admin = AdminClient({"bootstrap.servers": scenario.bootstrap()})
    deadline = time.monotonic() + KAFKA_PYTHON_MEMBERSHIP_DEADLINE_S
    ledger = _Ledger()
    produced = []
    started = []

    def start(name):
        m = _Member(name, group, topic, ledger, kind="kafka-python-member")
        started.append(m)
        return m

    def settle(what, members):
        def stable():
            return _split_exactly(members) and _described_stable(
                admin, group, len(members), ConsumerGroupType.CLASSIC, MEMBER_PARTITIONS)
        try:
            _eventually(what, _stable_for(5, stable), deadline)
        except AssertionError as e:
            try:
                d = admin.describe_consumer_groups([group], request_timeout=10)[group].result(timeout=15)
                seen = (d.type, d.state, [[tp.partition for tp in m.assignment.topic_partitions] for m in d.members])
            except Exception as err:
                seen = err
            raise AssertionError(f"{e}; members own {[(m.name, m.owns) for m in members]}; described {seen}") from None

    def consumed_all(what):
        _eventually(f"{len(produced)} records consumed {what}", lambda: ledger.has_all(produced), deadline)

    def committed_all(when):
        committed = _confluent_committed(topic, group, "classic", MEMBER_PARTITIONS)
        assert sum(committed.values()) == len(produced), (when, committed, len(produced))

    try:
        produced += _produce_tagged(topic, "before")
        a, b, c = start("a"), start("b"), start("c")
        produced += _produce_tagged(topic, "joining")
        settle("3 members own 2 partitions each", [a, b, c])
        assert [len(m.owns) for m in (a, b, c)] == [2, 2, 2], [m.owns for m in (a, b, c)]
        consumed_all("by 3 members")

        a.leave()
        produced += _produce_tagged(topic, "after-leave")
        settle("the 2 remaining members own all 6 partitions", [b, c])
        consumed_all("after a leave")

        b.crash()
        produced += _produce_tagged(topic, "after-crash")
        settle("the last member owns all 6 partitions once the crashed one's session expired", [c])
        consumed_all("after a crash")

        a2, b2 = start("a2"), start("b2")
        produced += _produce_tagged(topic, "rejoining")
        settle("3 members own 2 partitions each again", [c, a2, b2])
        consumed_all("after the return")

        for m in (c, a2, b2):
            m.leave()
        committed_all("after every member left")
        produced += _produce_tagged(topic, "while-empty")
        d = start("d")
        settle("a restarted member owns every partition", [d])
        consumed_all("by the restarted member")
        d.leave()
        committed_all("at the end")
    except Exception:
        for m in started:
            m.kill_if_running()
            print(f"--- member {m.name} stderr:\n{m.stderr()}", file=sys.stderr)
        raise
    finally:
        for m in started:
            m.kill_if_running()

    with ledger.lock:
        unexpected = set(ledger.by) - set(produced)
        assert not unexpected, f"consumed records never produced: {sorted(unexpected)[:10]}"
        for v in produced:
            by = ledger.by.get(v, [])
            assert by, f"record {v} skipped"
            assert len(by) == 1 or (len(by) == 2 and by[0] == "b" and by[1] != "b"), \
                f"record {v} consumed by {by}: a committed record was consumed again"


if __name__ == "__main__" and len(sys.argv) == 5 and sys.argv[1] == "member":
    _member_main(*sys.argv[2:])
if __name__ == "__main__" and len(sys.argv) == 5 and sys.argv[1] == "kafka-python-member":
    _kafka_python_member_main(*sys.argv[2:])
