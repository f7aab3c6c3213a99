#!/usr/bin/env bash
# interop/kerberos/run.sh [karst|kafka] — GSSAPI (Kerberos) with real clients against a broker it starts
# (Karst, or the Apache Kafka 4.4.0 reference with the same server.properties, to show that the checks
# hold for Kafka), on a real MIT KDC (Debian's krb5-kdc) it starts in its own realm, directory and port.
#
# The KDC gets a database (kdb5_util create), the broker's principal kafka/localhost and the users
# alice and bob (kadmin.local addprinc -randkey, ktadd into keytabs). Karst serves a SASL_PLAINTEXT
# listener with GSSAPI (Krb5LoginModule with its keytab) and PLAIN, and a SASL_SSL listener with
# GSSAPI only (a PEM key store openssl makes here, its certificate naming localhost), both advertised
# as localhost, the name in its principal. Checks: Kafka's CLI tools (the Java client, Krb5LoginModule
# with alice's keytab, --command-config) create a topic and round-trip records with the console
# producer and consumer, over SASL_PLAINTEXT and over SASL_SSL (trusting the CA by a PEM trust store);
# kcat (Debian's, librdkafka with Cyrus SASL's GSSAPI plugin, kinit from the keytab) lists metadata and
# round-trips records, over SASL_PLAINTEXT and over SASL_SSL; kafka-python (../python's venv, its GSSAPI through the gssapi package on MIT's
# libgssapi_krb5, a ticket from kinit with alice's keytab) creates a topic and round-trips records;
# so does confluent-kafka-python 2.0.2, built from its sdist against Debian's librdkafka 2.0.2 (the
# wheels' bundled librdkafka has no GSSAPI: no Cyrus SASL at build time); sasl.kerberos.principal.
# to.local.rules maps bob to "robert" (Karst's log names the principal; Kafka logs only the full
# name, so this check and the log checks of the round trips are Karst's only); after the broker's key
# is changed in the KDC (a new ktadd, which Karst's keytab does not have), the Java client and kcat
# are refused with Kafka's SASL_AUTHENTICATION_FAILED message.
# Needs java and the jars of ../kafka, krb5-kdc krb5-admin-server krb5-user and
# libsasl2-modules-gssapi-mit (.ci/run installs them), kcat, ../python/.venv (its gssapi package
# builds with libkrb5-dev) and the venv $INTEROP_CACHE/kerberos-confluent (confluent-kafka 2.0.2 on
# librdkafka-dev; interop/run makes both for this suite). Prints PASS/FAIL per check and
# "interop-kerberos: N passed, M failed". KERBEROS_KARST_BIN=path uses that Karst binary.
set -uo pipefail
AGAINST="${1:-karst}"
case "$AGAINST" in karst|kafka) ;; *) echo "usage: $0 [karst|kafka]" >&2; exit 2 ;; esac
HERE="$(cd "$(dirname "$0")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
TOOL="$HERE/../kafka/tool.sh"
source "$HERE/../kafka/common.sh"
ensure_kafka_jars
WORK="$(mktemp -d /tmp/interop-kerberos.XXXXXX)"
KARST_PID=""; KDC_PID=""; KAFKA_PID=""
trap '[ -n "$KARST_PID" ] && kill "$KARST_PID" 2> /dev/null; [ -n "$KAFKA_PID" ] && kill "$KAFKA_PID" 2> /dev/null; [ -n "$KDC_PID" ] && kill "$KDC_PID" 2> /dev/null; [ "${INTEROP_KEEP_DATA:-0}" = 1 ] || rm -rf "$WORK"' EXIT
PASSED=0; FAILED=0
pass() { PASSED=$((PASSED + 1)); echo "PASS $1"; }
fail() { FAILED=$((FAILED + 1)); echo "FAIL $1"; [ -n "${2:-}" ] && sed 's/^/     /' "$2" | tail -n 25; }
check() { # NAME FUNCTION
  if "$2" > "$WORK/$1.log" 2>&1; then pass "$1"; else fail "$1" "$WORK/$1.log"; fi
}
tool() { timeout 90 "$TOOL" "$@"; }
PATH="$PATH:/usr/sbin"

KARST="${KERBEROS_KARST_BIN:-}"
if [ -z "$KARST" ] && [ "$AGAINST" = karst ]; then
  KARST="$WORK/karst"
  (cd "$ROOT" && go build -o "$KARST" ./cmd/karst) || { echo "interop-kerberos: building karst failed"; exit 1; }
fi

