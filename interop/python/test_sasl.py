"""confluent-kafka, kafka-python and kcat (librdkafka) authenticating with SASL PLAIN, SCRAM-SHA-256,
SCRAM-SHA-512 and OAUTHBEARER (an unsecured JWT, which Kafka's default validator accepts: librdkafka's
own, and one this module makes for kafka-python) over SASL_PLAINTEXT and SASL_SSL, against a Karst this module starts itself with
both listeners (a PEM key store made with openssl). PLAIN users come from the listeners' JAAS
configs; the SCRAM users are created by confluent-kafka's AlterUserScramCredentials. A wrong
password is refused with the client seeing an authentication failure. KARST_BIN names the binary;
else it is built from ../../cmd/karst."""
import base64
import json
import os
import re
import shutil
import subprocess
import tempfile
import time

import kafka.errors
import pytest
from confluent_kafka import Consumer, KafkaError, KafkaException, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, ScramCredentialInfo, ScramMechanism, UserScramCredentialUpsertion
from kafka import KafkaConsumer, KafkaProducer
from kafka import TopicPartition as KTopicPartition
from kafka.net.sasl.oauth import AbstractTokenProvider

from karst_process import free_port, karst, make_ca, pem_keystore, signed

PROTOCOLS = ["SASL_PLAINTEXT", "SASL_SSL"]
MECHANISMS = ["PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512"]
# The mechanisms clients log in with; a wrong password is tried for MECHANISMS only.
LOGINS = MECHANISMS + ["OAUTHBEARER"]
# Each mechanism its own user, so a test passes only with the credential of that mechanism.
USERS = {"PLAIN": ("alice", "alice-secret"), "SCRAM-SHA-256": ("bob", "bob-256-secret"),
         "SCRAM-SHA-512": ("carol", "carol-512-secret"), "OAUTHBEARER": ("olivia", "")}
PLAIN_JAAS = ('org.apache.kafka.common.security.plain.PlainLoginModule required '
              'user_admin="admin-secret" user_alice="alice-secret";')


@pytest.fixture(scope="module")
def sasl_broker():
    d = tempfile.mkdtemp(prefix="interop-python-sasl.")
    make_ca(d, "interop-python-sasl-ca")
    keystore = pem_keystore(d, *signed(d, "broker", "/CN=broker", "subjectAltName=IP:127.0.0.1"))
    ports = {p: free_port() for p in PROTOCOLS}
    props = (f"listeners=SASL_PLAINTEXT://127.0.0.1:{ports['SASL_PLAINTEXT']},SASL_SSL://127.0.0.1:{ports['SASL_SSL']}\n"
             "sasl.enabled.mechanisms=" + ",".join(LOGINS) + "\n"
             f"listener.name.sasl_plaintext.plain.sasl.jaas.config={PLAIN_JAAS}\n"
             f"listener.name.sasl_ssl.plain.sasl.jaas.config={PLAIN_JAAS}\n"
             f"ssl.keystore.type=PEM\nssl.keystore.location={keystore}\n")
    with karst(d, props, ports["SASL_SSL"]):
        b = {"ports": ports, "ca": os.path.join(d, "ca.pem"), "log": os.path.join(d, "karst.log")}
        admin = AdminClient(_librdkafka(b, "SASL_PLAINTEXT", "PLAIN", "admin", "admin-secret"))
        upserts = [UserScramCredentialUpsertion(USERS[m][0], ScramCredentialInfo(getattr(ScramMechanism, m.replace("-", "_")), 8192),
                                                USERS[m][1].encode()) for m in MECHANISMS[1:]]
        for f in admin.alter_user_scram_credentials(upserts).values():
            f.result(timeout=30)
        yield b


class _UnsecuredToken(AbstractTokenProvider):
    """An unsecured JWS (alg none) for a principal, valid for an hour."""
    def __init__(self, sub):
        super().__init__()
        self.sub = sub

    def token(self):
        def part(v):
            return base64.urlsafe_b64encode(json.dumps(v).encode()).rstrip(b"=").decode()
        now = int(time.time())
        return f"{part({'alg': 'none'})}.{part({'sub': self.sub, 'iat': now, 'exp': now + 3600})}."


def _librdkafka(b, protocol, mechanism, user, password):
    conf = {"bootstrap.servers": f"127.0.0.1:{b['ports'][protocol]}", "security.protocol": protocol,
            "sasl.mechanisms": mechanism, "sasl.username": user, "sasl.password": password}
    if mechanism == "OAUTHBEARER":
        del conf["sasl.username"], conf["sasl.password"]
        conf.update({"enable.sasl.oauthbearer.unsecure.jwt": "true", "sasl.oauthbearer.config": f"principal={user}"})
    if protocol == "SASL_SSL":
        conf["ssl.ca.location"] = b["ca"]
    return conf


def _kafka_python(b, protocol, mechanism, user, password):
    conf = {"bootstrap_servers": f"127.0.0.1:{b['ports'][protocol]}", "security_protocol": protocol,
            "sasl_mechanism": mechanism, "sasl_plain_username": user, "sasl_plain_password": password,
            "request_timeout_ms": 30000}
    if mechanism == "OAUTHBEARER":
        del conf["sasl_plain_username"], conf["sasl_plain_password"]
        conf["sasl_oauth_token_provider"] = _UnsecuredToken(user)
    if protocol == "SASL_SSL":
        conf["ssl_cafile"] = b["ca"]
    return conf


