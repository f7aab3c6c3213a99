#!/usr/bin/env bash
# The old clients' records on Kafka 4.4: starts a Karst of its own on a fresh data directory, runs
# ./run.sh against it (every old client writes and reads), stops Karst (SIGTERM), starts Apache
# Kafka 4.4.0 on the same directory (Kafka's format) and has kafka-clients 4.4.0 read every old
# client's topic there, byte for byte as on Karst. Prints run.sh's lines, then PASS/FAIL lines of
# the handoff and "interop-oldclients: N passed, M failed" for both together.
# KARST_BIN=path uses that Karst binary instead of building ./cmd/karst; INTEROP_KEEP_DATA=1 keeps
# the directory.
set -uo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
KAFKA="$HERE/../kafka"
source "$KAFKA/common.sh"
WORK="$(mktemp -d /tmp/interop-oldclients.XXXXXX)"
KARST_PID=""
cleanup() {
  [ -n "$KARST_PID" ] && kill -9 "$KARST_PID" 2> /dev/null
  [ -f "$WORK/kafka.pid" ] && timeout 60 "$KAFKA/stop.sh" "$WORK" > /dev/null 2>&1
  if [ -z "${INTEROP_KEEP_DATA:-}" ]; then rm -rf "$WORK"; else echo "data kept in $WORK" >&2; fi
}
trap cleanup EXIT
PASSED=0 FAILED=0
pass() { PASSED=$((PASSED + 1)); echo "PASS $1"; }
fail() { FAILED=$((FAILED + 1)); echo "FAIL $1"; [ -n "${2:-}" ] && [ -f "$2" ] && tail -n 20 "$2" | sed 's/^/     /'; }
finish() { echo "interop-oldclients: $PASSED passed, $FAILED failed"; [ "$FAILED" = 0 ]; exit; }

KARST="${KARST_BIN:-}"
if [ -z "$KARST" ]; then
  KARST="$WORK/karst"
  (cd "$ROOT" && timeout 600 go build -o "$KARST" ./cmd/karst) > "$WORK/build.out" 2>&1 || { fail "build karst" "$WORK/build.out"; finish; }
fi
port="$(free_port)"
mkdir -p "$WORK/data"
"$KARST" serve --override "listeners=PLAINTEXT://127.0.0.1:$port" --override "log.dirs=$WORK/data" \
  --override auto.create.topics.enable=false --override group.initial.rebalance.delay.ms=0 > "$WORK/karst.log" 2>&1 < /dev/null &
KARST_PID=$!
deadline=$((SECONDS + 60))
until port_open 127.0.0.1 "$port"; do
  if ! kill -0 "$KARST_PID" 2> /dev/null || [ $SECONDS -ge $deadline ]; then fail "karst start" "$WORK/karst.log"; finish; fi
  sleep 0.2
done

export OLDCLIENTS_RUN_ID="$(date +%s)-$$" OLDCLIENTS_VERIFY_FILE="$WORK/verify.args"
KARST_BOOTSTRAP="127.0.0.1:$port" "$HERE/run.sh" | tee "$WORK/run.out"
line="$(grep -E '^interop-oldclients: [0-9]+ passed, [0-9]+ failed' "$WORK/run.out" | tail -n 1)"
if [ -z "$line" ]; then
  FAILED=$((FAILED + 1))
else
  PASSED=$((PASSED + $(sed -E 's/.*: ([0-9]+) passed.*/\1/' <<< "$line")))
  FAILED=$((FAILED + $(sed -E 's/.* ([0-9]+) failed.*/\1/' <<< "$line")))
fi

kill "$KARST_PID"
deadline=$((SECONDS + 30))
while kill -0 "$KARST_PID" 2> /dev/null && [ $SECONDS -lt $deadline ]; do sleep 0.2; done
if kill -0 "$KARST_PID" 2> /dev/null; then fail "karst stopped by SIGTERM within 30 s"; finish; fi
KARST_PID=""
pass "karst stopped by SIGTERM"
[ -s "$WORK/verify.args" ] || { fail "run.sh left no topics to read"; finish; }

kport="$(free_port)"
if ! KAFKA_START_TIMEOUT=90 timeout 150 "$KAFKA/start.sh" "$WORK" "$kport" auto.create.topics.enable=false > "$WORK/start-kafka.out" 2>&1; then
  fail "kafka 4.4.0 started on the directory Karst and the old clients wrote" "$WORK/start-kafka.out"; finish
fi
pass "kafka 4.4.0 started on the directory Karst and the old clients wrote"
mapfile -t VERIFY < "$WORK/verify.args"
if timeout 180 java -XX:TieredStopAtLevel=1 -XX:+UseSerialGC -Xmx256m -Dorg.slf4j.simpleLogger.defaultLogLevel=error \
  -cp "$HERE/target/modern:$HERE/target/lib/4.4.0/*" io.karst.interop.oldclients.Modern verify "127.0.0.1:$kport" "${VERIFY[@]}" > "$WORK/kafka-verify.out" 2>&1; then :; fi
while read -r verdict name rest; do
  if [ "$verdict" = PASS ]; then pass "on kafka 4.4.0: $name $rest"; else fail "on kafka 4.4.0: $name $rest"; fi
done < <(grep -E '^(PASS|FAIL) ' "$WORK/kafka-verify.out")
grep -qE '^generation verify: ' "$WORK/kafka-verify.out" || fail "on kafka 4.4.0: verify did not finish" "$WORK/kafka-verify.out"
finish
