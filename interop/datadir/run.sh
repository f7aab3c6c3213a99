#!/usr/bin/env bash
# interop/datadir/run.sh — the data directory is Apache Kafka's own format, both ways.
#
# Each scenario writes topics (3 partitions, config overrides) and records (keys, values,
# headers, timestamps; none/gzip/snappy/lz4/zstd batches; an idempotent producer) with one
# broker, stops it, starts the other broker on the same log dir and checks with a Go client
# (check/) that every topic, topic id, config override and record is served at the same
# offset, that ListOffsets earliest/latest match, that ListOffsets answers (earliest, latest,
# max timestamp -3, and a lookup at every record timestamp, its neighbours and beyond both
# ends) are exactly those the first broker gave on the same data and those the records imply,
# and that new writes continue the offsets (each partition's new largest timestamp inside the
# appended batch). Each verify then records its own answers on the grown data for the next
# broker; leader epochs that differ are printed as "note" lines, not failures:
#   kafka_clean_to_karst   Kafka 4.4 stopped with SIGTERM, then Karst
#   kafka_kill9_to_karst   Kafka 4.4 killed with SIGKILL, then Karst
#   kafka_snapshots_to_karst  Kafka 4.4 taking metadata snapshots all the time, stopped, then Karst
#   karst_to_kafka         Karst stopped with SIGTERM, then Kafka 4.4
#   kafka41_clean_to_karst Kafka 4.1.2 (metadata.version 4.1-IV1) stopped, then Karst, which must
#                          keep the directory at 4.1's level and record versions, then Kafka 4.1.2
#   *_back_to_*            the first broker again, after the second one wrote
#   compact_equivalence    the same keyed input (updates, tombstones, committed and aborted
#                          transactions, several producers) to a compacted topic of Kafka 4.4 and
#                          of Karst, both cleaned: the records each serves are what the input
#                          implies and the same on both (offsets, keys, values, markers); then
#                          Kafka on Karst's cleaned directory and Karst on Kafka's serve the same
#   compact_kill9_to_kafka the same input's first phase to Karst with a throttled cleaner, Karst
#                          killed with SIGKILL while a .cleaned or .swap file exists, then Kafka 4.4
#                          on the directory: every record served is the one written at its offset,
#                          offsets ordered, each key's latest value served, no older value served
#                          without the newer record; prints which of .cleaned/.swap the kill left
# Starts its own brokers on free loopback ports; needs java and the jars of ../kafka (fetch.sh).
# Prints PASS/FAIL per check and "interop-datadir: N passed, M failed".
# DATADIR_SCENARIOS=a,b limits the scenarios; INTEROP_KEEP_DATA=1 keeps the temp dirs;
# DATADIR_KARST_BIN=path uses that Karst binary instead of building ./cmd/karst.
set -uo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
KAFKA="$HERE/../kafka"
# The 4.4.0 reference, which formats at metadata.version 4.4-IV2. Exported: start.sh reads it too.
export KAFKA_VERSION="${DATADIR_KAFKA_VERSION:-4.4.0}"
# The older release of the kafka41 scenario, whose directories stay at 4.1-IV1.
OLD_KAFKA_VERSION=4.1.2
source "$KAFKA/common.sh"
SCENARIOS="${DATADIR_SCENARIOS:-kafka_clean_to_karst,kafka_kill9_to_karst,kafka_snapshots_to_karst,karst_to_kafka,kafka41_clean_to_karst,compact_equivalence,compact_kill9_to_kafka}"
# Kafka settings that make it snapshot __cluster_metadata (NNN-EEE.checkpoint) after nearly every
# commit and roll its segments often, so Karst must start from the newest snapshot.
SNAPSHOT_SETTINGS=(metadata.log.max.record.bytes.between.snapshots=1 metadata.log.max.snapshot.interval.ms=500
  internal.metadata.log.segment.bytes=2048)
WORK="$(mktemp -d /tmp/interop-datadir.XXXXXX)"
PASSED=0; FAILED=0
KARST_PIDS=()
KAFKA_DIRS=()

