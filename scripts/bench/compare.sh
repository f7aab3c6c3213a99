#!/usr/bin/env bash
# compare.sh OUTDIR — the same `karst bench` modes against Karst and against
# Apache Kafka 4.4.0 (interop/kafka/start.sh; KAFKA_VERSION picks another), on this machine, one broker at a
# time, alternating which goes first, REPS times.
#
# Writes to OUTDIR:
#   results.txt   every result line (key=value), tagged broker= and rep=
#   results.csv   the same as CSV
#   summary.md    median per mode per broker, and the Karst/Kafka ratio
#   *.png         throughput, latency and memory plots (needs matplotlib, which
#                 is pip-installed into scripts/bench/.venv; skipped if that fails)
#
# Environment: REPS (3), MODES (apiversions connections produce consume
# consume-raw produce100 e2e startup; also produce1000p, not in the default,
# measured after WARMUP_1000P (30s) of the same load), WARMUP_RECORDS (records
# of 1 KiB each broker is given, produced and read back, plus 5 s of 100-byte
# records, on topics of their own before any mode is measured; 2000000, 0 for
# none), CONSUME_RECORDS (records of 1 KiB written untimed to a topic of
# their own for the consume modes to read, the same for both brokers;
# 4000000), DURATION per timed mode (10s, at most 30s), CONNS for the
# connections mode (1000), BUFFER_BYTES produce100's buffer.memory (32 MiB),
# KARST_BIN (a karst with `bench`; default: built from this tree), BROKERS
# ("karst kafka"), KARST_ARGS and KAFKA_ARGS (broker settings, see lib.sh).
# A mode a broker cannot do (Karst before its data path lands) is recorded
# as failed with its error; the script goes on.
set -uo pipefail
source "$(dirname "$0")/lib.sh"

if [ $# -ne 1 ]; then sed -n '2,20p' "$0" >&2; exit 2; fi
OUT="$1"; mkdir -p "$OUT"; OUT="$(cd "$OUT" && pwd)"
REPS="${REPS:-3}"
MODES="${MODES:-apiversions connections produce consume consume-raw produce100 e2e startup}"
DURATION="${DURATION:-10s}"
CONNS="${CONNS:-1000}"
WARMUP_1000P="${WARMUP_1000P:-30s}"
WARMUP_RECORDS="${WARMUP_RECORDS:-2000000}"
CONSUME_RECORDS="${CONSUME_RECORDS:-4000000}"
BROKERS="${BROKERS:-karst kafka}"
# With 100-byte records the producer buffers this many record bytes before
# Produce blocks: Kafka's producer default (buffer.memory, 32 MiB), in place
# of franz-go's default 10,000-record cap, which held each produce request to
# 1 MB of 100-byte records and made that case measure round trips rather
# than the brokers (it lifted both: Kafka ~1.5M -> 1.6-1.9M rec/s, Karst
# 1.7M -> 2.6M in one run). With 1 KiB records the cap does not bind (10 MB
# is more than one request carries: 6 partitions x 1 MB batches), so that
# case keeps franz-go's defaults.
# BUFFER_BYTES=0 keeps franz-go's default (and works with an older karst).
BUFFER_BYTES="${BUFFER_BYTES:-33554432}"
BUFFER_ARGS=()
if [ "$BUFFER_BYTES" != 0 ]; then BUFFER_ARGS=(-max-buffered-bytes "$BUFFER_BYTES"); fi
WORK="$(mktemp -d /tmp/karst-compare.XXXXXX)"
trap 'bench_cleanup; rm -rf "$WORK"' EXIT
bench_build "$WORK" || exit 1
RESULTS="$OUT/results.txt"; : > "$RESULTS"

# run_mode BROKER REP PID PORT MODE: one mode against a running broker; a
# failure is a result line with error=..., never the end of the script.
run_mode() {
  local broker="$1" rep="$2" pid="$3" port="$4" mode="$5"
  local args=(-brokers "127.0.0.1:$port" -pid "$pid" -tag "broker=$broker" -tag "rep=$rep")
  case "$mode" in
    apiversions) args+=(-conns 1,64 -requests 100000000 -duration "$DURATION") ;;
    connections) args+=(-conns "$CONNS") ;;
    produce)     args+=(-duration "$DURATION" -records 5000000 -topic bench-compare) ;;
    produce100)  args+=(-duration "$DURATION" -records 50000000 -record-size 100 "${BUFFER_ARGS[@]}" -topic bench-compare-100) ;;
    # Many partitions: 1 KiB records spread over 1,000 partitions, so each
    # produce request carries many small batches.
    produce1000p) args+=(-duration "$DURATION" -records 5000000 -partitions 1000 -topic bench-compare-1000p) ;;
    # Read CONSUME_RECORDS records of 1 KiB from the start, the same number
    # from both brokers (fill_consume wrote them), bounded by DURATION.
    consume)     args+=(-duration "$DURATION" -records "$CONSUME_RECORDS" -topic bench-consume) ;;
    # The same records again, read by a consumer with no client library
    # (see ConsumeRaw): what the broker serves when the client's record
    # building is not the limit.
    consume-raw) args+=(-duration "$DURATION" -records "$CONSUME_RECORDS" -topic bench-consume -client raw) ;;
    e2e)         args+=(-duration "$DURATION" -rate 10000) ;;
  esac
  if [ "$mode" = produce1000p ]; then
    # Measured warm: a fresh 1,000-partition topic costs both brokers their
    # first touch of 2,000 preallocated index files, and Kafka its JIT
    # warm-up and asynchronous log creation (its first two 10 s runs on a
    # fresh topic read 4-12 MB/s, the third 366 MB/s, in one session).
    timeout 120 "$KARST" bench produce -brokers "127.0.0.1:$port" -duration "$WARMUP_1000P" -records 50000000 \
      -partitions 1000 -topic bench-compare-1000p > "$WORK/warmup.txt" 2>&1
  fi
  local tool_mode="${mode%1000p}" # produce1000p is produce over 1,000 partitions
  tool_mode="${tool_mode%100}" # produce100 is produce with 100-byte records
  tool_mode="${tool_mode%-raw}" # consume-raw is consume with -client raw
  local out; out="$(timeout 120 "$KARST" bench "$tool_mode" "${args[@]}" 2>"$WORK/stderr")"
  local rc=$?
  if [ -z "$out" ]; then # crashed or timed out: still one line, marked failed
    out="mode=$mode error=\"exit $rc: $(tr '\n"' ' ' < "$WORK/stderr" | cut -c1-200)\" broker=$broker rep=$rep"
  fi
  echo "$out" | tee -a "$RESULTS"
}