REALM=KARST.TEST
KDC_PORT="$(free_port)"; PORT="$(free_port)"; SSL_PORT="$(free_port)"; CONTROLLER_PORT="$(free_port)"; B="localhost:$PORT"; B_SSL="localhost:$SSL_PORT"
export KRB5_CONFIG="$WORK/krb5.conf" KRB5_KDC_PROFILE="$WORK/kdc.conf" KRB5CCNAME="FILE:$WORK/ccache"
# The JVM reads no KRB5_CONFIG: tool.sh passes KAFKA_OPTS, as bin/kafka-run-class.sh does.
export KAFKA_OPTS="-Djava.security.krb5.conf=$KRB5_CONFIG"
cat > "$KRB5_CONFIG" <<CONF
[libdefaults]
 default_realm = $REALM
 dns_lookup_realm = false
 dns_lookup_kdc = false
 rdns = false
 dns_canonicalize_hostname = false
 udp_preference_limit = 1
[realms]
 $REALM = {
  kdc = 127.0.0.1:$KDC_PORT
 }
CONF
cat > "$KRB5_KDC_PROFILE" <<CONF
[kdcdefaults]
 kdc_listen = 127.0.0.1:$KDC_PORT
 kdc_tcp_listen = 127.0.0.1:$KDC_PORT
[realms]
 $REALM = {
  database_name = $WORK/principal
  key_stash_file = $WORK/stash
  acl_file = $WORK/kadm5.acl
  max_life = 1h
  supported_enctypes = aes256-cts-hmac-sha1-96:normal aes128-cts-hmac-sha1-96:normal
 }
[logging]
 kdc = FILE:$WORK/kdc.log
CONF
: > "$WORK/kadm5.acl"

start_kdc() {
  kdb5_util create -s -r "$REALM" -P karst-interop-master || return 1
  krb5kdc -n -r "$REALM" >> "$WORK/kdc.log" 2>&1 < /dev/null &
  KDC_PID=$!
  local deadline=$((SECONDS + 30))
  until port_open 127.0.0.1 "$KDC_PORT"; do
    kill -0 "$KDC_PID" 2> /dev/null && [ $SECONDS -lt $deadline ] || return 1
    sleep 0.1
  done
  local p
  for p in kafka/localhost alice bob; do
    kadmin.local -r "$REALM" -q "addprinc -randkey $p@$REALM" || return 1
    kadmin.local -r "$REALM" -q "ktadd -k $WORK/${p%%/*}.keytab $p@$REALM" || return 1
  done
}

# The SASL_SSL listener's PEM key store: its certificate names localhost, where the clients dial.
make_pem_broker "$WORK/certs" DNS:localhost ca > "$WORK/certs.log" 2>&1 || { cat "$WORK/certs.log"; echo "interop-kerberos: making certificates failed"; exit 1; }
cat > "$WORK/server.properties" <<CONF
process.roles=broker,controller
node.id=1
controller.quorum.voters=1@127.0.0.1:$CONTROLLER_PORT
listeners=SASL_PLAINTEXT://127.0.0.1:$PORT,SASL_SSL://127.0.0.1:$SSL_PORT,CONTROLLER://127.0.0.1:$CONTROLLER_PORT
advertised.listeners=SASL_PLAINTEXT://localhost:$PORT,SASL_SSL://localhost:$SSL_PORT
controller.listener.names=CONTROLLER
inter.broker.listener.name=SASL_PLAINTEXT
listener.security.protocol.map=CONTROLLER:PLAINTEXT,SASL_PLAINTEXT:SASL_PLAINTEXT,SASL_SSL:SASL_SSL
sasl.enabled.mechanisms=GSSAPI,PLAIN
sasl.mechanism.inter.broker.protocol=PLAIN
sasl.kerberos.service.name=kafka
sasl.kerberos.principal.to.local.rules=RULE:[1:\$1@\$0](bob@$REALM)s/bob@.*/robert/,DEFAULT
listener.name.sasl_plaintext.gssapi.sasl.jaas.config=com.sun.security.auth.module.Krb5LoginModule required useKeyTab=true storeKey=true keyTab="$WORK/kafka.keytab" principal="kafka/localhost@$REALM";
listener.name.sasl_plaintext.plain.sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username="admin" password="admin-secret" user_admin="admin-secret";
listener.name.sasl_ssl.sasl.enabled.mechanisms=GSSAPI
listener.name.sasl_ssl.gssapi.sasl.jaas.config=com.sun.security.auth.module.Krb5LoginModule required useKeyTab=true storeKey=true keyTab="$WORK/kafka.keytab" principal="kafka/localhost@$REALM";
ssl.keystore.type=PEM
ssl.keystore.location=$WORK/certs/broker.pem
log.dirs=$WORK/data
offsets.topic.replication.factor=1
auto.create.topics.enable=false
CONF
for user in alice bob; do
  cat > "$WORK/$user.properties" <<CONF
