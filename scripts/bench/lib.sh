# Sourced by the scripts in scripts/bench: building the tool, and starting and
# stopping a Karst or an Apache Kafka broker on a loopback port. Every broker a
# script starts is recorded and stopped by bench_cleanup (trap it on EXIT).
BENCH_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO_ROOT="$(cd "$BENCH_DIR/../.." && pwd)"
KAFKA_DIR="$REPO_ROOT/interop/kafka"
# shellcheck source=../../interop/kafka/common.sh
source "$KAFKA_DIR/common.sh"

BENCH_KARST_PIDS=()
BENCH_KAFKA_DIRS=()

# bench_build sets KARST to a karst binary that has the bench subcommand:
# $KARST_BIN if set, else one built from this tree into $1.
bench_build() {
  if [ -n "${KARST_BIN:-}" ]; then KARST="$KARST_BIN"; else
    KARST="$1/karst-bin"
    (cd "$REPO_ROOT" && go build -o "$KARST" ./cmd/karst) || { echo "bench: go build failed" >&2; return 1; }
  fi
  if ! "$KARST" bench help >/dev/null 2>&1; then
    echo "bench: $KARST has no 'bench' subcommand (is it wired into cmd/karst/main.go?)" >&2; return 1
  fi
}

# karst_cmd DATA PORT prints the argv that serves Karst there, one per line.
# KARST_ARGS adds arguments, e.g. "--override log.flush.interval.messages=9223372036854775807"
# for Kafka's page-cache durability (fsync off) instead of Karst's fsync per ack.
karst_cmd() {
  printf '%s\n' "$KARST" serve --override "listeners=PLAINTEXT://127.0.0.1:$2" --override "log.dirs=$1/data"
  # shellcheck disable=SC2086 # KARST_ARGS is a list of arguments
  [ -z "${KARST_ARGS:-}" ] || printf '%s\n' ${KARST_ARGS}
  # KARST_ARGV, an array, adds arguments that hold spaces (a JAAS value).
  [ -z "${KARST_ARGV[*]+set}" ] || printf '%s\n' "${KARST_ARGV[@]}"
}

# start_karst DATA PORT starts Karst in the background, waits (bounded) until
# it answers ApiVersions, and sets BROKER_PID.
start_karst() {
  local data="$1" port="$2"
  mkdir -p "$data/data"
  local cmd; mapfile -t cmd < <(karst_cmd "$data" "$port")
  "${cmd[@]}" > "$data/karst.log" 2>&1 < /dev/null &
  BROKER_PID=$!
  BENCH_KARST_PIDS+=("$BROKER_PID")
  wait_answering "$port" "$BROKER_PID" || { tail -n 20 "$data/karst.log" >&2; return 1; }
}

# start_kafka DATA PORT starts Apache Kafka $KAFKA_VERSION (4.4.0 unless set) with interop/kafka/start.sh and
# sets BROKER_PID. KAFKA_ARGS adds server.properties lines, e.g.
# "log.flush.interval.messages=1" (Kafka's fsync on every append, the
# durability Karst has by default); KAFKA_ARGV, an array, adds lines that hold
# spaces (a JAAS value).
start_kafka() {
  local data="$1" port="$2"
  BENCH_KAFKA_DIRS+=("$data")
  # shellcheck disable=SC2086 # KAFKA_ARGS is a list of key=value arguments
  "$KAFKA_DIR/start.sh" "$data" "$port" ${KAFKA_ARGS:-} ${KAFKA_ARGV[@]+"${KAFKA_ARGV[@]}"} > "$data.start.log" 2>&1 || { cat "$data.start.log" >&2; return 1; }
  BROKER_PID="$(cat "$data/kafka.pid")"
  wait_answering "$port" "$BROKER_PID"
}

# kafka_version DATA prints the version the Kafka started in DATA logged at start
# ("Kafka version: 4.4.0" in DATA/logs/server.log): the release that ran, whatever
# KAFKA_VERSION says; nothing if the log has no such line.
kafka_version() {
  sed -n 's/.*Kafka version: \([^ ]*\).*/\1/p' "$1/logs/server.log" 2>/dev/null | head -n 1
}

# kafka_cmd DATA prints the argv that runs the Kafka that start.sh set up in
# DATA (already formatted), in the foreground, one per line.
kafka_cmd() {
  printf '%s\n' java -Xms256m -Xmx1g -XX:+UseG1GC -Djava.awt.headless=true \
    "-Dkafka.logs.dir=$1/logs" "-Dlog4j2.configurationFile=$KAFKA_DIR/log4j2.properties" \
    -cp "$(kafka_classpath)" kafka.Kafka "$1/server.properties"
}

# wait_answering PORT PID waits at most 60 s until ApiVersions is answered.
wait_answering() {
  local deadline=$((SECONDS + 60))
  until "$KARST" bench apiversions -brokers "127.0.0.1:$1" -conns 1 -requests 1 >/dev/null 2>&1; do
    if ! kill -0 "$2" 2>/dev/null; then echo "bench: broker pid $2 exited during start" >&2; return 1; fi
    if [ $SECONDS -ge $deadline ]; then echo "bench: broker on port $1 not answering after 60s" >&2; return 1; fi
    sleep 0.2
  done
}

# stop_broker NAME DATA PID stops a broker that start_karst or start_kafka started.
stop_broker() {
  case "$1" in
    karst)
      kill "$3" 2>/dev/null || true
      for _ in $(seq 1 100); do kill -0 "$3" 2>/dev/null || break; sleep 0.1; done
      kill -9 "$3" 2>/dev/null || true
      wait "$3" 2>/dev/null || true ;;
    kafka) "$KAFKA_DIR/stop.sh" "$2" >/dev/null 2>&1 || true ;;
  esac
}

# rss_kb PID prints VmRSS in KiB.
rss_kb() { awk '/^VmRSS:/ {print $2}' "/proc/$1/status" 2>/dev/null || echo 0; }

bench_cleanup() {
  local p d
  for p in "${BENCH_KARST_PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
  for d in "${BENCH_KAFKA_DIRS[@]}"; do [ -f "$d/kafka.pid" ] && "$KAFKA_DIR/stop.sh" "$d" >/dev/null 2>&1; done
  return 0
}

# bench_python prints a python3 that has matplotlib: the venv in
# scripts/bench/.venv, created with pip on first use. Empty if pip cannot.
bench_python() {
  local venv="$BENCH_DIR/.venv"
  if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c 'import matplotlib' 2>/dev/null; then
    { python3 -m venv "$venv" && timeout 300 "$venv/bin/pip" install -q matplotlib; } > "${TMPDIR:-/tmp}/karst-bench-venv.log" 2>&1 || true
  fi
  if "$venv/bin/python" -c 'import matplotlib' 2>/dev/null; then echo "$venv/bin/python"; fi
}
