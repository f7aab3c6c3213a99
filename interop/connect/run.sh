#!/usr/bin/env bash
# interop/connect/run.sh — a Kafka Connect 4.4.0 distributed worker (connect-runtime and connect-file
# from Maven Central, built into target/lib by `mvn -q -B package`) against KARST_BOOTSTRAP: its
# config, offset and status topics (which the worker creates compacted and refuses to start without
# cleanup.policy=compact), a FileStreamSource reading a file into a topic and a FileStreamSink writing
# the topic to another file. The worker is stopped, more lines are appended and a new worker starts
# on the same topics: the connectors come back from the config topic, RUNNING in the status topic,
# the source resumes from its offset in the offset topic and the sink from its committed offsets,
# so the sink's file is the source's exactly. connect-file is 4.3.1 (Central has no 4.4.0); the
# class it calls for its version, moved in 4.4.0, is given back its old name in src/. Prints "interop-connect: N passed, M failed".
set -uo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
BOOTSTRAP="${KARST_BOOTSTRAP:-127.0.0.1:9092}"
WAIT="${INTEROP_CONNECT_WAIT_S:-90}"
RUN="$(date +%s%N | tail -c 9)"
WORK="$(mktemp -d /tmp/interop-connect.XXXXXX)"
PASSED=0
FAILED=0
WORKER_PID=""

pass() { PASSED=$((PASSED + 1)); echo "PASS $1"; }
fail() { FAILED=$((FAILED + 1)); echo "FAIL $1"; }
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'; }
finish() {
  stop_worker
  echo "interop-connect: $PASSED passed, $FAILED failed"
  [ -z "${INTEROP_KEEP_DATA:-}" ] && rm -rf "$WORK"
  [ "$FAILED" = 0 ] && [ "$PASSED" -gt 0 ]
}

PORT="$(free_port)"
REST="http://127.0.0.1:$PORT"
cat > "$WORK/worker.properties" <<EOF
bootstrap.servers=$BOOTSTRAP
group.id=interop-connect-$RUN
key.converter=org.apache.kafka.connect.storage.StringConverter
value.converter=org.apache.kafka.connect.storage.StringConverter
config.storage.topic=interop-connect-$RUN-configs
offset.storage.topic=interop-connect-$RUN-offsets
status.storage.topic=interop-connect-$RUN-status
config.storage.replication.factor=1
offset.storage.replication.factor=1
status.storage.replication.factor=1
offset.storage.partitions=3
status.storage.partitions=1
offset.flush.interval.ms=500
listeners=http://127.0.0.1:$PORT
plugin.discovery=only_scan
EOF
cat > "$WORK/log4j2.properties" <<'EOF'
rootLogger.level=WARN
rootLogger.appenderRef.file.ref=FILE
appender.file.type=File
appender.file.name=FILE
appender.file.fileName=${sys:connect.log.file}
appender.file.layout.type=PatternLayout
appender.file.layout.pattern=[%d] %p %m (%c)%n
EOF

start_worker() {
  java -Xmx512m -Dlog4j2.configurationFile="$WORK/log4j2.properties" -Dconnect.log.file="$WORK/worker-$1.log" \
    -cp "$HERE/target/classes:$HERE/target/lib/*" org.apache.kafka.connect.cli.ConnectDistributed "$WORK/worker.properties" \
    > "$WORK/worker-$1.out" 2>&1 < /dev/null &
  WORKER_PID=$!
  local deadline=$((SECONDS + WAIT))
  until curl -sf "$REST/connectors" > /dev/null 2>&1; do
    if ! kill -0 "$WORKER_PID" 2> /dev/null; then
      echo "worker $1 exited:"; tail -n 20 "$WORK/worker-$1.log" "$WORK/worker-$1.out"; WORKER_PID=""; return 1
    fi
    if [ $SECONDS -ge $deadline ]; then echo "worker $1: no REST answer within ${WAIT}s"; return 1; fi
    sleep 0.5
  done
}
stop_worker() {
  [ -n "$WORKER_PID" ] || return 0
  kill "$WORKER_PID" 2> /dev/null
  for _ in $(seq 1 60); do kill -0 "$WORKER_PID" 2> /dev/null || break; sleep 0.5; done
  kill -9 "$WORKER_PID" 2> /dev/null
  wait "$WORKER_PID" 2> /dev/null
  WORKER_PID=""
}
# wait_for DESCRIPTION COMMAND...: runs COMMAND until it succeeds, within WAIT seconds.
wait_for() {
  local what="$1"; shift
  local deadline=$((SECONDS + WAIT))
  until "$@"; do
    if [ $SECONDS -ge $deadline ]; then fail "$what (not within ${WAIT}s)"; return 1; fi
    sleep 0.5
  done
  pass "$what"
}
same_file() { [ -f "$WORK/out.txt" ] && cmp -s "$WORK/in.txt" "$WORK/out.txt"; }
both_running() {
  local c
  for c in file-source file-sink; do
    curl -sf "$REST/connectors/$c/status" | python3 -c '
import json, sys
s = json.load(sys.stdin)
ok = s["connector"]["state"] == "RUNNING" and s["tasks"] and all(t["state"] == "RUNNING" for t in s["tasks"])
sys.exit(0 if ok else 1)' 2> /dev/null || return 1
  done
}
connectors_listed() {
  [ "$(curl -sf "$REST/connectors" | python3 -c 'import json, sys; print(",".join(sorted(json.load(sys.stdin))))' 2> /dev/null)" = "file-sink,file-source" ]
}
create_connector() {
  curl -sf -X PUT -H 'Content-Type: application/json' --data "$2" "$REST/connectors/$1/config" > /dev/null
}

TOPIC="interop-connect-$RUN-lines"
for i in $(seq 1 100); do echo "line $i of the first run"; done > "$WORK/in.txt"

if ! start_worker 1; then fail "the worker starts (its compacted config, offset and status topics)"; finish; exit; fi
pass "the worker starts (its compacted config, offset and status topics)"
create_connector file-source "{\"connector.class\":\"org.apache.kafka.connect.file.FileStreamSourceConnector\",\"tasks.max\":\"1\",
  \"file\":\"$WORK/in.txt\",\"topic\":\"$TOPIC\",\"topic.creation.default.replication.factor\":\"1\",
  \"topic.creation.default.partitions\":\"1\"}" || fail "creating the source connector"
create_connector file-sink "{\"connector.class\":\"org.apache.kafka.connect.file.FileStreamSinkConnector\",\"tasks.max\":\"1\",
  \"file\":\"$WORK/out.txt\",\"topics\":\"$TOPIC\"}" || fail "creating the sink connector"
wait_for "both connectors RUNNING" both_running
wait_for "the sink's file holds the 100 lines the source read" same_file
# A stopped worker (SIGTERM) flushes the source's offset and commits the sink's.
stop_worker

for i in $(seq 1 50); do echo "line $i of the second run"; done >> "$WORK/in.txt"
if ! start_worker 2; then fail "a second worker starts on the same topics"; finish; exit; fi
pass "a second worker starts on the same topics"
wait_for "the connectors' configs come back from the config topic" connectors_listed
wait_for "both connectors RUNNING again (status topic)" both_running
wait_for "the sink's file is the source's 150 lines exactly (offsets resumed, nothing twice)" same_file
finish