security.protocol=SASL_PLAINTEXT
sasl.mechanism=GSSAPI
sasl.kerberos.service.name=kafka
sasl.jaas.config=com.sun.security.auth.module.Krb5LoginModule required useKeyTab=true storeKey=true keyTab="$WORK/$user.keytab" principal="$user@$REALM";
CONF
done
{ sed 's/^security.protocol=.*/security.protocol=SASL_SSL/' "$WORK/alice.properties"
  printf 'ssl.truststore.type=PEM\nssl.truststore.location=%s\n' "$WORK/certs/ca.pem"; } > "$WORK/alice-ssl.properties"

start_karst() {
  "$KARST" serve "$WORK/server.properties" >> "$WORK/karst.log" 2>&1 < /dev/null &
  KARST_PID=$!
  local deadline=$((SECONDS + 60))
  until port_open 127.0.0.1 "$PORT"; do
    kill -0 "$KARST_PID" 2> /dev/null && [ $SECONDS -lt $deadline ] || return 1
    sleep 0.2
  done
}

start_kafka() {
  local java=(java -Xms256m -Xmx1g -Djava.awt.headless=true $KAFKA_OPTS -Dkafka.logs.dir="$WORK/logs"
    -Dlog4j2.configurationFile="$HERE/../kafka/log4j2.properties" -cp "$(kafka_classpath)")
  timeout 120 "${java[@]}" kafka.tools.StorageTool format -t a2Fyc3RJbnRlcm9wVGVzdA -c "$WORK/server.properties" >> "$WORK/kafka.log" 2>&1 || return 1
  "${java[@]}" kafka.Kafka "$WORK/server.properties" >> "$WORK/kafka.log" 2>&1 < /dev/null &
  KAFKA_PID=$!
  local deadline=$((SECONDS + 90))
  until port_open 127.0.0.1 "$PORT" && grep -q "Kafka Server started" "$WORK/logs/server.log" 2> /dev/null; do
    kill -0 "$KAFKA_PID" 2> /dev/null && [ $SECONDS -lt $deadline ] || { tail -n 30 "$WORK/logs/server.log"; return 1; }
    sleep 0.5
  done
}
start_broker() { if [ "$AGAINST" = kafka ]; then start_kafka; else start_karst; fi; }
# The connection's logger names the principal, so it comes before the line's own fields.
logged_principal() { [ "$AGAINST" = kafka ] || grep "msg=authenticated" "$WORK/karst.log" | grep "mechanism=GSSAPI" | grep -q "principal=User:$1 "; }

java_client_round_trips_records() {
  tool kafka-topics --bootstrap-server "$B" --command-config "$WORK/alice.properties" --create --topic kerberos-java --partitions 1 || return 1
  printf 'one\ntwo\nthree\n' | tool kafka-console-producer --bootstrap-server "$B" --command-config "$WORK/alice.properties" --topic kerberos-java || return 1
  local out
  out=$(tool kafka-console-consumer --bootstrap-server "$B" --command-config "$WORK/alice.properties" --topic kerberos-java \
    --partition 0 --offset earliest --max-messages 3 --timeout-ms 30000) || return 1
  echo "$out"; [ "$(grep -cxE 'one|two|three' <<< "$out")" = 3 ] && logged_principal alice
}

# The same round trip over SASL_SSL: the GSSAPI tokens inside TLS, the broker's certificate
# verified against the CA (the Java client checks that it names localhost).
java_client_round_trips_records_over_sasl_ssl() {
  local cfg="$WORK/alice-ssl.properties" before=0 out
  [ "$AGAINST" = kafka ] || before=$(gssapi_logins alice SASL_SSL)
  tool kafka-topics --bootstrap-server "$B_SSL" --command-config "$cfg" --create --topic kerberos-java-ssl --partitions 1 || return 1
  printf 'tls1\ntls2\n' | tool kafka-console-producer --bootstrap-server "$B_SSL" --command-config "$cfg" --topic kerberos-java-ssl || return 1
  out=$(tool kafka-console-consumer --bootstrap-server "$B_SSL" --command-config "$cfg" --topic kerberos-java-ssl \
    --partition 0 --offset earliest --max-messages 2 --timeout-ms 30000) || return 1
  echo "$out"; [ "$(grep -cxE 'tls1|tls2' <<< "$out")" = 2 ] || return 1
  [ "$AGAINST" = kafka ] || [ "$(gssapi_logins alice SASL_SSL)" -gt "$before" ]
}

