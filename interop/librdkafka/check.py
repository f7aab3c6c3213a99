"""librdkafka generations: the checks one confluent-kafka version runs against a broker.

    python check.py check BOOTSTRAP VERSION RUN_ID     ends "generation VERSION: N passed, M failed"
    python check.py setup BOOTSTRAP RUN_ID VERSION...  create each version's produce and group topics
    python check.py teardown BOOTSTRAP RUN_ID VERSION...

One source serves every version from 1.9 on; each runs in its own venv (see install.sh), so
the API a version lacks is detected, not assumed: commit metadata came with 2.0.2 (TopicPartition
metadata), the consumer-group admin calls with 2.0.2 and describe_cluster / describe_topics with
2.3.0. Where a version lacks a call, the older way to the same answer is used (list_groups,
list_topics) and an "info:" line says so. run.sh makes and removes the topics with the newest
version, so that a version whose admin calls fail still shows how its producer and consumer fare.
"""

import sys
import time
import uuid

import confluent_kafka
from confluent_kafka import Consumer, KafkaException, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, ConfigResource, ConfigSource, NewTopic

PARTITIONS = 2
PER_PARTITION = 10
CALL_TIMEOUT = 10.0
POLL_DEADLINE = 30.0
RETENTION_MS = "3600000"


def common(bootstrap):
    return {
        "bootstrap.servers": bootstrap,
        "socket.timeout.ms": 8000,
        "reconnect.backoff.max.ms": 500,
        "broker.address.family": "v4",
    }


def key_value_at(partition, offset):
    i = offset * PARTITIONS + partition
    return "k%d=v%d" % (i, i)


def produce_topic(run_id, version):
    return "librdkafka-produce-%s-%s" % (version, run_id)


def group_topic(run_id, version):
    return "librdkafka-group-%s-%s" % (version, run_id)


def commit_metadata_supported():
    try:
        TopicPartition("t", 0, 0, metadata="m")
        return True
    except TypeError:
        return False


