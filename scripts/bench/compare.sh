#!/usr/bin/env bash
# compare.sh OUTDIR — the same `karst bench` modes against Karst and against
# Apache Kafka 4.4.0 (interop/kafka/start.sh; KAFKA_VERSION picks another), on this machine, one broker at a
# time, alternating which goes first, REPS times. Besides `karst bench`, the
# clients Karst did not write measure both: Kafka's own
# kafka-producer-perf-test and kafka-consumer-perf-test (from the tools jar
# of the same Kafka), and a franz-go client at its default settings
# (scripts/bench/plainclient). Every mode records the broker's CPU seconds
# (utime+stime from /proc/PID/stat) and, where it moved records, CPU seconds
# per GB: on this shared 2-core machine that holds still where MB/s does not.
#
# Writes to OUTDIR:
#   results.txt   every result line (key=value), tagged broker= and rep=
#   results.csv   the same as CSV
#   summary.md    median per mode per broker, and the Karst/Kafka ratio
#   *.png         throughput, latency and memory plots (needs matplotlib, which
#                 is pip-installed into scripts/bench/.venv; skipped if that fails)
#
# Environment: REPS (3), MODES (apiversions connections produce consume
# consume-raw consume3 produce100 plain-produce plain-consume perf-produce
# perf-consume e2e startup; also produce1000p, not in the default,
# measured after WARMUP_1000P (30s) of the same load), WARMUP_RECORDS (records
# of 1 KiB each broker is given, produced and read back, plus 5 s of 100-byte
# records, on topics of their own before any mode is measured; 2000000, 0 for
# none), CONSUME_RECORDS (records of 1 KiB written untimed to a topic of
# their own for the consume modes to read, the same for both brokers;
# 4000000), DURATION per timed mode (10s, at most 30s), CONNS for the
# connections mode (1000), BUFFER_BYTES produce100's buffer.memory (32 MiB),
# PERF_RECORDS (records of 1 KiB kafka-producer-perf-test sends: 2000000),
# PERF_PRODUCER_PROPS ("acks=all linger.ms=5 batch.size=262144"),
# KARST_BIN (a karst with `bench`; default: built from this tree), BROKERS
# ("karst kafka"), KARST_ARGS and KAFKA_ARGS (broker settings, see lib.sh;
# KARST_ARGS defaults to group.initial.rebalance.delay.ms=0, which
# interop/kafka/start.sh gives Kafka, so a group consumer's first join waits
# the same on both).
# A mode a broker cannot do (Karst before its data path lands) is recorded
# as failed with its error; the script goes on.
set -uo pipefail
source "$(dirname "$0")/lib.sh"

if [ $# -ne 1 ]; then sed -n '2,20p' "$0" >&2; exit 2; fi
OUT="$1"; mkdir -p "$OUT"; OUT="$(cd "$OUT" && pwd)"
REPS="${REPS:-3}"
MODES="${MODES:-apiversions connections produce consume consume-raw consume3 produce100 plain-produce plain-consume perf-produce perf-consume e2e startup}"
PERF_RECORDS="${PERF_RECORDS:-2000000}"
PERF_PRODUCER_PROPS="${PERF_PRODUCER_PROPS:-acks=all linger.ms=5 batch.size=262144}"
export KARST_ARGS="${KARST_ARGS---override group.initial.rebalance.delay.ms=0}"
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
PLAIN="$WORK/plainclient"
(cd "$REPO_ROOT" && go build -o "$PLAIN" ./scripts/bench/plainclient) || { echo "compare: building plainclient failed" >&2; exit 1; }
ensure_kafka_jars || exit 1
RESULTS="$OUT/results.txt"; : > "$RESULTS"
LOAD_AT_START="$(cut -d' ' -f1-3 /proc/loadavg)"

# kafka_settings prints the server.properties lines start.sh writes that
# change a Kafka default the modes can meet.
kafka_settings() {
  grep -oE '^(group.initial.rebalance.delay.ms|message.max.bytes|num.partitions|offsets.topic.num.partitions)=[0-9]+' \
    "$KAFKA_DIR/start.sh" | tr '\n' ' ' | sed 's/ $//'
}

# run_mode BROKER REP PID PORT MODE: one mode against a running broker; a
# failure is a result line with error=..., never the end of the script.
run_mode() {
  local broker="$1" rep="$2" pid="$3" port="$4" mode="$5"
  local ticks_before out; ticks_before="$(cpu_ticks "$pid")"
  case "$mode" in
    plain-* | perf-*) out="$(run_client_mode "$broker" "$rep" "$port" "$mode")" ;;
    *) out="$(run_bench_mode "$broker" "$rep" "$pid" "$port" "$mode")" ;;
  esac
  echo "$out $(cpu_fields "$out" "$ticks_before" "$(cpu_ticks "$pid")")" | tee -a "$RESULTS"
}