kcat_gssapi() { # kcat arguments...
  timeout 60 kcat -b "${KCAT_BROKER:-$B}" -X security.protocol="${KCAT_PROTOCOL:-SASL_PLAINTEXT}" -X sasl.mechanisms=GSSAPI -X sasl.kerberos.service.name=kafka \
    -X sasl.kerberos.keytab="$WORK/alice.keytab" -X sasl.kerberos.principal="alice@$REALM" "$@"
}

kcat_round_trips_records() {
  kcat_gssapi -L || return 1
  printf 'k1\nk2\n' | kcat_gssapi -P -t kerberos-java -p 0 || return 1
  local out
  out=$(kcat_gssapi -C -t kerberos-java -p 0 -o 3 -c 2 -e) || return 1
  echo "$out"; [ "$(grep -cxE 'k1|k2' <<< "$out")" = 2 ]
}

# kcat over SASL_SSL, verifying the broker's certificate against the CA.
kcat_round_trips_records_over_sasl_ssl() {
  local before=0 out
  [ "$AGAINST" = kafka ] || before=$(gssapi_logins alice SASL_SSL)
  printf 'ks1\nks2\n' | KCAT_BROKER="$B_SSL" KCAT_PROTOCOL=SASL_SSL kcat_gssapi -X ssl.ca.location="$WORK/certs/ca.pem" -P -t kerberos-java-ssl -p 0 || return 1
  out=$(KCAT_BROKER="$B_SSL" KCAT_PROTOCOL=SASL_SSL kcat_gssapi -X ssl.ca.location="$WORK/certs/ca.pem" -C -t kerberos-java-ssl -p 0 -o 2 -c 2 -e) || return 1
  echo "$out"; [ "$(grep -cxE 'ks1|ks2' <<< "$out")" = 2 ] || return 1
  [ "$AGAINST" = kafka ] || [ "$(gssapi_logins alice SASL_SSL)" -gt "$before" ]
}

# gssapi_logins USER [LISTENER]: how many GSSAPI logins of USER (on LISTENER) Karst has logged.
gssapi_logins() { grep "msg=authenticated" "$WORK/karst.log" | grep "mechanism=GSSAPI" | grep "listener=${2:-}" | grep -c "principal=User:$1 "; }

kafka_python_round_trips_records() {
  local py="$ROOT/interop/python/.venv/bin/python" before=0
  [ -x "$py" ] || { echo "no $py: interop/run makes it (its python install step)"; return 1; }
  [ "$AGAINST" = kafka ] || before=$(gssapi_logins alice)
  KRB5CCNAME="FILE:$WORK/py-ccache" kinit -kt "$WORK/alice.keytab" "alice@$REALM" || return 1
  KRB5CCNAME="FILE:$WORK/py-ccache" timeout 120 "$py" - "$B" <<'PY' || return 1
import sys, time
from kafka import KafkaConsumer, KafkaProducer, TopicPartition
from kafka.admin import KafkaAdminClient, NewTopic
bootstrap, topic = sys.argv[1], "kerberos-kafka-python"
sasl = {"security_protocol": "SASL_PLAINTEXT", "sasl_mechanism": "GSSAPI", "sasl_kerberos_service_name": "kafka",
        "request_timeout_ms": 30000}
admin = KafkaAdminClient(bootstrap_servers=bootstrap, **sasl)
admin.create_topics([NewTopic(topic, 1, 1)])
admin.close()
p = KafkaProducer(bootstrap_servers=bootstrap, acks="all", **sasl)
for i in range(3):
    p.send(topic, f"py{i}".encode(), partition=0).get(timeout=30)
p.close()
c = KafkaConsumer(bootstrap_servers=bootstrap, group_id=None, enable_auto_commit=False, **sasl)
c.assign([TopicPartition(topic, 0)])
c.seek_to_beginning()
got, deadline = [], time.monotonic() + 30
while len(got) < 3 and time.monotonic() < deadline:
    for records in c.poll(timeout_ms=1000).values():
        got.extend(r.value.decode() for r in records)
c.close()
print(got)
assert got == ["py0", "py1", "py2"], got
PY
  [ "$AGAINST" = kafka ] || [ "$(gssapi_logins alice)" -gt "$before" ]
}