def produce(bootstrap, topic):
    """Record i goes to partition i % PARTITIONS with an idempotent acks=all producer; every
    acknowledged partition and offset is checked. The first record is acknowledged before the
    others are sent, so a producer that cannot reach the broker fails once."""
    conf = common(bootstrap)
    conf.update({"acks": "all", "enable.idempotence": True, "linger.ms": 5, "message.timeout.ms": 15000})
    producer = Producer(conf)
    acks = {}

    def delivered(err, msg, i):
        acks[i] = err if err is not None else (msg.partition(), msg.offset())

    def send(i):
        producer.produce(topic, key="k%d" % i, value="v%d" % i, partition=i % PARTITIONS,
                         on_delivery=lambda err, msg: delivered(err, msg, i))

    total = PER_PARTITION * PARTITIONS
    send(0)
    producer.flush(CALL_TIMEOUT)
    for i in range(1, total):
        send(i)
    remaining = producer.flush(CALL_TIMEOUT)
    if remaining:
        raise AssertionError("%d records not acknowledged in %.0f s" % (remaining, CALL_TIMEOUT))
    for i in range(total):
        want = (i % PARTITIONS, i // PARTITIONS)
        if acks.get(i) != want:
            raise AssertionError("record %d acknowledged %r, expected partition/offset %r" % (i, acks.get(i), want))


class GroupRoundTrip:
    """A first member reads every test record and commits a different offset (with metadata where
    the client has it) per partition; a fresh member with auto.offset.reset=error must start
    exactly at those offsets, and committed() reads the commits back."""

    def __init__(self, bootstrap, topic, group):
        self.bootstrap = bootstrap
        self.topic = topic
        self.group = group
        self.with_metadata = commit_metadata_supported()
        self.commits = {p: (4 + 2 * p, "generations-%d" % p) for p in range(PARTITIONS)}

    def partitions(self):
        if self.with_metadata:
            return [TopicPartition(self.topic, p, o, metadata=m) for p, (o, m) in self.commits.items()]
        return [TopicPartition(self.topic, p, o) for p, (o, _) in self.commits.items()]

    def consume_and_commit(self):
        consumer = self.member("earliest")
        try:
            self.read(consumer, records_from(lambda p: 0))
            assigned = sorted(tp.partition for tp in consumer.assignment())
            if assigned != list(range(PARTITIONS)):
                raise AssertionError("assignment %r" % assigned)
            for tp in consumer.commit(offsets=self.partitions(), asynchronous=False):
                if tp.error is not None:
                    raise AssertionError("commit of partition %d: %s" % (tp.partition, tp.error))
        finally:
            consumer.close()

    def resume_from_commits(self):
        consumer = self.member("error")
        try:
            self.read(consumer, records_from(lambda p: self.commits[p][0]))
            fetched = consumer.committed([TopicPartition(self.topic, p) for p in range(PARTITIONS)], timeout=CALL_TIMEOUT)
            for tp in fetched:
                offset, metadata = self.commits[tp.partition]
                got = (tp.offset, tp.metadata if self.with_metadata else None)
                want = (offset, metadata if self.with_metadata else None)
                if tp.error is not None or got != want:
                    raise AssertionError("committed() partition %d: %r %s, expected %r" % (tp.partition, got, tp.error, want))
        finally:
            consumer.close()

    def member(self, auto_offset_reset):
        conf = common(self.bootstrap)
        conf.update({
            "group.id": self.group,
            "enable.auto.commit": False,
            "auto.offset.reset": auto_offset_reset,
            "session.timeout.ms": 10000,
            "heartbeat.interval.ms": 1000,
        })
        consumer = Consumer(conf)
        consumer.subscribe([self.topic])
        return consumer

    def read(self, consumer, expected):
        """Polls until every expected record arrived, failing on any other record, a key and
        value that are not the test record's, a consumer error, or POLL_DEADLINE."""
        read = set()
        deadline = time.monotonic() + POLL_DEADLINE
        while read != expected:
            if time.monotonic() > deadline:
                raise AssertionError("read %d of %d records in %.0f s" % (len(read), len(expected), POLL_DEADLINE))
            msg = consumer.poll(0.5)
            if msg is None:
                continue
            if msg.error() is not None:
                raise AssertionError("consumer error after %d records: %s" % (len(read), msg.error()))
            at = (msg.partition(), msg.offset())
            if at not in expected:
                raise AssertionError("unexpected record at %d/%d" % at)
            kv = "%s=%s" % (msg.key().decode(), msg.value().decode())
            if kv != key_value_at(*at):
                raise AssertionError("record at %d/%d is %s" % (at[0], at[1], kv))
            read.add(at)


def records_from(first_offset):
    return {(p, o) for p in range(PARTITIONS) for o in range(first_offset(p), PER_PARTITION)}


def info(message):
    print("info: " + message)


class TopicAdmin:
    """The AdminClient checks: cluster, the group and its offsets, a topic's lifecycle and configs."""

    def __init__(self, bootstrap, topic):
        self.bootstrap = bootstrap
        self.admin = AdminClient(common(bootstrap))
        self.topic = topic

    def describe_cluster(self):
        if hasattr(self.admin, "describe_cluster"):
            cluster = self.admin.describe_cluster(request_timeout=CALL_TIMEOUT).result(CALL_TIMEOUT)
            nodes = ["%s:%d" % (n.host, n.port) for n in cluster.nodes]
            controller, cluster_id = cluster.controller, cluster.cluster_id
            controller_id = controller.id if controller is not None else None
            node_ids = [n.id for n in cluster.nodes]
        else:
            info("no describe_cluster before 2.3.0: the cluster from list_topics (Metadata)")
            md = self.admin.list_topics(timeout=CALL_TIMEOUT)
            nodes = ["%s:%d" % (b.host, b.port) for b in md.brokers.values()]
            controller_id, cluster_id, node_ids = md.controller_id, md.cluster_id, list(md.brokers)
        if self.bootstrap not in nodes:
            raise AssertionError("no node at %s: %r" % (self.bootstrap, nodes))
        if not cluster_id:
            raise AssertionError("cluster id %r" % cluster_id)
        if controller_id not in node_ids:
            raise AssertionError("controller %r not among %r" % (controller_id, node_ids))

    def list_consumer_group(self, group):
        if hasattr(self.admin, "list_consumer_groups"):
            result = self.admin.list_consumer_groups(request_timeout=CALL_TIMEOUT).result(CALL_TIMEOUT)
            listed = [g for g in result.valid if g.group_id == group]
            if len(listed) != 1:
                raise AssertionError("%s not listed among %d groups (errors %r)" % (group, len(result.valid), result.errors))
            if listed[0].is_simple_consumer_group:
                raise AssertionError("%s listed as a simple group" % group)
            # Both members have left, so the group is Empty.
            if listed[0].state is not None and listed[0].state.name != "EMPTY":
                raise AssertionError("%s state %s" % (group, listed[0].state))
        else:
            info("no list_consumer_groups before 2.0.2: list_groups (ListGroups)")
            listed = [g for g in self.admin.list_groups(timeout=CALL_TIMEOUT) if g.id == group]
            if len(listed) != 1 or listed[0].error is not None:
                raise AssertionError("%s not listed: %r" % (group, listed))
            if listed[0].protocol_type != "consumer":
                raise AssertionError("%s protocol type %r" % (group, listed[0].protocol_type))

    def describe_consumer_group(self, group):
        if hasattr(self.admin, "describe_consumer_groups"):
            futures = self.admin.describe_consumer_groups([group], request_timeout=CALL_TIMEOUT)
            d = futures[group].result(CALL_TIMEOUT)
            state, members, simple = d.state.name, len(d.members), d.is_simple_consumer_group
            if d.coordinator is None or d.coordinator.id < 0:
                raise AssertionError("coordinator %r" % d.coordinator)
        else:
            info("no describe_consumer_groups before 2.0.2: list_groups(group) (DescribeGroups)")
            described = self.admin.list_groups(group, timeout=CALL_TIMEOUT)
            if len(described) != 1 or described[0].error is not None:
                raise AssertionError("described %r" % described)
            d = described[0]
            state, members, simple = d.state.upper(), len(d.members), d.protocol_type != "consumer"
        if state != "EMPTY" or members != 0 or simple:
            raise AssertionError("%s: state %s, %d members, simple %s" % (group, state, members, simple))

    def list_group_offsets(self, round_trip):
        from confluent_kafka import ConsumerGroupTopicPartitions

        request = ConsumerGroupTopicPartitions(round_trip.group)
        futures = self.admin.list_consumer_group_offsets([request], request_timeout=CALL_TIMEOUT)
        listed = futures[round_trip.group].result(CALL_TIMEOUT)
        got = {tp.partition: (tp.offset, tp.metadata) for tp in listed.topic_partitions if tp.topic == round_trip.topic}
        if got != round_trip.commits or len(listed.topic_partitions) != PARTITIONS:
            raise AssertionError("listed %r, committed %r" % (got, round_trip.commits))

    def create_topic(self):
        topic = NewTopic(self.topic, num_partitions=PARTITIONS, replication_factor=1, config={"retention.ms": RETENTION_MS})
        self.admin.create_topics([topic], request_timeout=CALL_TIMEOUT)[self.topic].result(CALL_TIMEOUT)
        self.wait_listed(True)

    def describe_topic(self):
        if hasattr(self.admin, "describe_topics"):
            from confluent_kafka import TopicCollection

            d = self.admin.describe_topics(TopicCollection([self.topic]), request_timeout=CALL_TIMEOUT)[self.topic].result(CALL_TIMEOUT)
            parts = [(p.id, p.leader.id if p.leader else -1, len(p.replicas), len(p.isr)) for p in d.partitions]
        else:
            info("no describe_topics before 2.3.0: list_topics(topic) (Metadata)")
            t = self.admin.list_topics(self.topic, timeout=CALL_TIMEOUT).topics[self.topic]
            if t.error is not None:
                raise AssertionError("error %s" % t.error)
            parts = [(p.id, p.leader, len(p.replicas), len(p.isrs)) for p in t.partitions.values()]
        if sorted(p[0] for p in parts) != list(range(PARTITIONS)):
            raise AssertionError("partitions %r" % parts)
        for pid, leader, replicas, isr in parts:
            if leader < 0 or replicas != 1 or isr != 1:
                raise AssertionError("partition %d: leader %d, %d replicas, %d in sync" % (pid, leader, replicas, isr))

    def describe_configs(self):
        resource = ConfigResource("topic", self.topic)
        entries = self.admin.describe_configs([resource], request_timeout=CALL_TIMEOUT)[resource].result(CALL_TIMEOUT)
        retention = entries.get("retention.ms")
        if retention is None or retention.value != RETENTION_MS or retention.source != ConfigSource.DYNAMIC_TOPIC_CONFIG.value:
            raise AssertionError("retention.ms: %r source %r" % (retention, retention and retention.source))
        cleanup = entries.get("cleanup.policy")
        if cleanup is None or cleanup.value != "delete" or cleanup.source == ConfigSource.DYNAMIC_TOPIC_CONFIG.value:
            raise AssertionError("cleanup.policy: %r source %r" % (cleanup, cleanup and cleanup.source))

    def delete_topic(self):
        self.admin.delete_topics([self.topic], request_timeout=CALL_TIMEOUT)[self.topic].result(CALL_TIMEOUT)
        self.wait_listed(False)

    def wait_listed(self, listed):
        """A created or deleted topic reaches the broker's metadata after the controller answered."""
        deadline = time.monotonic() + CALL_TIMEOUT
        while (self.topic in self.admin.list_topics(timeout=CALL_TIMEOUT).topics) != listed:
            if time.monotonic() > deadline:
                raise AssertionError("%s listed: %s after %.0f s" % (self.topic, not listed, CALL_TIMEOUT))
            time.sleep(0.1)


class Checks:
    """Prints "PASS name (ms)" or "FAIL name (ms): reason" per check, which run.sh reads."""

    def __init__(self):
        self.passed = 0
        self.failed = 0

    def run(self, name, body):
        start = time.monotonic()
        try:
            body()
        except Exception as e:  # every failure of a check is reported, whatever raised it
            self.failed += 1
            print("FAIL %s (%d ms): %s: %s" % (name, (time.monotonic() - start) * 1000, type(e).__name__, str(e).replace("\n", " ")))
            return False
        self.passed += 1
        print("PASS %s (%d ms)" % (name, (time.monotonic() - start) * 1000))
        return True

    def not_run(self, name, because):
        self.failed += 1
        print("FAIL %s (0 ms): not run, %s" % (name, because))


def version_string(reported):
    """version() and libversion() answer (string, int) up to 2.x and a string in newer releases."""
    return reported[0] if isinstance(reported, tuple) else reported


def check_version(bootstrap, version, run_id):
    checks = Checks()

    def client_version():
        loaded, librdkafka = version_string(confluent_kafka.version()), version_string(confluent_kafka.libversion())
        if loaded != version:
            raise AssertionError("venv has confluent-kafka %s" % loaded)
        print("info: confluent-kafka %s, librdkafka %s" % (loaded, librdkafka))

    checks.run("client_version", client_version)
    checks.run("produce", lambda: produce(bootstrap, produce_topic(run_id, version)))
    group = "librdkafka-group-%s-%s" % (version, uuid.uuid4().hex[:8])
    round_trip = GroupRoundTrip(bootstrap, group_topic(run_id, version), group)
    if not round_trip.with_metadata:
        info("no commit metadata before 2.0.2 (TopicPartition has none): offsets only")
    consumed = checks.run("group_consume_commit", round_trip.consume_and_commit)
    if consumed:
        checks.run("group_resume_from_commits", round_trip.resume_from_commits)
    else:
        checks.not_run("group_resume_from_commits", "no commits")

    admin = TopicAdmin(bootstrap, "librdkafka-admin-%s-%s" % (version, run_id))
    checks.run("admin_describe_cluster", admin.describe_cluster)
    group_checks = [("admin_list_consumer_groups", lambda: admin.list_consumer_group(group)),
                    ("admin_describe_consumer_group", lambda: admin.describe_consumer_group(group))]
    if hasattr(admin.admin, "list_consumer_group_offsets"):
        group_checks.append(("admin_list_group_offsets", lambda: admin.list_group_offsets(round_trip)))
    else:
        info("no list_consumer_group_offsets before 2.0.2: the commits are read back by committed() only")
    for name, body in group_checks:
        if consumed:
            checks.run(name, body)
        else:
            checks.not_run(name, "no group")
    topic_checks = [("admin_describe_topic", admin.describe_topic), ("admin_describe_configs", admin.describe_configs),
                    ("admin_delete_topic", admin.delete_topic)]
    if checks.run("admin_create_topic", admin.create_topic):
        for name, body in topic_checks:
            checks.run(name, body)
    else:
        for name, _ in topic_checks:
            checks.not_run(name, "no topic")
    print("generation %s: %d passed, %d failed" % (version, checks.passed, checks.failed))
    return 0 if checks.failed == 0 else 1


def data_topics(create, bootstrap, run_id, versions):
    admin = AdminClient(common(bootstrap))
    names = [name for v in versions for name in (produce_topic(run_id, v), group_topic(run_id, v))]
    if create:
        futures = admin.create_topics([NewTopic(n, num_partitions=PARTITIONS, replication_factor=1) for n in names],
                                      request_timeout=CALL_TIMEOUT)
    else:
        futures = admin.delete_topics(names, request_timeout=CALL_TIMEOUT)
    for name, future in futures.items():
        try:
            future.result(CALL_TIMEOUT)
        except KafkaException as e:
            raise SystemExit("%s: %s" % (name, e))
    if create:
        for v in versions:
            produce(bootstrap, group_topic(run_id, v))


def main(argv):
    if len(argv) >= 4 and argv[0] == "check":
        return check_version(argv[1], argv[2], argv[3])
    if len(argv) >= 4 and argv[0] in ("setup", "teardown"):
        data_topics(argv[0] == "setup", argv[1], argv[2], argv[3:])
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