log() { echo "[datadir] $*" >&2; }
cleanup() {
  for pid in "${KARST_PIDS[@]}"; do kill -9 "$pid" 2> /dev/null || true; done
  for d in "${KAFKA_DIRS[@]}"; do [ -f "$d/kafka.pid" ] && kill -9 "$(cat "$d/kafka.pid")" 2> /dev/null; done
  if [ -z "${INTEROP_KEEP_DATA:-}" ]; then rm -rf "$WORK"; else log "data kept in $WORK"; fi
}
trap cleanup EXIT
pass() { PASSED=$((PASSED + 1)); echo "PASS $1"; }
fail() {
  FAILED=$((FAILED + 1)); echo "FAIL $1"
  if [ -n "${2:-}" ] && [ -f "$2" ]; then sed 's/^/     /' "$2" | tail -n 25; fi
}
has_scenario() { [[ ",$SCENARIOS," == *",$1,"* ]]; }

# ---- brokers. Every scenario directory D holds D/data (log.dirs), D/logs and D/karst.log.
start_kafka() { # DIR NAME [key=value...]
  local dir="$1" name="$2" port; port="$(free_port)"; shift 2
  KAFKA_DIRS+=("$dir")
  # The records carry fixed 2023 timestamps, past every retention.ms here: Kafka's first retention
  # pass (log.initial.task.delay.ms, 30 s, after its start) deleted them on a loaded machine
  # (load average 33) before the other broker read them. An hour keeps it out of the run.
  local start_timeout="${KAFKA_START_TIMEOUT:-90}"
  if KAFKA_START_TIMEOUT="$start_timeout" timeout $((start_timeout + 60)) "$KAFKA/start.sh" "$dir" "$port" auto.create.topics.enable=false \
    log.initial.task.delay.ms=3600000 "$@" > "$dir/start-kafka.out" 2>&1; then
    BOOTSTRAP="127.0.0.1:$port"; pass "$name"
  else
    fail "$name" "$dir/start-kafka.out"; grep -E "ERROR|Exception" "$dir/logs/server.log" 2> /dev/null | head -n 20 | sed 's/^/     /'
    return 1
  fi
}
stop_kafka() { timeout 60 "$KAFKA/stop.sh" "$1" > /dev/null 2>&1; }
kill9_kafka() {
  local pid; pid="$(cat "$1/kafka.pid" 2> /dev/null)" || return 1
  kill -9 "$pid" 2> /dev/null
  for _ in $(seq 1 100); do kill -0 "$pid" 2> /dev/null || break; sleep 0.1; done
  rm -f "$1/kafka.pid"
  ! kill -0 "$pid" 2> /dev/null
}

KARST_PID=""
start_karst() { # DIR NAME [key=value...]
  local port; port="$(free_port)"
  mkdir -p "$1/data"
  local extra=() kv
  for kv in "${@:3}"; do extra+=(--override "$kv"); done
  "$WORK/karst" serve --override "listeners=PLAINTEXT://127.0.0.1:$port" --override "log.dirs=$1/data" \
    --override auto.create.topics.enable=false "${extra[@]}" >> "$1/karst.log" 2>&1 < /dev/null &
  KARST_PID=$!; KARST_PIDS+=("$KARST_PID")
  local deadline=$((SECONDS + 60))
  until port_open 127.0.0.1 "$port"; do
    if ! kill -0 "$KARST_PID" 2> /dev/null || [ $SECONDS -ge $deadline ]; then
      kill -9 "$KARST_PID" 2> /dev/null; fail "$2" "$1/karst.log"; return 1
    fi
    sleep 0.2
  done
  BOOTSTRAP="127.0.0.1:$port"; pass "$2"
}
stop_karst() { # NAME: SIGTERM must end it, with status 0, within 30 s
  kill "$KARST_PID" 2> /dev/null
  local deadline=$((SECONDS + 30))
  while kill -0 "$KARST_PID" 2> /dev/null && [ $SECONDS -lt $deadline ]; do sleep 0.2; done
  if kill -0 "$KARST_PID" 2> /dev/null; then kill -9 "$KARST_PID"; fail "$1"; return 1; fi
  if wait "$KARST_PID"; then pass "$1"; else fail "$1"; fi
}

