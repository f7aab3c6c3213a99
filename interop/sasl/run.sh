#!/usr/bin/env bash
# interop/sasl/run.sh — SASL with Kafka's own tools and Java client against a Karst it starts.
#
# Formats a data directory with Kafka 4.4.0's `kafka-storage format --add-scram` (SCRAM-SHA-512 and
# SCRAM-SHA-256 credentials for bob in the bootstrap snapshot), starts Karst on it with one
# SASL_PLAINTEXT listener (PLAIN users from the listener's JAAS config, both SCRAM mechanisms),
# then with --command-config: bob's credentials from the format command authenticate and are
# described; `kafka-configs --alter --add-config 'SCRAM-SHA-256=[...]' --entity-type users` adds
# alice, who creates a topic and round-trips records with the console producer and consumer;
# wrong passwords and an unknown mechanism are refused with Kafka's errors; after a restart alice
# still authenticates (her credential is in __cluster_metadata). A second listener, SASL_SSL (a PEM
# key store openssl makes here; the clients trust its CA through a PEM trust store), enables
# OAUTHBEARER beside PLAIN and SCRAM: the Java client logs in there with PLAIN, SCRAM-SHA-256,
# SCRAM-SHA-512 and with
# OAuthBearerLoginModule's unsecured token (Kafka's development login), and is refused for a broker
# certificate it does not trust. A third listener, OAUTH (SASL_PLAINTEXT, OAUTHBEARER only), serves the
# Java client's OAUTHBEARER without TLS: the first listener keeps OAUTHBEARER off, for the
# unknown-mechanism check.
# Needs java and the jars of ../kafka (fetch.sh). Prints PASS/FAIL per check and
# "interop-sasl: N passed, M failed". SASL_KARST_BIN=path uses that Karst binary.
set -uo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
TOOL="$HERE/../kafka/tool.sh"
source "$HERE/../kafka/common.sh"
ensure_kafka_jars
WORK="$(mktemp -d /tmp/interop-sasl.XXXXXX)"
KARST_PID=""
trap '[ -n "$KARST_PID" ] && kill "$KARST_PID" 2> /dev/null; [ "${INTEROP_KEEP_DATA:-0}" = 1 ] || rm -rf "$WORK"' EXIT
PASSED=0; FAILED=0
pass() { PASSED=$((PASSED + 1)); echo "PASS $1"; }
fail() { FAILED=$((FAILED + 1)); echo "FAIL $1"; [ -n "${2:-}" ] && sed 's/^/     /' "$2" | tail -n 25; }
check() { # NAME FUNCTION
  if "$2" > "$WORK/$1.log" 2>&1; then pass "$1"; else fail "$1" "$WORK/$1.log"; fi
}
tool() { timeout 90 "$TOOL" "$@"; }

KARST="${SASL_KARST_BIN:-}"
if [ -z "$KARST" ]; then
  KARST="$WORK/karst"
  (cd "$ROOT" && go build -o "$KARST" ./cmd/karst) || { echo "interop-sasl: building karst failed"; exit 1; }
fi

