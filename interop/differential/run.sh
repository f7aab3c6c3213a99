#!/usr/bin/env bash
# The differential suite: starts Apache Kafka 4.4.0 (interop/kafka/start.sh) and Karst (built
# from ./cmd/karst) on free loopback ports with the same settings, runs the Go program in this
# folder against both (every API and version Karst serves, happy and error paths, answers
# compared field by field) and prints its differences, counts and closing line
# "interop-differential: N passed, M failed". Differences listed in known-differences.txt pass.
# It starts its own brokers, so it runs the same whatever interop/run's --against says.
# DIFFERENTIAL_KEEP=1 keeps the brokers' directories; DIFFERENTIAL_ONLY=REGEXP limits the APIs.
#
# run.sh --acl is the ACL differential (run by interop/acls/run.sh): both brokers also get the
# StandardAuthorizer, User:ANONYMOUS (the PLAINTEXT listener) as super user and a SASL_PLAINTEXT
# listener where the PLAIN user alice logs in; the program's ACL cases (acl.go, acl_cases.go) send
# every API both serve, at every version, as alice with no ACL, with exactly the ACLs Kafka's table
# requires and with a DENY on top, the same ACLs given to both brokers before each phase.
# Differences listed in acl-known-differences.txt pass; closing line
# "acl-differential: N passed, M failed".
set -uo pipefail
ACL=""
[ "${1:-}" = --acl ] && ACL=1
HERE="$(cd "$(dirname "$0")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
source "$HERE/../kafka/common.sh"
WORK="$(mktemp -d /tmp/interop-differential.XXXXXX)"
KARST_PID=""
cleanup() {
  "$HERE/../kafka/stop.sh" "$WORK/kafka" > /dev/null 2>&1 || true
  if [ -n "$KARST_PID" ]; then
    kill "$KARST_PID" 2> /dev/null
    for _ in $(seq 1 40); do kill -0 "$KARST_PID" 2> /dev/null || break; sleep 0.25; done
    kill -9 "$KARST_PID" 2> /dev/null || true
  fi
  if [ -z "${DIFFERENTIAL_KEEP:-}" ]; then rm -rf "$WORK"; else echo "kept $WORK" >&2; fi
}
trap cleanup EXIT
SUITE=interop-differential
[ -n "$ACL" ] && SUITE=acl-differential
fail() { echo "differential: $*" >&2; echo "$SUITE: 0 passed, 1 failed"; exit 1; }
start=$SECONDS

# The settings start.sh gives Kafka, given to Karst too, and auto-creation on (both defaults).
# The scenarios' records carry 2023 timestamps, past the default retention: Kafka's first retention
# pass (log.initial.task.delay.ms, 30 s after its start) deleted them mid-run on a loaded machine
# (2026-12-03, load average 33: 78 scenarios of Fetch, ListOffsets and DescribeLogDirs differed).
# An hour keeps the pass out of the run; Karst's first pass comes after log.retention.check.interval.ms.
SETTINGS=(num.partitions=1 offsets.topic.num.partitions=3 transaction.state.log.num.partitions=3
  group.initial.rebalance.delay.ms=0 message.max.bytes=2097152 auto.create.topics.enable=true
  log.initial.task.delay.ms=3600000)
PLAIN_JAAS='org.apache.kafka.common.security.plain.PlainLoginModule required user_alice="alice-secret";'
# With --acl the delegation-token secret turns the token APIs on, so that their checks are compared.
[ -n "$ACL" ] && SETTINGS+=(sasl.enabled.mechanisms=PLAIN "listener.name.sasl_plaintext.plain.sasl.jaas.config=$PLAIN_JAAS"
  authorizer.class.name=org.apache.kafka.metadata.authorizer.StandardAuthorizer super.users=User:ANONYMOUS
  delegation.token.secret.key=acl-differential-secret)

(cd "$ROOT" && timeout 600 go build -o "$WORK/karst" ./cmd/karst && timeout 600 go build -o "$WORK/differential" ./interop/differential) ||
  fail "build failed"
