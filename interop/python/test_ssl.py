"""confluent-kafka, kafka-python and kcat over SSL against a Karst this module starts itself (an SSL
listener needs its own broker): certificates made with openssl, a PEM key store, client
certificates required. KARST_BIN names the binary; else it is built from ../../cmd/karst. It
tests Karst whatever broker KARST_BOOTSTRAP names, since that one has no SSL listener."""
import os
import subprocess
import tempfile
import time

import pytest
from confluent_kafka import Consumer, KafkaException, Producer, TopicPartition
from confluent_kafka.admin import AdminClient
from kafka import KafkaConsumer, KafkaProducer
from kafka import TopicPartition as KTopicPartition

from karst_process import free_port, karst, make_ca, pem_keystore, signed


@pytest.fixture(scope="module")
def ssl_broker():
    d = tempfile.mkdtemp(prefix="interop-python-ssl.")
    make_ca(d, "interop-python-ca")
    bkey, bcrt = signed(d, "broker", "/CN=broker", "subjectAltName=IP:127.0.0.1")
    ckey, ccrt = signed(d, "client", "/O=Karst interop/OU=clients/CN=py-client")
    keystore = pem_keystore(d, bkey, bcrt)
    port = free_port()
    props = (f"listeners=SSL://127.0.0.1:{port}\n"
             f"ssl.keystore.type=PEM\nssl.keystore.location={keystore}\n"
             f"ssl.truststore.type=PEM\nssl.truststore.location={d}/ca.pem\n"
             "ssl.client.auth=required\n")
    with karst(d, props, port):
        yield {"bootstrap": f"127.0.0.1:{port}", "ca": os.path.join(d, "ca.pem"), "cert": ccrt, "key": ckey}


def _librdkafka(b, with_cert=True):
    conf = {"bootstrap.servers": b["bootstrap"], "security.protocol": "SSL", "ssl.ca.location": b["ca"]}
    if with_cert:
        conf.update({"ssl.certificate.location": b["cert"], "ssl.key.location": b["key"]})
    return conf


def test_confluent_kafka_over_ssl(ssl_broker):
    topic = f"py-ssl-confluent-{time.time_ns()}"
    p = Producer({**_librdkafka(ssl_broker), "acks": "all"})
    errors = []
    for i in range(5):
        p.produce(topic, value=f"v{i}".encode(), on_delivery=lambda err, msg: err and errors.append(err))
    assert p.flush(30) == 0 and not errors
    c = Consumer({**_librdkafka(ssl_broker), "group.id": "unused", "enable.auto.commit": False})
    c.assign([TopicPartition(topic, 0, 0)])
    got = []
    deadline = time.monotonic() + 30
    while len(got) < 5 and time.monotonic() < deadline:
        m = c.poll(1)
        if m is not None and m.error() is None:
            got.append(m.value().decode())
    c.close()
    assert got == [f"v{i}" for i in range(5)]


def test_kafka_python_over_ssl(ssl_broker):
    topic = f"py-ssl-kafkapy-{time.time_ns()}"
    tls = {"security_protocol": "SSL", "ssl_cafile": ssl_broker["ca"], "ssl_certfile": ssl_broker["cert"],
           "ssl_keyfile": ssl_broker["key"], "request_timeout_ms": 30000}
    p = KafkaProducer(bootstrap_servers=ssl_broker["bootstrap"], acks="all", **tls)
    for i in range(5):
        p.send(topic, f"k{i}".encode()).get(timeout=30)
    p.close()
    c = KafkaConsumer(bootstrap_servers=ssl_broker["bootstrap"], group_id=None, enable_auto_commit=False, **tls)
    c.assign([KTopicPartition(topic, 0)])
    c.seek_to_beginning()
    got = []
    deadline = time.monotonic() + 30
    while len(got) < 5 and time.monotonic() < deadline:
        for records in c.poll(timeout_ms=1000).values():
            got.extend(r.value.decode() for r in records)
    c.close()
    assert got == [f"k{i}" for i in range(5)]


def test_client_without_certificate_is_refused(ssl_broker):
    admin = AdminClient(_librdkafka(ssl_broker, with_cert=False))
    with pytest.raises(KafkaException):
        admin.list_topics(timeout=10)


def _kcat(b, *args, with_cert=True, stdin=None):
    cmd = ["kcat", "-b", b["bootstrap"]]
    for k, v in _librdkafka(b, with_cert).items():
        if k != "bootstrap.servers":
            cmd += ["-X", f"{k}={v}"]
    return subprocess.run(cmd + list(args), input=stdin, capture_output=True, text=True, timeout=60)


def test_kcat_over_ssl(ssl_broker):
    topic = f"py-ssl-kcat-{time.time_ns()}"
    produced = _kcat(ssl_broker, "-P", "-t", topic, stdin="a\nb\nc\n")
    assert produced.returncode == 0, produced.stderr
    consumed = _kcat(ssl_broker, "-C", "-t", topic, "-o", "beginning", "-e", "-c", "3", "-q")
    assert consumed.returncode == 0, consumed.stderr
    assert consumed.stdout.split() == ["a", "b", "c"]


def test_kcat_without_certificate_is_refused(ssl_broker):
    listed = _kcat(ssl_broker, "-L", "-m", "10", with_cert=False)
    assert listed.returncode != 0, listed.stdout
    # librdkafka names the TLS alert the broker sent for the missing certificate.
    assert "SSL handshake failed" in listed.stderr or "certificate required" in listed.stderr, listed.stderr