# fill_consume PORT writes the records the consume modes read: exactly
# CONSUME_RECORDS of 1 KiB, untimed, so both brokers are read over the same
# data. (Reading back what the timed produce mode wrote gave each broker
# its own amount, in one run 2.9-3.9 million records from Karst against
# 2.1-2.3 million from Kafka, and a consumer's start-up weighs less on a
# longer read.)
fill_consume() {
  timeout 300 "$KARST" bench produce -brokers "127.0.0.1:$1" -duration 240s -records "$CONSUME_RECORDS" \
    -topic bench-consume >> "$WORK/warmup.txt" 2>&1 || echo "filling bench-consume on 127.0.0.1:$1 failed (see $WORK/warmup.txt)" >&2
}

# warm_up PORT gives a broker the load the modes measure, on topics of its
# own, before any is measured. Kafka's JIT compiles its hot paths during the
# first seconds of a load: its first franz-go consume after a start read
# 932 MB/s, the next four 1,138-1,497, and it spent 2.54 s of CPU on the
# first against 1.03-1.70 on the others (2026-12-01), so without this a
# fresh JVM's first run of each mode measured its warm-up. Karst gets the
# same load.
warm_up() {
  local port="$1"
  [ "$WARMUP_RECORDS" = 0 ] && return
  {
    timeout 120 "$KARST" bench produce -brokers "127.0.0.1:$port" -duration 30s -records "$WARMUP_RECORDS" -topic bench-warmup
    timeout 120 "$KARST" bench consume -brokers "127.0.0.1:$port" -duration 30s -records "$WARMUP_RECORDS" -topic bench-warmup
    timeout 60 "$KARST" bench produce -brokers "127.0.0.1:$port" -duration 5s -records 50000000 -record-size 100 \
      "${BUFFER_ARGS[@]}" -topic bench-warmup-100
  } >> "$WORK/warmup.txt" 2>&1 || echo "warm-up of 127.0.0.1:$port failed (see $WORK/warmup.txt); measuring anyway" >&2
}