# run_bench_mode BROKER REP PID PORT MODE prints the result line of one
# `karst bench` mode.
run_bench_mode() {
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
    # The same records read by three franz-go clients at once, two
    # partitions each, so that one client's record building is not the limit.
    consume3)    args+=(-duration "$DURATION" -records "$CONSUME_RECORDS" -topic bench-consume -consumers 3) ;;
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
  tool_mode="${tool_mode%3}" # consume3 is consume with -consumers 3
  local out; out="$(timeout 120 "$KARST" bench "$tool_mode" "${args[@]}" 2>"$WORK/stderr")"
  local rc=$?
  failed_line "$mode" "$rc" "$broker" "$rep" "$out"
}

# failed_line MODE RC BROKER REP OUT prints OUT, or when it is empty (the
# client crashed or timed out) one line marked failed with its stderr.
failed_line() {
  if [ -n "$5" ]; then echo "$5"; return; fi
  echo "mode=$1 error=\"exit $2: $(tr '\n"' ' ' < "$WORK/stderr" | tail -c 200)\" broker=$3 rep=$4"
}

# run_client_mode BROKER REP PORT MODE prints the result line of a client
# Karst did not write: plain-produce and plain-consume are franz-go at its
# defaults; perf-produce and perf-consume are Kafka's perf tools, whose
# summaries are turned into the same key=value fields.
run_client_mode() {
  local broker="$1" rep="$2" port="$3" mode="$4" out="" rc
  local tags="broker=$broker rep=$rep"
  case "$mode" in
    plain-produce)
      ensure_topic "$port" bench-plain
      out="$(timeout 120 "$PLAIN" produce -brokers "127.0.0.1:$port" -topic bench-plain -records 5000000 \
        -duration "$DURATION" 2>"$WORK/stderr")"; rc=$?
      [ -n "$out" ] && out="$out partitions=6 $tags" ;;
    plain-consume) # bounded by the records, not DURATION: the same bytes from both
      out="$(timeout 120 "$PLAIN" consume -brokers "127.0.0.1:$port" -topic bench-consume -records "$CONSUME_RECORDS" \
        -duration 100s 2>"$WORK/stderr")"; rc=$?
      [ -n "$out" ] && out="$out $tags" ;;
    perf-produce)
      ensure_topic "$port" bench-perf
      # shellcheck disable=SC2086 # PERF_PRODUCER_PROPS is a list of key=value
      timeout 300 java -Xmx512m -cp "$(kafka_classpath)" -Dlog4j2.configurationFile="$KAFKA_DIR/tools-log4j2.properties" \
        org.apache.kafka.tools.ProducerPerformance --bootstrap-server "127.0.0.1:$port" --topic bench-perf \
        --num-records "$PERF_RECORDS" --record-size 1024 --throughput -1 \
        --command-property $PERF_PRODUCER_PROPS > "$WORK/perf.out" 2>"$WORK/stderr"; rc=$?
      out="$(perf_produce_line < "$WORK/perf.out")"
      [ -n "$out" ] && out="$out $tags" ;;
    perf-consume)
      timeout 300 java -Xmx512m -cp "$(kafka_classpath)" -Dlog4j2.configurationFile="$KAFKA_DIR/tools-log4j2.properties" \
        org.apache.kafka.tools.ConsumerPerformance --bootstrap-server "127.0.0.1:$port" --topic bench-consume \
        --num-records "$CONSUME_RECORDS" --group "perf-consume-$rep" --timeout 60000 \
        > "$WORK/perf.out" 2>"$WORK/stderr"; rc=$?
      out="$(perf_consume_line < "$WORK/perf.out")"
      [ -n "$out" ] && out="$out $tags" ;;
  esac
  failed_line "$mode" "$rc" "$broker" "$rep" "$out"
}

# (%.0f, not %d: mawk's %d stops at 2^31-1, and 4,000,000 records of 1 KiB
# are more bytes than that.)
# perf_produce_line turns kafka-producer-perf-test's last summary line
# ("2000000 records sent, 196271.6 records/sec (191.67 MB/sec), 121.3 ms avg
# latency, 702.0 ms max latency, 118 ms 50th, 401 ms 95th, 560 ms 99th,
# 690 ms 99.9th.") into result fields.
perf_produce_line() {
  grep 'records sent' | tail -n 1 | tr -d ',()' | awk '{
    printf "mode=produce client=perf-test record_size=1024 partitions=6 records=%.0f bytes=%.0f records_per_s=%s mb_per_s=%s avg_ms=%s max_ms=%s p50_ms=%s p95_ms=%s p99_ms=%s p999_ms=%s",
      $1, $1 * 1024, $4, $6, $8, $12, $16, $19, $22, $25 }'
}

