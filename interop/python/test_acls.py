"""confluent-kafka (librdkafka) producers and consumer groups gaining and losing access while they run,
against a Karst this module starts with the StandardAuthorizer: User:ANONYMOUS (a PLAINTEXT
listener) is the super user whose AdminClient creates and deletes the ACLs of alice, who logs in
with SASL/PLAIN on a second listener. Each client is one instance throughout: refused with no ACL,
served once the ACLs are created, refused again once they are deleted. The clients refresh their
metadata every second (topic.metadata.refresh.interval.ms) so that librdkafka, which keeps a topic
it was refused in an error state until its next refresh, notices the change within the test's
deadlines. KARST_BIN names the binary; else it is built from ../../cmd/karst."""
import tempfile
import time

import pytest
from confluent_kafka import Consumer, KafkaError, KafkaException, Producer
from confluent_kafka.admin import (AclBinding, AclBindingFilter, AclOperation, AclPermissionType, AdminClient, NewTopic,
                                   ResourcePatternType, ResourceType)

from karst_process import free_port, karst

STEP = 60  # seconds: a deadline for each awaited condition
AUTHORIZATION_ERRORS = (KafkaError.TOPIC_AUTHORIZATION_FAILED, KafkaError.GROUP_AUTHORIZATION_FAILED)
PLAIN_JAAS = 'org.apache.kafka.common.security.plain.PlainLoginModule required user_alice="alice-secret";'
ALICE_ACLS = AclBindingFilter(ResourceType.ANY, None, ResourcePatternType.ANY, "User:alice", None, AclOperation.ANY,
                              AclPermissionType.ANY)


@pytest.fixture(scope="module")
def acl_broker():
    d = tempfile.mkdtemp(prefix="interop-python-acls.")
    plain, sasl = free_port(), free_port()
    props = (f"listeners=PLAINTEXT://127.0.0.1:{plain},SASL_PLAINTEXT://127.0.0.1:{sasl}\n"
             "sasl.enabled.mechanisms=PLAIN\n"
             f"listener.name.sasl_plaintext.plain.sasl.jaas.config={PLAIN_JAAS}\n"
             "authorizer.class.name=org.apache.kafka.metadata.authorizer.StandardAuthorizer\n"
             "super.users=User:ANONYMOUS\n")
    with karst(d, props, sasl):
        yield {"admin": f"127.0.0.1:{plain}", "sasl": f"127.0.0.1:{sasl}"}


def _alice(b):
    return {"bootstrap.servers": b["sasl"], "security.protocol": "SASL_PLAINTEXT", "sasl.mechanisms": "PLAIN",
            "sasl.username": "alice", "sasl.password": "alice-secret", "topic.metadata.refresh.interval.ms": 1000}


def _until(cond):
    """Polls cond until it returns something true, or None past the step's deadline."""
    deadline = time.monotonic() + STEP
    while time.monotonic() < deadline:
        got = cond()
        if got:
            return got
        time.sleep(0.05)
    return None


def _grant(admin, bindings):
    for f in admin.create_acls(bindings).values():
        f.result(timeout=30)
    assert _until(lambda: len(admin.describe_acls(ALICE_ACLS).result(timeout=30)) == len(bindings))


def _revoke_all(admin):
    for f in admin.delete_acls([ALICE_ACLS]).values():
        f.result(timeout=30)
    assert _until(lambda: not admin.describe_acls(ALICE_ACLS).result(timeout=30))


def _allow(resource_type, name, operation):
    return AclBinding(resource_type, name, ResourcePatternType.LITERAL, "User:alice", "*", operation, AclPermissionType.ALLOW)


def _topic(b, name):
    admin = AdminClient({"bootstrap.servers": b["admin"]})
    for f in admin.create_topics([NewTopic(name, 1, 1)]).values():
        f.result(timeout=30)
    seed = Producer({"bootstrap.servers": b["admin"]})
    seed.produce(name, value=b"seed")
    assert seed.flush(30) == 0
    return admin


def test_producer_gains_and_loses_access(acl_broker):
    topic = f"py-acl-live-{time.time_ns()}"
    admin = _topic(acl_broker, topic)
    p = Producer(_alice(acl_broker))

    def produce():
        """The error code of one record (KafkaError.NO_ERROR when written): its delivery report's, or
        produce()'s own while librdkafka holds the topic in its error state."""
        outcome = []
        try:
            p.produce(topic, value=b"v", on_delivery=lambda err, msg: outcome.append(err.code() if err else KafkaError.NO_ERROR))
        except KafkaException as e:
            return e.args[0].code()
        p.flush(30)
        return outcome[0] if outcome else None

    assert produce() == KafkaError.TOPIC_AUTHORIZATION_FAILED
    _grant(admin, [_allow(ResourceType.TOPIC, topic, AclOperation.WRITE)])
    assert _until(lambda: produce() == KafkaError.NO_ERROR), "not written after WRITE was granted"
    _revoke_all(admin)
    assert _until(lambda: produce() == KafkaError.TOPIC_AUTHORIZATION_FAILED), "written after WRITE was deleted"


@pytest.mark.parametrize("protocol", ["classic", "consumer"])
def test_consumer_group_gains_and_loses_access(acl_broker, protocol):
    topic, group = f"py-acl-live-{protocol}-{time.time_ns()}", f"py-acl-live-{protocol}"
    admin = _topic(acl_broker, topic)
    c = Consumer({**_alice(acl_broker), "group.id": group, "group.protocol": protocol, "auto.offset.reset": "earliest"})
    c.subscribe([topic])

    def poll_error():
        """An authorization error the consumer surfaced, if it did in this poll."""
        m = c.poll(0.5)
        if m is None or m.error() is None:
            return None
        if m.error().code() not in AUTHORIZATION_ERRORS:
            print("consumer error:", m.error())
            return None
        return m.error().code()

    def poll_record():
        m = c.poll(0.5)
        return m is not None and m.error() is None

    assert _until(poll_error) == KafkaError.GROUP_AUTHORIZATION_FAILED
    _grant(admin, [_allow(ResourceType.TOPIC, topic, AclOperation.READ), _allow(ResourceType.GROUP, group, AclOperation.READ)])
    assert _until(poll_record), "no record read after READ on the topic and group were granted"
    _revoke_all(admin)
    lost = _until(poll_error)
    assert lost in AUTHORIZATION_ERRORS, lost
    c.close()
