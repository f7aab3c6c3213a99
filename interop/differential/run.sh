#!/usr/bin/env bash
# The differential suite: starts Apache Kafka 4.4.0 (interop/kafka/start.sh) and Karst (built
# from ./cmd/karst) on free loopback ports with the same settings, runs the Go program in this
# folder against both (every API and version Karst serves, happy and error paths, answers
# compared field by field) and prints its differences, counts and closing line
# "interop-differential: N passed, M failed". Differences listed in known-differences.txt pass.
# It starts its own brokers, so it runs the same whatever interop/run's --against says.
# DIFFERENTIAL_KEEP=1 keeps the brokers' directories; DIFFERENTIAL_ONLY=REGEXP limits the APIs.
set -uo pipefail
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
fail() { echo "differential: $*" >&2; echo "interop-differential: 0 passed, 1 failed"; exit 1; }
start=$SECONDS

# The settings start.sh gives Kafka, given to Karst too, and auto-creation on (both defaults).
# The scenarios' records carry 2023 timestamps, past the default retention: Kafka's first retention
# pass (log.initial.task.delay.ms, 30 s after its start) deleted them mid-run on a loaded machine
# (2026-12-03, load average 33: 78 scenarios of Fetch, ListOffsets and DescribeLogDirs differed).
# An hour keeps the pass out of the run; Karst's first pass comes after log.retention.check.interval.ms.
SETTINGS=(num.partitions=1 offsets.topic.num.partitions=3 transaction.state.log.num.partitions=3
  group.initial.rebalance.delay.ms=0 message.max.bytes=2097152 auto.create.topics.enable=true
  log.initial.task.delay.ms=3600000)

(cd "$ROOT" && timeout 600 go build -o "$WORK/karst" ./cmd/karst && timeout 600 go build -o "$WORK/differential" ./interop/differential) ||
  fail "build failed"
KAFKA_PORT="$(free_port)"
"$HERE/../kafka/start.sh" "$WORK/kafka" "$KAFKA_PORT" "${SETTINGS[@]}" > "$WORK/kafka-start.out" 2>&1 ||
  { cat "$WORK/kafka-start.out" >&2; fail "kafka did not start"; }
KARST_PORT="$(free_port)"
overrides=(--override "listeners=PLAINTEXT://127.0.0.1:$KARST_PORT" --override "log.dirs=$WORK/karst-data")
for kv in "${SETTINGS[@]}"; do overrides+=(--override "$kv"); done
"$WORK/karst" serve "${overrides[@]}" > "$WORK/karst.log" 2>&1 < /dev/null &
KARST_PID=$!
deadline=$((SECONDS + 60))
until port_open 127.0.0.1 "$KARST_PORT"; do
  kill -0 "$KARST_PID" 2> /dev/null || { tail -n 20 "$WORK/karst.log" >&2; fail "karst exited"; }
  [ $SECONDS -lt $deadline ] || fail "karst did not listen within 60 s"
  sleep 0.2
done
echo "differential: kafka $KAFKA_VERSION on 127.0.0.1:$KAFKA_PORT, karst on 127.0.0.1:$KARST_PORT (brokers up after $((SECONDS - start)) s)"

"$WORK/differential" -kafka "127.0.0.1:$KAFKA_PORT" -karst "127.0.0.1:$KARST_PORT" \
  -known "$HERE/known-differences.txt" -only "${DIFFERENTIAL_ONLY:-}"
rc=$?
if ! kill -0 "$KARST_PID" 2> /dev/null; then
  # A broker that died mid-run turns every later scenario into "connection refused"; say so.
  echo "differential: karst exited during the run; the end of its log:" >&2
  tail -n 40 "$WORK/karst.log" >&2
  KARST_PID=""
  rc=1
fi
echo "differential: suite wall time $((SECONDS - start)) s"
exit $rc