# perf_consume_line turns kafka-consumer-perf-test's CSV line (start.time,
# end.time, data.consumed.in.MB, MB.sec, data.consumed.in.nMsg, nMsg.sec,
# rebalance.time.ms, fetch.time.ms, fetch.MB.sec, fetch.nMsg.sec) into
# result fields; mb_per_s is the fetch rate (without the group join).
perf_consume_line() {
  awk -F', *' 'NF >= 10 && $3 ~ /^[0-9.]+$/ {
    printf "mode=consume client=perf-test records=%.0f bytes=%.0f mb_per_s=%s records_per_s=%s rebalance_ms=%s fetch_ms=%s total_mb_per_s=%s",
      $5, $3 * 1048576, $9, $10, $7, $8, $4 }' | tail -n 1
}

# ensure_topic PORT TOPIC creates TOPIC with 6 partitions unless it exists
# (both brokers' num.partitions is 1 here).
ensure_topic() {
  "$KARST" topic create "$2" --partitions 6 --bootstrap-server "127.0.0.1:$1" > "$WORK/topic.out" 2>&1 || true
}

# cpu_ticks PID prints the utime+stime of PID and its stime alone, in clock ticks (fields 14 and
# 15 of /proc/PID/stat, counted after the command name, which may hold
# spaces).
cpu_ticks() { sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | awk '{print $12 + $13, $13}'; }

# cpu_fields LINE BEFORE AFTER prints broker_cpu_s and its kernel part
# broker_sys_s, both per GB (when LINE has bytes=), and the 1-minute load
# average. The kernel part shows what the broker's own code does not decide:
# on this virtual machine writing into page cache the host has taken back
# costs a fault in the host per page (scripts/bench/README.md).
cpu_fields() {
  local hz; hz="$(getconf CLK_TCK)"
  local bytes; bytes="$(grep -o ' bytes=[0-9]*' <<< " $1" | head -n 1 | cut -d= -f2)"
  awk -v b="$2" -v a="$3" -v hz="$hz" -v bytes="${bytes:-0}" -v load="$(cut -d' ' -f1 /proc/loadavg)" 'BEGIN {
    split(b, before, " "); split(a, after, " ")
    cpu = (after[1] - before[1]) / hz; sys = (after[2] - before[2]) / hz
    printf "broker_cpu_s=%.2f broker_sys_s=%.2f", cpu, sys
    if (bytes > 0) printf " broker_cpu_s_per_gb=%.3f broker_sys_s_per_gb=%.3f", cpu / (bytes / 1073741824), sys / (bytes / 1073741824)
    printf " load1=%s", load }'
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
    version=""; [ "$broker" = kafka ] && version=" version=$(kafka_version "$data")"
    echo "mode=idle rss_kb=$(rss_kb "$pid") broker=$broker rep=$rep$version" | tee -a "$RESULTS"
    warm_up "$port"
    filled=""
    for mode in $MODES; do
      [ "$mode" = startup ] && continue
      case "$mode" in *consume*) [ -n "$filled" ] || { fill_consume "$port"; filled=1; } ;; esac
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
Clients Karst did not write: produce-franz-plain / consume-franz-plain = a franz-go client at its defaults
(scripts/bench/plainclient: acks=all, idempotent, linger 10 ms, snappy, 1 KiB random records, 6 partitions,
for $DURATION; the consumer reads the same $CONSUME_RECORDS records from the start, no group);
produce-perf-test = kafka-producer-perf-test $KAFKA_VERSION, $PERF_RECORDS x 1 KiB, \`$PERF_PRODUCER_PROPS\`, 6 partitions;
consume-perf-test = kafka-consumer-perf-test $KAFKA_VERSION reading the $CONSUME_RECORDS records in a new group (MB/s is its
fetch rate, without the group join).
Broker CPU: utime+stime of the broker process (/proc/PID/stat) over each mode; s/GB divides it by the record bytes moved.
Load average (1 min) at the start of the run: $LOAD_AT_START; each result line carries load1 at its end (results.txt).
Kafka is Apache Kafka $KAFKA_VERSION. Broker settings beyond the defaults: Karst \`${KARST_ARGS:-none}\`;
Kafka (interop/kafka/start.sh) \`$(kafka_settings)\` plus \`${KAFKA_ARGS:-none}\`, heap -Xms256m -Xmx1g G1.
NOTES
} > "$OUT/summary.md"
cat "$OUT/summary.md"
PY="$(bench_python)"
if [ -n "$PY" ]; then
  "$PY" "$BENCH_DIR/report.py" plots "$RESULTS" "$OUT" && ls "$OUT"/*.png
else
  echo "plots skipped: matplotlib could not be installed with pip (see \${TMPDIR:-/tmp}/karst-bench-venv.log)" | tee -a "$OUT/summary.md"
fi
