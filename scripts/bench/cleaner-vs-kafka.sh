#!/usr/bin/env bash
# scripts/bench/cleaner-vs-kafka.sh [RECORDS] [KEYS] [VALUE_BYTES]
# Cleaning throughput and cleaner memory of Karst beside Apache Kafka 4.4.0 on the same input:
# each broker in turn (one log cleaner thread, the default 128 MiB dedupe buffer,
# log.cleaner.backoff.ms=100) gets RECORDS uncompressed records (default 1,000,000) of
# VALUE_BYTES (100) over KEYS keys (10,000) in a compacted one-partition topic of 16 MiB
# segments, written behind a transaction held open from offset 0 (interop/datadir/check
# compact-bench), so nothing is cleaned until the input is in; its commit starts one pass over
# all of it. Prints per broker: the log's size at the commit, the pass as the broker logged it
# (bytes the copy read, seconds of the whole pass with the offset map, MB/s: Kafka's
# "MB of log processed" figure, MB of 2^20 bytes), the wall time from the commit to the
# cleaner-offset-checkpoint reaching the active segment, and the broker's RSS when the commit
# returned and its peak while the pass ran (sampled every 50 ms). The load average is printed
# beside: on a shared machine the figures move with it. KEEP=1 keeps the work directory.
set -uo pipefail
source "$(dirname "$0")/lib.sh"
RECORDS="${1:-1000000}" KEYS="${2:-10000}" VALUE="${3:-100}"
WORK="$(mktemp -d /tmp/cleaner-bench.XXXXXX)"
trap 'bench_cleanup; [ -n "${KEEP:-}" ] || rm -rf "$WORK"' EXIT
bench_build "$WORK" || exit 1
(cd "$REPO_ROOT" && go build -o "$WORK/check" ./interop/datadir/check) || exit 1
ensure_kafka_jars || exit 1

# cleaned DATA: the partition's cleaner checkpoint has reached its active segment.
cleaned() {
  local part="$1/cleaner-bench-0" active at
  active="$(ls "$part" 2>/dev/null | grep -E '^[0-9]{20}\.log$' | sort | tail -n 1 | sed 's/^0*//; s/\.log$//')"
  at="$(awk '$1 == "cleaner-bench" && $2 == 0 {print $3}' "$1/cleaner-offset-checkpoint" 2>/dev/null)"
  [ -n "$at" ] && [ -n "$active" ] && [ "$at" -ge "$active" ]
}

run() { # karst|kafka
  local name="$1" D="$WORK/$1" port pid
  port="$(free_port)"; mkdir -p "$D"
  if [ "$name" = karst ]; then
    KARST_ARGS="--override log.cleaner.backoff.ms=100" start_karst "$D" "$port" || return 1
  else
    KAFKA_ARGS="log.cleaner.backoff.ms=100 auto.create.topics.enable=false" start_kafka "$D" "$port" || return 1
  fi
  pid="$BROKER_PID"
  local load0; load0="$(cut -d' ' -f1-3 /proc/loadavg)"
  timeout 1200 "$WORK/check" compact-bench -bootstrap "127.0.0.1:$port" -records-count "$RECORDS" -keys "$KEYS" \
    -value-bytes "$VALUE" -timeout 1100s || { echo "$name: writing the input failed" >&2; return 1; }
  local t0 before peak=0 rss deadline=$((SECONDS + 900)) size
  t0="$(date +%s.%N)"; before="$(rss_kb "$pid")"
  size="$(du -cm "$D"/data/cleaner-bench-0/*.log | tail -n 1 | cut -f1)"
  until cleaned "$D/data"; do
    rss="$(rss_kb "$pid")"; [ "$rss" -gt "$peak" ] && peak="$rss"
    if [ $SECONDS -ge $deadline ]; then echo "$name: not cleaned within 900 s" >&2; return 1; fi
    sleep 0.05
  done
  local wall; wall="$(python3 -c "import time; print(f'{time.time() - $t0:.2f}')")"
  local pass
  if [ "$name" = karst ]; then
    pass="$(grep 'msg="cleaned log" partition=cleaner-bench-0' "$D/karst.log" | tail -n 1 | python3 -c '
import re, sys
l = sys.stdin.read()
b = int(re.search(r"readBytes=(\d+)", l).group(1)); e = re.search(r"elapsed=(\S+)", l).group(1)
units = {"ms": 1e-3, "µs": 1e-6, "s": 1.0}
m = re.fullmatch(r"(?:(\d+)m)?([\d.]+)(ms|µs|s)", e); s = int(m.group(1) or 0) * 60 + float(m.group(2)) * units[m.group(3)]
print(f"{b / 2**20:.1f} MB of log copied in {s:.2f} s ({b / 2**20 / s:.1f} MB/s)")')"
  else
    pass="$(grep -A1 'cleaned log cleaner-bench-0' "$D/logs/server.log" | grep -o '[0-9.]* MB of log processed.*' | tail -n 1)"
  fi
  echo "$name: $RECORDS records x $VALUE B over $KEYS keys, a ${size} MiB log; pass: $pass; commit to checkpoint ${wall} s;" \
    "RSS $((before / 1024)) MiB at the commit, peak $((peak / 1024)) MiB during the pass; load $load0 at the start"
  stop_broker "$name" "$D" "$pid"
}
run karst
run kafka