# ---- checks
count_checks() { # OUT RC NAME: adds the checker's PASS/FAIL lines in OUT to the totals
  cat "$1"
  local p f; p=$(grep -c '^PASS ' "$1"); f=$(grep -c '^FAIL ' "$1"); p=${p:-0}; f=${f:-0}
  PASSED=$((PASSED + p)); FAILED=$((FAILED + f))
  if [ "$2" != 0 ] && [ "$f" = 0 ]; then fail "$3_exit_$2" "$1"; fi
}
produce() { # DIR NAME BROKER(kafka|karst)
  if timeout 150 "$WORK/check" produce -bootstrap "$BOOTSTRAP" -manifest "$1/manifest.json" -broker "$3" > "$1/produce.out" 2>&1; then
    cp "$1/manifest.json" "$1/manifest-produced.json"; pass "$2"
  else fail "$2" "$1/produce.out"; return 1; fi
}
verify() { # DIR SCENARIO BROKER(kafka|karst): one PASS/FAIL line per check, from the checker
  local out="$1/verify-${2//\//_}.out"
  timeout 150 "$WORK/check" verify -bootstrap "$BOOTSTRAP" -manifest "$1/manifest.json" -out "$1/manifest.next.json" \
    -name "$2" -broker "$3" > "$out" 2>&1
  local rc=$?
  count_checks "$out" "$rc" "$2/verify"
  # Each step's manifest stays for INTEROP_KEEP_DATA=1 post-mortems.
  [ -f "$1/manifest.next.json" ] && cp "$1/manifest.next.json" "$1/manifest-after-${2//\//_}.json" &&
    mv "$1/manifest.next.json" "$1/manifest.json"
  [ "$rc" = 0 ]
}

