"""confluent-kafka and kafka-python over SSL against a Karst this module starts itself (an SSL
listener needs its own broker): certificates made with openssl, a PEM key store, client
certificates required. KARST_BIN names the binary; else it is built from ../../cmd/karst. It
tests Karst whatever broker KARST_BOOTSTRAP names, since that one has no SSL listener."""
import os
import socket
import subprocess
import tempfile
import time

import pytest
from confluent_kafka import Consumer, KafkaException, Producer, TopicPartition
from confluent_kafka.admin import AdminClient
from kafka import KafkaConsumer, KafkaProducer
from kafka import TopicPartition as KTopicPartition

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def _openssl(*args):
    subprocess.run(["openssl", *args], check=True, capture_output=True, timeout=60)


def _signed(d, name, subject, ext=None):
    key, csr, crt = (os.path.join(d, f"{name}.{x}") for x in ("key", "csr", "pem"))
    _openssl("req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", key,
             "-out", csr, "-subj", subject)
    extra = []
    if ext:
        path = os.path.join(d, f"{name}.ext")
        with open(path, "w") as f:
            f.write(ext + "\n")
        extra = ["-extfile", path]
    _openssl("x509", "-req", "-in", csr, "-CA", os.path.join(d, "ca.pem"), "-CAkey", os.path.join(d, "ca.key"),
             "-CAcreateserial", "-out", crt, "-days", "2", *extra)
    return key, crt


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def ssl_broker():
    d = tempfile.mkdtemp(prefix="interop-python-ssl.")
    _openssl("req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
             "-keyout", os.path.join(d, "ca.key"), "-out", os.path.join(d, "ca.pem"), "-days", "2",
             "-subj", "/CN=interop-python-ca")
    bkey, bcrt = _signed(d, "broker", "/CN=broker", "subjectAltName=IP:127.0.0.1")
    ckey, ccrt = _signed(d, "client", "/O=Karst interop/OU=clients/CN=py-client")
    keystore = os.path.join(d, "keystore.pem")
    with open(keystore, "w") as out:
        for part in (bkey, bcrt):
            with open(part) as f:
                out.write(f.read())
    binary = os.environ.get("KARST_BIN")
    if not binary:
        binary = os.path.join(d, "karst")
        subprocess.run(["go", "build", "-o", binary, "./cmd/karst"], cwd=ROOT, check=True, timeout=600)
    port = _free_port()
    props = os.path.join(d, "server.properties")
    with open(props, "w") as f:
        f.write(f"listeners=SSL://127.0.0.1:{port}\nlog.dirs={d}/data\n"
                f"ssl.keystore.type=PEM\nssl.keystore.location={keystore}\n"
                f"ssl.truststore.type=PEM\nssl.truststore.location={d}/ca.pem\n"
                "ssl.client.auth=required\n")
    log = open(os.path.join(d, "karst.log"), "w")
    proc = subprocess.Popen([binary, "serve", props], stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            break
        except OSError:
            if proc.poll() is not None or time.monotonic() > deadline:
                proc.kill()
                raise RuntimeError("karst did not start; see " + log.name)
            time.sleep(0.2)
    yield {"bootstrap": f"127.0.0.1:{port}", "ca": os.path.join(d, "ca.pem"), "cert": ccrt, "key": ckey}
    proc.terminate()
    proc.wait(timeout=30)
    log.close()


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