confluent_kafka_round_trips_records() {
  local py="${INTEROP_CACHE:-$HOME/.cache/karst-interop}/kerberos-confluent/bin/python" before=0
  [ -x "$py" ] || { echo "no $py: interop/run makes it (its kerberos install step)"; return 1; }
  [ "$AGAINST" = kafka ] || before=$(gssapi_logins alice)
  # librdkafka runs kinit with the keytab itself (sasl.kerberos.kinit.cmd).
  KRB5CCNAME="FILE:$WORK/ck-ccache" timeout 120 "$py" - "$B" "$WORK/alice.keytab" "alice@$REALM" <<'PY' || return 1
import sys, time
import confluent_kafka
from confluent_kafka import Consumer, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic
bootstrap, keytab, principal = sys.argv[1:]
print(confluent_kafka.version(), confluent_kafka.libversion())
conf = {"bootstrap.servers": bootstrap, "security.protocol": "SASL_PLAINTEXT", "sasl.mechanisms": "GSSAPI",
        "sasl.kerberos.service.name": "kafka", "sasl.kerberos.keytab": keytab, "sasl.kerberos.principal": principal}
topic = "kerberos-confluent"
admin = AdminClient(conf)  # kept: a collected client ends its requests with _DESTROY
for f in admin.create_topics([NewTopic(topic, 1, 1)]).values():
    f.result(timeout=60)
p = Producer({**conf, "acks": "all"})
errors = []
for i in range(3):
    p.produce(topic, value=f"ck{i}".encode(), partition=0, on_delivery=lambda err, msg: err and errors.append(err))
assert p.flush(60) == 0 and not errors, errors
c = Consumer({**conf, "group.id": "unused", "enable.auto.commit": False})
c.assign([TopicPartition(topic, 0, 0)])
got, deadline = [], time.monotonic() + 30
while len(got) < 3 and time.monotonic() < deadline:
    m = c.poll(1)
    if m is not None and m.error() is None:
        got.append(m.value().decode())
c.close()
print(got)
assert got == ["ck0", "ck1", "ck2"], got
PY
  [ "$AGAINST" = kafka ] || [ "$(gssapi_logins alice)" -gt "$before" ]
}

principal_rules_map_bob_to_robert() {
  tool kafka-topics --bootstrap-server "$B" --command-config "$WORK/bob.properties" --list || return 1
  logged_principal robert
}

# A new key for kafka/localhost in the KDC: tickets are now sealed with a key Karst's keytab lacks.
rekey_broker() { kadmin.local -r "$REALM" -q "ktadd -k $WORK/rekeyed.keytab kafka/localhost@$REALM"; }
stale_keytab_refuses_java_client() {
  local out
  if out=$(tool kafka-topics --bootstrap-server "$B" --command-config "$WORK/alice.properties" --list 2>&1); then
    echo "listed topics: $out"; return 1
  fi
  echo "$out"; grep -q "Authentication failed during authentication due to invalid credentials with SASL mechanism GSSAPI" <<< "$out"
}
stale_keytab_refuses_kcat() {
  local out
  if out=$(kcat_gssapi -L -m 10 2>&1); then echo "kcat listed: $out"; return 1; fi
  echo "$out"; grep -q "Authentication failed during authentication due to invalid credentials with SASL mechanism GSSAPI" <<< "$out"
}

if check kdc_start start_kdc && start_broker; then
  pass "${AGAINST}_start"
  check java_client_round_trips_records java_client_round_trips_records
  check java_client_round_trips_records_over_sasl_ssl java_client_round_trips_records_over_sasl_ssl
  check kcat_round_trips_records kcat_round_trips_records
  check kcat_round_trips_records_over_sasl_ssl kcat_round_trips_records_over_sasl_ssl
  check kafka_python_round_trips_records kafka_python_round_trips_records
  check confluent_kafka_round_trips_records confluent_kafka_round_trips_records
  check principal_rules_map_bob_to_robert principal_rules_map_bob_to_robert
  if check rekey_broker rekey_broker; then
    rm -f "${KRB5CCNAME#FILE:}"
    check stale_keytab_refuses_java_client stale_keytab_refuses_java_client
    check stale_keytab_refuses_kcat stale_keytab_refuses_kcat
  fi
else
  fail "${AGAINST}_start" "$WORK/$AGAINST.log"
fi
echo "interop-kerberos: $PASSED passed, $FAILED failed"
[ "$FAILED" = 0 ]