PORT="$(free_port)"; CONTROLLER_PORT="$(free_port)"; SSL_PORT="$(free_port)"; OAUTH_PORT="$(free_port)"; B="127.0.0.1:$PORT"
# The broker's PEM key store (PKCS#8 key, then its certificate, signed by a CA made here) and a
# second CA the clients of the refusal check trust instead.
make_certs() { make_pem_broker "$WORK/certs" IP:127.0.0.1 ca other-ca; } > "$WORK/certs.log" 2>&1
make_certs || { cat "$WORK/certs.log"; echo "interop-sasl: making certificates failed"; exit 1; }
cat > "$WORK/server.properties" <<CONF
process.roles=broker,controller
node.id=1
controller.quorum.voters=1@127.0.0.1:$CONTROLLER_PORT
listeners=SASL_PLAINTEXT://127.0.0.1:$PORT,SASL_SSL://127.0.0.1:$SSL_PORT,OAUTH://127.0.0.1:$OAUTH_PORT,CONTROLLER://127.0.0.1:$CONTROLLER_PORT
controller.listener.names=CONTROLLER
inter.broker.listener.name=SASL_PLAINTEXT
listener.security.protocol.map=CONTROLLER:PLAINTEXT,SASL_PLAINTEXT:SASL_PLAINTEXT,SASL_SSL:SASL_SSL,OAUTH:SASL_PLAINTEXT
sasl.enabled.mechanisms=PLAIN,SCRAM-SHA-256,SCRAM-SHA-512
listener.name.sasl_ssl.sasl.enabled.mechanisms=PLAIN,SCRAM-SHA-256,SCRAM-SHA-512,OAUTHBEARER
listener.name.oauth.sasl.enabled.mechanisms=OAUTHBEARER
sasl.mechanism.inter.broker.protocol=PLAIN
listener.name.sasl_plaintext.plain.sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username="admin" password="admin-secret" user_admin="admin-secret";
listener.name.sasl_ssl.plain.sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username="admin" password="admin-secret" user_admin="admin-secret";
listener.name.sasl_ssl.scram-sha-512.sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required;
listener.name.sasl_ssl.scram-sha-256.sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required;
listener.name.sasl_ssl.oauthbearer.sasl.jaas.config=org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required;
listener.name.oauth.oauthbearer.sasl.jaas.config=org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required;
ssl.keystore.type=PEM
ssl.keystore.location=$WORK/certs/broker.pem
log.dirs=$WORK/data
offsets.topic.replication.factor=1
auto.create.topics.enable=false
CONF
client_config() { # FILE MECHANISM USER PASSWORD
  local module=org.apache.kafka.common.security.scram.ScramLoginModule
  [ "$2" = PLAIN ] && module=org.apache.kafka.common.security.plain.PlainLoginModule
  printf 'security.protocol=SASL_PLAINTEXT\nsasl.mechanism=%s\nsasl.jaas.config=%s required username="%s" password="%s";\n' \
    "$2" "$module" "$3" "$4" > "$WORK/$1"
}
client_config admin.properties PLAIN admin admin-secret
client_config bob512.properties SCRAM-SHA-512 bob bob-secret
client_config bob256.properties SCRAM-SHA-256 bob bob-256
client_config alice.properties SCRAM-SHA-256 alice alice-secret
client_config alice-wrong.properties SCRAM-SHA-256 alice not-her-password
client_config plain-wrong.properties PLAIN admin wrong
# OAUTHBEARER with Kafka's unsecured development login: a mechanism the first listener does not
# enable, the only one of the OAUTH listener.
printf 'security.protocol=SASL_PLAINTEXT\nsasl.mechanism=OAUTHBEARER\nsasl.jaas.config=%s required unsecuredLoginStringClaim_sub="oscar";\n' \
  org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule > "$WORK/oauthbearer.properties"

# ssl_config FILE MECHANISM JAAS [CA]: a SASL_SSL client properties file trusting CA (default ca).
ssl_config() {
  printf 'security.protocol=SASL_SSL\nsasl.mechanism=%s\nsasl.jaas.config=%s\nssl.truststore.type=PEM\nssl.truststore.location=%s\n' \
    "$2" "$3" "$WORK/certs/${4:-ca}.pem" > "$WORK/$1"
}
ssl_config bob512-ssl.properties SCRAM-SHA-512 'org.apache.kafka.common.security.scram.ScramLoginModule required username="bob" password="bob-secret";'
ssl_config admin-ssl.properties PLAIN 'org.apache.kafka.common.security.plain.PlainLoginModule required username="admin" password="admin-secret";'
ssl_config bob256-ssl.properties SCRAM-SHA-256 'org.apache.kafka.common.security.scram.ScramLoginModule required username="bob" password="bob-256";'
ssl_config oauth-ssl.properties OAUTHBEARER 'org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required unsecuredLoginStringClaim_sub="olivia";'
ssl_config untrusted-ssl.properties SCRAM-SHA-512 'org.apache.kafka.common.security.scram.ScramLoginModule required username="bob" password="bob-secret";' other-ca

