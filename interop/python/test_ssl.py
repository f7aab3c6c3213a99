"""confluent-kafka, kafka-python and kcat over SSL against a Karst this module starts itself (an SSL
listener needs its own broker): certificates made with openssl, a PEM key store. The SSL listener
requires client certificates (ssl.client.auth=required); a second one, OPEN, takes the same stores
with listener.name.open.ssl.client.auth=requested, so a client without a certificate is served
there and refused on the first. KARST_BIN names the binary; else it is built from
../../cmd/karst. It tests Karst whatever broker KARST_BOOTSTRAP names, since that one has no SSL
listener."""
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
    port, open_port = free_port(), free_port()
    props = (f"listeners=SSL://127.0.0.1:{port},OPEN://127.0.0.1:{open_port}\n"
             "listener.security.protocol.map=SSL:SSL,OPEN:SSL\n"
             "listener.name.open.ssl.client.auth=requested\n"
             f"ssl.keystore.type=PEM\nssl.keystore.location={keystore}\n"
             f"ssl.truststore.type=PEM\nssl.truststore.location={d}/ca.pem\n"
             "ssl.client.auth=required\n")
    with karst(d, props, port):
        yield {"bootstrap": f"127.0.0.1:{port}", "open": f"127.0.0.1:{open_port}",
               "ca": os.path.join(d, "ca.pem"), "cert": ccrt, "key": ckey}


def _librdkafka(b, with_cert=True):
    """Without a certificate the client goes to the OPEN listener; with one, to the SSL listener."""
    conf = {"bootstrap.servers": b["bootstrap"] if with_cert else b["open"], "security.protocol": "SSL",
            "ssl.ca.location": b["ca"]}
    if with_cert:
        conf.update({"ssl.certificate.location": b["cert"], "ssl.key.location": b["key"]})
    return conf


def _confluent_round_trip(conf, topic):
    p = Producer({**conf, "acks": "all"})
    errors = []
    for i in range(5):
        p.produce(topic, value=f"v{i}".encode(), on_delivery=lambda err, msg: err and errors.append(err))
    assert p.flush(30) == 0 and not errors
    c = Consumer({**conf, "group.id": "unused", "enable.auto.commit": False})
    c.assign([TopicPartition(topic, 0, 0)])
    got = []
    deadline = time.monotonic() + 30
    while len(got) < 5 and time.monotonic() < deadline:
        m = c.poll(1)
        if m is not None and m.error() is None:
            got.append(m.value().decode())
    c.close()
    assert got == [f"v{i}" for i in range(5)]


def test_confluent_kafka_over_ssl(ssl_broker):
    _confluent_round_trip(_librdkafka(ssl_broker), f"py-ssl-confluent-{time.time_ns()}")


def test_confluent_kafka_without_certificate_where_requested(ssl_broker):
    _confluent_round_trip(_librdkafka(ssl_broker, with_cert=False), f"py-ssl-confluent-nocert-{time.time_ns()}")


def _kafka_python_round_trip(b, topic, with_cert=True):
    tls = {"security_protocol": "SSL", "ssl_cafile": b["ca"], "request_timeout_ms": 30000}
    if with_cert:
        tls.update({"ssl_certfile": b["cert"], "ssl_keyfile": b["key"]})
    bootstrap = b["bootstrap"] if with_cert else b["open"]
    p = KafkaProducer(bootstrap_servers=bootstrap, acks="all", **tls)
    for i in range(5):
        p.send(topic, f"k{i}".encode()).get(timeout=30)
    p.close()
    c = KafkaConsumer(bootstrap_servers=bootstrap, group_id=None, enable_auto_commit=False, **tls)
    c.assign([KTopicPartition(topic, 0)])
    c.seek_to_beginning()
    got = []
    deadline = time.monotonic() + 30
    while len(got) < 5 and time.monotonic() < deadline:
        for records in c.poll(timeout_ms=1000).values():
            got.extend(r.value.decode() for r in records)
    c.close()
    assert got == [f"k{i}" for i in range(5)]


def test_kafka_python_over_ssl(ssl_broker):
    _kafka_python_round_trip(ssl_broker, f"py-ssl-kafkapy-{time.time_ns()}")


def test_kafka_python_without_certificate_where_requested(ssl_broker):
    _kafka_python_round_trip(ssl_broker, f"py-ssl-kafkapy-nocert-{time.time_ns()}", with_cert=False)


def test_client_without_certificate_is_refused(ssl_broker):
    admin = AdminClient({**_librdkafka(ssl_broker, with_cert=False), "bootstrap.servers": ssl_broker["bootstrap"]})
    with pytest.raises(KafkaException):
        admin.list_topics(timeout=10)


def _kcat(b, *args, with_cert=True, bootstrap=None, stdin=None):
    conf = _librdkafka(b, with_cert)
    cmd = ["kcat", "-b", bootstrap or conf["bootstrap.servers"]]
    for k, v in conf.items():
        if k != "bootstrap.servers":
            cmd += ["-X", f"{k}={v}"]
    return subprocess.run(cmd + list(args), input=stdin, capture_output=True, text=True, timeout=60)


def _kcat_round_trip(b, topic, with_cert=True):
    produced = _kcat(b, "-P", "-t", topic, stdin="a\nb\nc\n", with_cert=with_cert)
    assert produced.returncode == 0, produced.stderr
    consumed = _kcat(b, "-C", "-t", topic, "-o", "beginning", "-e", "-c", "3", "-q", with_cert=with_cert)
    assert consumed.returncode == 0, consumed.stderr
    assert consumed.stdout.split() == ["a", "b", "c"]


def test_kcat_over_ssl(ssl_broker):
    _kcat_round_trip(ssl_broker, f"py-ssl-kcat-{time.time_ns()}")


def test_kcat_without_certificate_where_requested(ssl_broker):
    _kcat_round_trip(ssl_broker, f"py-ssl-kcat-nocert-{time.time_ns()}", with_cert=False)


def test_kcat_without_certificate_is_refused(ssl_broker):
    listed = _kcat(ssl_broker, "-L", "-m", "10", with_cert=False, bootstrap=ssl_broker["bootstrap"])
    assert listed.returncode != 0, listed.stdout
    # librdkafka names the TLS alert the broker sent for the missing certificate.
    assert "SSL handshake failed" in listed.stderr or "certificate required" in listed.stderr, listed.stderr