run_startup() {
  local broker="$1" rep="$2" data="$3" port; port="$(free_port)"
  local cmd
  case "$broker" in
    karst) mkdir -p "$data"; mapfile -t cmd < <(karst_cmd "$data" "$port") ;;
    kafka) # formatted by start.sh earlier; listeners point at the old port
      sed -i "s|PLAINTEXT://127.0.0.1:[0-9]*|PLAINTEXT://127.0.0.1:$port|g" "$data/server.properties"
      mapfile -t cmd < <(kafka_cmd "$data") ;;
  esac
  timeout 150 "$KARST" bench startup -brokers "127.0.0.1:$port" -settle 2s -log "$data/startup.log" \
    -tag "broker=$broker" -tag "rep=$rep" -- "${cmd[@]}" | tee -a "$RESULTS"
}

for rep in $(seq 1 "$REPS"); do
  order="$BROKERS"
  if [ $((rep % 2)) -eq 0 ]; then order="$(echo "$BROKERS" | awk '{for (i=NF;i>0;i--) printf "%s ", $i}')"; fi
  for broker in $order; do
    echo "== rep $rep: $broker" >&2
    data="$WORK/$broker-$rep"; mkdir -p "$data"; port="$(free_port)"
    if ! "start_$broker" "$data" "$port"; then
      echo "mode=start error=\"$broker did not start\" broker=$broker rep=$rep" | tee -a "$RESULTS"; continue
    fi
    pid="$BROKER_PID"
    sleep 2 # idle means settled after start, not mid-start
    echo "mode=idle rss_kb=$(rss_kb "$pid") broker=$broker rep=$rep" | tee -a "$RESULTS"
    warm_up "$port"
    filled=""
    for mode in $MODES; do
      [ "$mode" = startup ] && continue
      case "$mode" in consume*) [ -n "$filled" ] || { fill_consume "$port"; filled=1; } ;; esac
      run_mode "$broker" "$rep" "$pid" "$port" "$mode"
    done
    stop_broker "$broker" "$data" "$pid"
    case " $MODES " in *" startup "*) run_startup "$broker" "$rep" "$data" ;; esac
    rm -rf "$data" # gigabytes of produced records
  done
done

{
  python3 "$BENCH_DIR/report.py" table "$RESULTS" "$OUT/results.csv"
  cat <<NOTES

Notes: one broker runs at a time on this machine ($(nproc) cores), the load tool beside it.
Warm-up: before any mode, each broker was given $WARMUP_RECORDS records of 1 KiB produced and read back, then 5 s
of 100-byte records, on topics of their own (a fresh JVM compiles its hot paths during the first seconds of load).
Modes: apiversions = raw pipelined ApiVersions (window 64 per connection), $DURATION each;
connections = $CONNS idle connections (RSS is the OS's view: a JVM's heap is reserved up front,
so Kafka's per-connection figure understates its cost); produce = 1 KiB random records, acks=all,
idempotent, linger 5 ms, 6 partitions, for $DURATION (produce-100B: the same with 100-byte
records and buffer.memory $BUFFER_BYTES bytes; 0 means franz-go's 10,000-record cap; produce-1000p: 1 KiB records
over 1,000 partitions, measured after $WARMUP_1000P of the same load); consume = read $CONSUME_RECORDS records of 1 KiB
(written untimed beforehand, the same number to both brokers) from the start, no group, with franz-go's consumer (consume-raw: the same with the load tool's raw
consumer, one Fetch in flight, CRCs checked, records walked in place); e2e = 10,000 records/s of 1 KiB for $DURATION, first second left out;
startup = restart on the data directory the run just wrote (Karst's may include recovery of it).
Kafka is Apache Kafka $KAFKA_VERSION. Broker settings beyond the defaults: Karst \`${KARST_ARGS:-none}\`, Kafka \`${KAFKA_ARGS:-none}\`.
NOTES
} > "$OUT/summary.md"
cat "$OUT/summary.md"
PY="$(bench_python)"
if [ -n "$PY" ]; then
  "$PY" "$BENCH_DIR/report.py" plots "$RESULTS" "$OUT" && ls "$OUT"/*.png
else
  echo "plots skipped: matplotlib could not be installed with pip (see \${TMPDIR:-/tmp}/karst-bench-venv.log)" | tee -a "$OUT/summary.md"
fi