# ---- scenarios
kafka_to_karst() { # NAME clean|kill9 [kafka key=value...]
  local name="$1" how="$2" D="$WORK/$1"; mkdir -p "$D"; shift 2
  start_kafka "$D" "$name/kafka_start" "$@" || return
  produce "$D" "$name/kafka_produce" kafka || { stop_kafka "$D"; return; }
  if [ "$how" = kill9 ]; then
    if kill9_kafka "$D"; then pass "$name/kafka_kill9"; else fail "$name/kafka_kill9"; return; fi
  else
    stop_kafka "$D" && pass "$name/kafka_stop" || fail "$name/kafka_stop"
  fi
  if [ $# -gt 0 ]; then # the snapshot settings: there must be snapshots to start from
    if ls "$D/data/__cluster_metadata-0/" | grep -qE '^[0-9]{20}-[0-9]{10}\.checkpoint$'; then
      pass "$name/kafka_wrote_snapshots"
    else fail "$name/kafka_wrote_snapshots"; fi
  fi
  start_karst "$D" "$name/karst_start" || return
  verify "$D" "$name/karst" karst
  stop_karst "$name/karst_stop" || return
  # Kafka again, on the log Karst continued.
  start_kafka "$D" "$name/back_to_kafka_start" || return
  verify "$D" "$name/back_to_kafka" kafka
  stop_kafka "$D"
}

karst_to_kafka() {
  local name=karst_to_kafka D="$WORK/karst_to_kafka"; mkdir -p "$D"
  start_karst "$D" "$name/karst_start" || return
  produce "$D" "$name/karst_produce" karst || { stop_karst "$name/karst_stop"; return; }
  stop_karst "$name/karst_stop" || return
  start_kafka "$D" "$name/kafka_start" || return
  verify "$D" "$name/kafka" kafka
  stop_kafka "$D" || true
  # Karst again, on the log Kafka continued.
  start_karst "$D" "$name/back_to_karst_start" || return
  verify "$D" "$name/back_to_karst" karst
  stop_karst "$name/back_to_karst_stop"
}

# ---- compaction: the same keyed input cleaned by both brokers (see check/compact.go)
# The cleaner looks for work every 100 ms instead of Kafka's 15 s.
CLEANER_SETTINGS=(log.cleaner.backoff.ms=100)
checked() { # NAME OUT command...: PASS/FAIL on the command's status
  local name="$1" out="$2"; shift 2
  if "$@" > "$out" 2>&1; then pass "$name"; else fail "$name" "$out"; return 1; fi
}
compact_input() { # DIR NAME
  local D="$1" n="$2"
  checked "$n/phase1_produce" "$D/phase1.out" timeout 400 "$WORK/check" compact-produce -bootstrap "$BOOTSTRAP" -phase 1 \
    -records "$D/compact-records.json" -timeout 360s || return
  checked "$n/phase1_cleaned" "$D/phase1-wait.out" timeout 200 "$WORK/check" compact-wait -dir "$D/data" -timeout 180s || return
  local phase
  for phase in 2 3 4 5; do
    # Not synchronisation: what the pass before left with a delete horizon
    # (delete.retention.ms=1000) must be past it before this phase's pass.
    sleep 2
    checked "$n/phase${phase}_produce" "$D/phase$phase.out" timeout 400 "$WORK/check" compact-produce -bootstrap "$BOOTSTRAP" \
      -phase $phase -dir "$D/data" -records "$D/compact-records.json" -timeout 360s || return
    checked "$n/phase${phase}_cleaned" "$D/phase$phase-wait.out" timeout 200 "$WORK/check" compact-wait -dir "$D/data" -timeout 180s || return
  done
}
compact_dump() { # DIR NAME DUMP_FILE: the checker's PASS/FAIL lines, counted
  local D="$1" out="$1/${3%.txt}.out"
  timeout 200 "$WORK/check" compact-dump -bootstrap "$BOOTSTRAP" -dir "$D/data" -records "$D/compact-records.json" \
    -dump "$D/$3" -name "$2" -timeout 180s > "$out" 2>&1
  local rc=$?
  count_checks "$out" "$rc" "$2/dump"
  [ "$rc" = 0 ]
}
same_file() { # NAME A B
  if cmp -s "$2" "$3"; then pass "$1"; else
    diff "$2" "$3" > "$WORK/diff.out" 2>&1; fail "$1" "$WORK/diff.out"; fi
}
compact_equivalence() {
  local name=compact_equivalence K="$WORK/compact_kafka" S="$WORK/compact_karst"; mkdir -p "$K" "$S"
  start_kafka "$K" "$name/kafka_start" "${CLEANER_SETTINGS[@]}" || return
  compact_input "$K" "$name/kafka" && compact_dump "$K" "$name/kafka" dump-kafka.txt
  stop_kafka "$K"
  start_karst "$S" "$name/karst_start" "${CLEANER_SETTINGS[@]}" || return
  compact_input "$S" "$name/karst" && compact_dump "$S" "$name/karst" dump-karst.txt
  stop_karst "$name/karst_stop" || return
  [ -f "$K/dump-kafka.txt" ] && [ -f "$S/dump-karst.txt" ] || return
  # The same input went to the same offsets, and cleaning left the same records and markers.
  same_file "$name/same_offsets_written" "$K/compact-records.json" "$S/compact-records.json"
  same_file "$name/karst_kept_what_kafka_kept" "$K/dump-kafka.txt" "$S/dump-karst.txt"
  # Each broker on the other's cleaned directory serves what its cleaner left.
  start_kafka "$S" "$name/kafka_on_karst_dir_start" || return
  compact_dump "$S" "$name/kafka_on_karst_dir" dump-kafka-on-karst.txt &&
    same_file "$name/kafka_serves_karst_cleaned_log" "$S/dump-karst.txt" "$S/dump-kafka-on-karst.txt"
  stop_kafka "$S"
  start_karst "$K" "$name/karst_on_kafka_dir_start" || return
  compact_dump "$K" "$name/karst_on_kafka_dir" dump-karst-on-kafka.txt &&
    same_file "$name/karst_serves_kafka_cleaned_log" "$K/dump-kafka.txt" "$K/dump-karst-on-kafka.txt"
  stop_karst "$name/karst_on_kafka_dir_stop"
}

# Karst killed with SIGKILL while a throttled pass has a .cleaned or .swap file in the partition
# dir; Kafka 4.4 must then open the directory and serve what the input leaves.
cleaning_files() { (cd "$1/data" && find dd-compact-* -name "*.cleaned" -o -name "*.swap" | sort); }
compact_kill9_to_kafka() {
  local name=compact_kill9_to_kafka D="$WORK/compact_kill9"; mkdir -p "$D"
  # 1 MB/s: the pass over phase 1 (about 8 MB read) lasts seconds.
  start_karst "$D" "$name/karst_start" "${CLEANER_SETTINGS[@]}" log.cleaner.io.max.bytes.per.second=1000000 || return
  checked "$name/karst_produce" "$D/phase1.out" timeout 400 "$WORK/check" compact-produce -bootstrap "$BOOTSTRAP" -phase 1 \
    -records "$D/compact-records.json" -timeout 360s || { kill -9 "$KARST_PID"; return; }
  # The checker polls the partition dirs faster than a shell loop could: a .swap file lasts
  # only while the pass replaces segments. DATADIR_COMPACT_KILL_AT=swap waits for one.
  checked "$name/karst_kill9_mid_cleaning" "$D/kill.out" timeout 200 "$WORK/check" compact-kill -dir "$D/data" \
    -pid "$KARST_PID" -at "${DATADIR_COMPACT_KILL_AT:-any}" -timeout 180s
  kill -9 "$KARST_PID" 2> /dev/null; wait "$KARST_PID" 2> /dev/null
  # A killed process changes no file: what is on disk now is what was there at the kill.
  local left; left="$(cleaning_files "$D" | tr '\n' ' ')"
  if [ -z "$left" ]; then fail "$name/cleaning_files_at_kill"; return; fi
  pass "$name/cleaning_files_at_kill"
  local with=".cleaned"; [[ "$left" == *.swap* ]] && with=".swap"
  [[ "$left" == *.swap* && "$left" == *.cleaned* ]] && with=".cleaned and .swap"
  echo "     kill landed with $with present: $left"
  start_kafka "$D" "$name/kafka_start" || return
  local out="$D/survivors.out"
  timeout 200 "$WORK/check" compact-survivors -bootstrap "$BOOTSTRAP" -records "$D/compact-records.json" \
    -name "$name/kafka" -timeout 180s > "$out" 2>&1
  count_checks "$out" $? "$name/survivors"
  # Kafka's log loading deletes .cleaned files and completes .swap ones.
  if [ -z "$(cleaning_files "$D")" ]; then pass "$name/kafka_cleared_cleaning_files"; else
    cleaning_files "$D" > "$D/left.out"; fail "$name/kafka_cleared_cleaning_files" "$D/left.out"; fi
  stop_kafka "$D"
}

log "building karst and the checker"
build() {
  if [ -n "${DATADIR_KARST_BIN:-}" ]; then cp "$DATADIR_KARST_BIN" "$WORK/karst"; else timeout 600 go build -o "$WORK/karst" ./cmd/karst; fi &&
    timeout 600 go build -o "$WORK/check" ./interop/datadir/check
}
if ! (cd "$ROOT" && build) > "$WORK/build.out" 2>&1; then
  fail build "$WORK/build.out"
elif ! ensure_kafka_jars; then
  fail kafka_jars
else
  has_scenario kafka_clean_to_karst && kafka_to_karst kafka_clean_to_karst clean
  has_scenario kafka_kill9_to_karst && kafka_to_karst kafka_kill9_to_karst kill9
  has_scenario kafka_snapshots_to_karst && kafka_to_karst kafka_snapshots_to_karst clean "${SNAPSHOT_SETTINGS[@]}"
  has_scenario karst_to_kafka && karst_to_kafka
  has_scenario compact_equivalence && compact_equivalence
  has_scenario compact_kill9_to_kafka && compact_kill9_to_kafka
  if has_scenario kafka41_clean_to_karst; then
    if timeout 600 "$KAFKA/fetch.sh" "$OLD_KAFKA_VERSION" > "$WORK/fetch-old.out" 2>&1; then
      KAFKA_VERSION="$OLD_KAFKA_VERSION" kafka_to_karst kafka41_clean_to_karst clean
    else fail kafka41_jars "$WORK/fetch-old.out"; fi
  fi
fi
echo "interop-datadir: $PASSED passed, $FAILED failed"
[ "$FAILED" = 0 ]
