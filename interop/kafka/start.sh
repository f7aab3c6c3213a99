#!/usr/bin/env bash
# start.sh DATA_DIR PORT [key=value ...]
# Formats DATA_DIR and starts a single-node KRaft Apache Kafka (broker+controller) in the
# background, client listener on 127.0.0.1:PORT, controller on another loopback port.
# Extra key=value arguments are appended to server.properties (e.g. auto.create.topics.enable=false).
# Waits (bounded, KAFKA_START_TIMEOUT seconds, default 90) until the broker has started.
set -euo pipefail
source "$(dirname "$0")/common.sh"

if [ $# -lt 2 ]; then echo "usage: $0 DATA_DIR PORT [key=value ...]" >&2; exit 2; fi
DATA_DIR="$1"; PORT="$2"; shift 2
START_TIMEOUT="${KAFKA_START_TIMEOUT:-90}"
CONTROLLER_PORT="${KAFKA_CONTROLLER_PORT:-$(free_port)}"
# A fixed cluster id keeps formatting deterministic across runs.
CLUSTER_ID="${KAFKA_CLUSTER_ID:-a2Fyc3RJbnRlcm9wVGVzdA}"

ensure_kafka_jars
mkdir -p "$DATA_DIR"
DATA_DIR="$(cd "$DATA_DIR" && pwd)"
PID_FILE="$DATA_DIR/kafka.pid"
if [ -f "$PID_FILE" ] && kill -0 "$(cat "$PID_FILE")" 2>/dev/null; then
  echo "kafka already running in $DATA_DIR (pid $(cat "$PID_FILE"))" >&2; exit 1
fi
if port_open 127.0.0.1 "$PORT"; then echo "port $PORT is already in use" >&2; exit 1; fi

mkdir -p "$DATA_DIR/logs" "$DATA_DIR/data"
CONF="$DATA_DIR/server.properties"
cat > "$CONF" <<CONF
process.roles=broker,controller
node.id=1
controller.quorum.voters=1@127.0.0.1:$CONTROLLER_PORT
listeners=PLAINTEXT://127.0.0.1:$PORT,CONTROLLER://127.0.0.1:$CONTROLLER_PORT
advertised.listeners=PLAINTEXT://127.0.0.1:$PORT
inter.broker.listener.name=PLAINTEXT
controller.listener.names=CONTROLLER
listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT
log.dirs=$DATA_DIR/data
num.partitions=1
offsets.topic.replication.factor=1
offsets.topic.num.partitions=3
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
transaction.state.log.num.partitions=3
share.coordinator.state.topic.replication.factor=1
share.coordinator.state.topic.min.isr=1
group.initial.rebalance.delay.ms=0
message.max.bytes=2097152
CONF
for kv in "$@"; do echo "$kv" >> "$CONF"; done

CP="$(kafka_classpath)"
JAVA_OPTS=(-Xms256m -Xmx1g -XX:+UseG1GC -Djava.awt.headless=true
  -Dkafka.logs.dir="$DATA_DIR/logs"
  -Dlog4j2.configurationFile="$KAFKA_HOME_DIR/log4j2.properties")

if [ ! -f "$DATA_DIR/data/meta.properties" ]; then
  timeout 120 java "${JAVA_OPTS[@]}" -cp "$CP" kafka.tools.StorageTool format \
    -t "$CLUSTER_ID" -c "$CONF" --ignore-formatted > "$DATA_DIR/logs/format.out" 2>&1 || {
    echo "kafka storage format failed:" >&2; cat "$DATA_DIR/logs/format.out" >&2; exit 1; }
fi

nohup java "${JAVA_OPTS[@]}" -cp "$CP" kafka.Kafka "$CONF" \
  > "$DATA_DIR/logs/stdout.log" 2>&1 < /dev/null &
echo $! > "$PID_FILE"
PID=$(cat "$PID_FILE")

deadline=$((SECONDS + START_TIMEOUT))
until port_open 127.0.0.1 "$PORT" && grep -q "Kafka Server started" "$DATA_DIR/logs/server.log" 2>/dev/null; do
  if ! kill -0 "$PID" 2>/dev/null; then
    echo "kafka exited during startup; last log lines:" >&2
    tail -n 30 "$DATA_DIR/logs/server.log" "$DATA_DIR/logs/stdout.log" >&2 2>/dev/null || true
    rm -f "$PID_FILE"; exit 1
  fi
  if [ $SECONDS -ge $deadline ]; then
    echo "kafka did not start within ${START_TIMEOUT}s" >&2
    kill "$PID" 2>/dev/null || true; exit 1
  fi
  sleep 0.5
done
echo "kafka started: pid $PID, bootstrap 127.0.0.1:$PORT, controller 127.0.0.1:$CONTROLLER_PORT, data $DATA_DIR"