def _kcat(b, protocol, mechanism, user, password, *args, stdin=None):
    conf = _librdkafka(b, protocol, mechanism, user, password)
    cmd = ["kcat", "-b", conf.pop("bootstrap.servers")]
    for k, v in conf.items():
        cmd += ["-X", f"{k}={v}"]
    return subprocess.run(cmd + list(args), input=stdin, capture_output=True, text=True, timeout=60)


def _kcat_librdkafka():
    """The version of the librdkafka kcat was built with, from `kcat -V`."""
    out = subprocess.run(["kcat", "-V"], capture_output=True, text=True, timeout=30).stdout
    found = re.search(r"librdkafka (\d+)\.(\d+)\.(\d+)", out)
    assert found, out
    return tuple(int(x) for x in found.groups())


both = pytest.mark.parametrize("protocol", PROTOCOLS)
every = pytest.mark.parametrize("mechanism", MECHANISMS)
every_login = pytest.mark.parametrize("mechanism", LOGINS)


@both
@every_login
def test_confluent_kafka(sasl_broker, protocol, mechanism):
    conf = _librdkafka(sasl_broker, protocol, mechanism, *USERS[mechanism])
    topic = f"py-sasl-confluent-{protocol}-{mechanism}-{time.time_ns()}"
    p = Producer({**conf, "acks": "all"})
    errors = []
    for i in range(3):
        p.produce(topic, value=f"v{i}".encode(), on_delivery=lambda err, msg: err and errors.append(err))
    assert p.flush(30) == 0 and not errors
    c = Consumer({**conf, "group.id": "unused", "enable.auto.commit": False})
    c.assign([TopicPartition(topic, 0, 0)])
    got = []
    deadline = time.monotonic() + 30
    while len(got) < 3 and time.monotonic() < deadline:
        m = c.poll(1)
        if m is not None and m.error() is None:
            got.append(m.value().decode())
    c.close()
    assert got == [f"v{i}" for i in range(3)]


@both
@every_login
def test_kafka_python(sasl_broker, protocol, mechanism):
    conf = _kafka_python(sasl_broker, protocol, mechanism, *USERS[mechanism])
    topic = f"py-sasl-kafkapy-{protocol}-{mechanism}-{time.time_ns()}"
    p = KafkaProducer(acks="all", **conf)
    for i in range(3):
        p.send(topic, f"k{i}".encode()).get(timeout=30)
    p.close()
    c = KafkaConsumer(group_id=None, enable_auto_commit=False, **conf)
    c.assign([KTopicPartition(topic, 0)])
    c.seek_to_beginning()
    got = []
    deadline = time.monotonic() + 30
    while len(got) < 3 and time.monotonic() < deadline:
        for records in c.poll(timeout_ms=1000).values():
            got.extend(r.value.decode() for r in records)
    c.close()
    assert got == [f"k{i}" for i in range(3)]


@pytest.mark.skipif(shutil.which("kcat") is None, reason="kcat is installed by interop/run")
@both
@every_login
def test_kcat(sasl_broker, protocol, mechanism):
    topic = f"py-sasl-kcat-{protocol}-{mechanism}-{time.time_ns()}"
    creds = (sasl_broker, protocol, mechanism, *USERS[mechanism])
    produced = _kcat(*creds, "-P", "-t", topic, stdin="a\nb\nc\n")
    if mechanism.startswith("SCRAM") and _kcat_librdkafka() < (2, 6, 1):
        # librdkafka before 2.6.1 sends the client nonce twice in its client-final message
        # (librdkafka#4895); Kafka 4.4.0's ScramSaslServer compares the nonce with equals and
        # refuses it, and so does Karst, with Kafka's message.
        assert produced.returncode != 0
        assert f"invalid credentials with SASL mechanism {mechanism}" in produced.stderr, produced.stderr
        return
    assert produced.returncode == 0, produced.stderr
    consumed = _kcat(*creds, "-C", "-t", topic, "-o", "beginning", "-e", "-c", "3", "-q")
    assert consumed.returncode == 0, consumed.stderr
    assert consumed.stdout.split() == ["a", "b", "c"]


@both
@every
def test_wrong_password_is_refused(sasl_broker, protocol, mechanism):
    user = USERS[mechanism][0]
    # librdkafka reports the refusal to error_cb, served by poll.
    seen = []
    p = Producer({**_librdkafka(sasl_broker, protocol, mechanism, user, "not-the-password"), "error_cb": seen.append})
    deadline = time.monotonic() + 30
    while not any(e.code() == KafkaError._AUTHENTICATION for e in seen) and time.monotonic() < deadline:
        p.poll(0.5)
    assert any(e.code() == KafkaError._AUTHENTICATION for e in seen), seen
    listed = _kcat(sasl_broker, protocol, mechanism, user, "not-the-password", "-L", "-m", "15")
    assert listed.returncode != 0 and "Authentication failed" in listed.stderr, listed.stderr
    # kafka-python 3.0.12 reports the connection closed after the refusal rather than the
    # SaslAuthenticate error it was sent, so its bootstrap times out; the broker's log shows that
    # it was this client's SASL exchange that was refused.
    with pytest.raises((kafka.errors.SaslAuthenticationFailedError, kafka.errors.KafkaTimeoutError)):
        KafkaProducer(max_block_ms=5000, **_kafka_python(sasl_broker, protocol, mechanism, user, "not-the-password"))
    with open(sasl_broker["log"]) as f:
        refusals = [line for line in f if "SASL authentication failed" in line and "client_software_name=kafka-python" in line
                    and f"listener={protocol}" in line and f"mechanism={mechanism}" in line]
    assert refusals