format_with_scram() {
  tool kafka-storage format -t MkU3OEVBNTcwNTJENDM2Qk -c "$WORK/server.properties" \
    --add-scram 'SCRAM-SHA-512=[name=bob,password=bob-secret]' \
    --add-scram 'SCRAM-SHA-256=[name=bob,iterations=8192,password=bob-256]'
}

start_karst() {
  "$KARST" serve "$WORK/server.properties" >> "$WORK/karst.log" 2>&1 < /dev/null &
  KARST_PID=$!
  local deadline=$((SECONDS + 60))
  until port_open 127.0.0.1 "$PORT"; do
    kill -0 "$KARST_PID" 2> /dev/null && [ $SECONDS -lt $deadline ] || return 1
    sleep 0.2
  done
}
stop_karst() {
  kill "$KARST_PID" 2> /dev/null
  local deadline=$((SECONDS + 30))
  while kill -0 "$KARST_PID" 2> /dev/null && [ $SECONDS -lt $deadline ]; do sleep 0.2; done
  ! kill -0 "$KARST_PID" 2> /dev/null && wait "$KARST_PID"
}

bob_from_format_authenticates_and_is_described() {
  local out
  out=$(tool kafka-configs --bootstrap-server "$B" --command-config "$WORK/bob512.properties" --describe --entity-type users --entity-name bob) || return 1
  echo "$out"
  grep -q "SCRAM-SHA-256=iterations=8192" <<< "$out" && grep -q "SCRAM-SHA-512=iterations=4096" <<< "$out" &&
    tool kafka-topics --bootstrap-server "$B" --command-config "$WORK/bob256.properties" --list
}

kafka_configs_adds_alice() {
  tool kafka-configs --bootstrap-server "$B" --command-config "$WORK/admin.properties" --alter \
    --add-config 'SCRAM-SHA-256=[iterations=8192,password=alice-secret]' --entity-type users --entity-name alice || return 1
  local out; out=$(tool kafka-configs --bootstrap-server "$B" --command-config "$WORK/admin.properties" --describe --entity-type users --entity-name alice) || return 1
  echo "$out"; grep -q "SCRAM-SHA-256=iterations=8192" <<< "$out"
}

alice_round_trips_records() {
  tool kafka-topics --bootstrap-server "$B" --command-config "$WORK/alice.properties" --create --topic sasl-cli --partitions 1 || return 1
  printf 'one\ntwo\nthree\n' | tool kafka-console-producer --bootstrap-server "$B" --command-config "$WORK/alice.properties" --topic sasl-cli || return 1
  local out
  out=$(tool kafka-console-consumer --bootstrap-server "$B" --command-config "$WORK/alice.properties" --topic sasl-cli \
    --partition 0 --offset earliest --max-messages 3 --timeout-ms 30000) || return 1
  echo "$out"; [ "$(grep -cxE 'one|two|three' <<< "$out")" = 3 ]
}

refused() { # CONFIG PATTERN
  local out
  if out=$(tool kafka-topics --bootstrap-server "$B" --command-config "$WORK/$1" --list 2>&1); then
    echo "listed topics: $out"; return 1
  fi
  echo "$out"; grep -q "$2" <<< "$out"
}
wrong_scram_password_refused() { refused alice-wrong.properties "Authentication failed during authentication due to invalid credentials with SASL mechanism SCRAM-SHA-256"; }
wrong_plain_password_refused() { refused plain-wrong.properties "Authentication failed: Invalid username or password"; }
unknown_mechanism_refused() { refused oauthbearer.properties "Client SASL mechanism 'OAUTHBEARER' not enabled in the server, enabled mechanisms are \[PLAIN, SCRAM-SHA-256, SCRAM-SHA-512\]"; }