KAFKA_PORT="$(free_port)"; KAFKA_SASL_PORT="$(free_port)"; CONTROLLER_PORT="$(free_port)"
KARST_PORT="$(free_port)"; KARST_SASL_PORT="$(free_port)"
KAFKA_LISTENERS=(); KARST_LISTENERS="PLAINTEXT://127.0.0.1:$KARST_PORT"
if [ -n "$ACL" ]; then
  KAFKA_LISTENERS=("listeners=PLAINTEXT://127.0.0.1:$KAFKA_PORT,SASL_PLAINTEXT://127.0.0.1:$KAFKA_SASL_PORT,CONTROLLER://127.0.0.1:$CONTROLLER_PORT"
    "advertised.listeners=PLAINTEXT://127.0.0.1:$KAFKA_PORT,SASL_PLAINTEXT://127.0.0.1:$KAFKA_SASL_PORT"
    "listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT,SASL_PLAINTEXT:SASL_PLAINTEXT")
  KARST_LISTENERS="$KARST_LISTENERS,SASL_PLAINTEXT://127.0.0.1:$KARST_SASL_PORT"
fi
KAFKA_CONTROLLER_PORT="$CONTROLLER_PORT" "$HERE/../kafka/start.sh" "$WORK/kafka" "$KAFKA_PORT" "${SETTINGS[@]}" "${KAFKA_LISTENERS[@]}" \
  > "$WORK/kafka-start.out" 2>&1 || { cat "$WORK/kafka-start.out" >&2; fail "kafka did not start"; }
overrides=(--override "listeners=$KARST_LISTENERS" --override "log.dirs=$WORK/karst-data")
for kv in "${SETTINGS[@]}"; do overrides+=(--override "$kv"); done
"$WORK/karst" serve "${overrides[@]}" > "$WORK/karst.log" 2>&1 < /dev/null &
KARST_PID=$!
deadline=$((SECONDS + 60))
until port_open 127.0.0.1 "$KARST_PORT" && { [ -z "$ACL" ] || port_open 127.0.0.1 "$KARST_SASL_PORT"; }; do
  kill -0 "$KARST_PID" 2> /dev/null || { tail -n 20 "$WORK/karst.log" >&2; fail "karst exited"; }
  [ $SECONDS -lt $deadline ] || fail "karst did not listen within 60 s"
  sleep 0.2
done
echo "differential: kafka $KAFKA_VERSION on 127.0.0.1:$KAFKA_PORT, karst on 127.0.0.1:$KARST_PORT (brokers up after $((SECONDS - start)) s)"

if [ -n "$ACL" ]; then
  "$WORK/differential" -acl -kafka "127.0.0.1:$KAFKA_PORT" -kafka-sasl "127.0.0.1:$KAFKA_SASL_PORT" \
    -karst "127.0.0.1:$KARST_PORT" -karst-sasl "127.0.0.1:$KARST_SASL_PORT" \
    -known "$HERE/acl-known-differences.txt" -only "${DIFFERENTIAL_ONLY:-}"
else
  "$WORK/differential" -kafka "127.0.0.1:$KAFKA_PORT" -karst "127.0.0.1:$KARST_PORT" \
    -known "$HERE/known-differences.txt" -only "${DIFFERENTIAL_ONLY:-}"
fi
rc=$?
if [ -n "$ACL" ] && [ -n "${ACL_LIVE_KAFKA_OUT:-}" ]; then
  # The acls suite's Java client run (../acls/AclLive.java) against Kafka 4.4.0, the reference its
  # run against Karst is compared with; after the differential, so that it changes nothing there.
  timeout 600 java -Xmx512m -XX:+UseSerialGC -XX:TieredStopAtLevel=1 \
    -Dlog4j2.configurationFile="$HERE/../kafka/tools-log4j2.properties" -cp "$HERE/../kafka/lib-$KAFKA_VERSION/*" \
    "$HERE/../acls/AclLive.java" "127.0.0.1:$KAFKA_SASL_PORT" "127.0.0.1:$KAFKA_PORT" > "$ACL_LIVE_KAFKA_OUT" 2>&1
  echo "differential: AclLive.java against kafka exited $? (output in $ACL_LIVE_KAFKA_OUT)"
  if [ -n "${ACL_LIVE_KAFKAJS_OUT:-}" ]; then
    timeout 600 node "$HERE/../acls/kafkajs-live.js" "127.0.0.1:$KAFKA_SASL_PORT" "127.0.0.1:$KAFKA_PORT" > "$ACL_LIVE_KAFKAJS_OUT" 2>&1
    echo "differential: kafkajs-live.js against kafka exited $? (output in $ACL_LIVE_KAFKAJS_OUT)"
  fi
fi
if ! kill -0 "$KARST_PID" 2> /dev/null; then
  # A broker that died mid-run turns every later scenario into "connection refused"; say so.
  echo "differential: karst exited during the run; the end of its log:" >&2
  tail -n 40 "$WORK/karst.log" >&2
  KARST_PID=""
  rc=1
fi
echo "differential: suite wall time $((SECONDS - start)) s"
exit $rc