sasl_ssl_plain_and_scram() {
  local f
  for f in admin-ssl bob256-ssl bob512-ssl; do
    tool kafka-topics --bootstrap-server "127.0.0.1:$SSL_PORT" --command-config "$WORK/$f.properties" --list || return 1
  done
}
sasl_ssl_oauthbearer_round_trip() {
  local cfg="$WORK/oauth-ssl.properties" ssl="127.0.0.1:$SSL_PORT"
  tool kafka-topics --bootstrap-server "$ssl" --command-config "$cfg" --create --topic sasl-oauth --partitions 1 || return 1
  printf 'four\nfive\n' | tool kafka-console-producer --bootstrap-server "$ssl" --command-config "$cfg" --topic sasl-oauth || return 1
  local out
  out=$(tool kafka-console-consumer --bootstrap-server "$ssl" --command-config "$cfg" --topic sasl-oauth \
    --partition 0 --offset earliest --max-messages 2 --timeout-ms 30000) || return 1
  echo "$out"; [ "$(grep -cxE 'four|five' <<< "$out")" = 2 ] && grep -q 'principal=User:olivia' "$WORK/karst.log"
}
sasl_plaintext_oauthbearer_round_trip() {
  local cfg="$WORK/oauthbearer.properties" b="127.0.0.1:$OAUTH_PORT"
  tool kafka-topics --bootstrap-server "$b" --command-config "$cfg" --create --topic sasl-plaintext-oauth --partitions 1 || return 1
  printf 'six\nseven\n' | tool kafka-console-producer --bootstrap-server "$b" --command-config "$cfg" --topic sasl-plaintext-oauth || return 1
  local out
  out=$(tool kafka-console-consumer --bootstrap-server "$b" --command-config "$cfg" --topic sasl-plaintext-oauth \
    --partition 0 --offset earliest --max-messages 2 --timeout-ms 30000) || return 1
  echo "$out"; [ "$(grep -cxE 'six|seven' <<< "$out")" = 2 ] &&
    grep "msg=authenticated" "$WORK/karst.log" | grep "mechanism=OAUTHBEARER" | grep -q "principal=User:oscar "
}
sasl_ssl_untrusted_broker_refused() {
  local out
  if out=$(timeout 90 "$TOOL" kafka-topics --bootstrap-server "127.0.0.1:$SSL_PORT" --command-config "$WORK/untrusted-ssl.properties" --list 2>&1); then
    echo "listed topics: $out"; return 1
  fi
  echo "$out"; grep -qE "SSL handshake failed|PKIX path building failed" <<< "$out"
}

alice_after_restart() {
  stop_karst || return 1
  start_karst || return 1
  tool kafka-topics --bootstrap-server "$B" --command-config "$WORK/alice.properties" --describe --topic sasl-cli
}

if check format_with_add_scram format_with_scram && start_karst; then
  pass karst_start
  check bob_from_format_authenticates_and_is_described bob_from_format_authenticates_and_is_described
  check kafka_configs_adds_alice kafka_configs_adds_alice
  check alice_round_trips_records alice_round_trips_records
  check wrong_scram_password_refused wrong_scram_password_refused
  check wrong_plain_password_refused wrong_plain_password_refused
  check unknown_mechanism_refused unknown_mechanism_refused
  check sasl_ssl_plain_and_scram sasl_ssl_plain_and_scram
  check sasl_ssl_oauthbearer_round_trip sasl_ssl_oauthbearer_round_trip
  check sasl_ssl_untrusted_broker_refused sasl_ssl_untrusted_broker_refused
  check sasl_plaintext_oauthbearer_round_trip sasl_plaintext_oauthbearer_round_trip
  check alice_after_restart alice_after_restart
  stop_karst && pass karst_stop || fail karst_stop "$WORK/karst.log"
  KARST_PID=""
else
  fail karst_start "$WORK/karst.log"
fi
echo "interop-sasl: $PASSED passed, $FAILED failed"
[ "$FAILED" = 0 ]
