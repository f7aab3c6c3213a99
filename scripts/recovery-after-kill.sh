#!/usr/bin/env bash
# Times a broker's restart after kill -9 on a large log: DATA_MIB MiB
# (default 10240, 10 GiB) of 16 KiB records produced with acks=all by
# `karst bench produce` into PARTITIONS partitions (default 2) with the
# default 1 GiB segments, then KILLS (default 3) rounds of SIGKILL and a
# start, each timed from the start of the process to its first accepted
# connection (the broker recovers its logs before it listens), and one clean
# stop and start to compare. SETTLE_SECONDS (default 0) waits between the
# produce and the first kill: past 60 s the broker has written its
# recovery-point checkpoint, and recovery starts from there instead of from
# offset 0. The data directory (under WORK, default
# /tmp/karst-recovery) is deleted at the end. Load goes to 127.0.0.1 only.
set -euo pipefail
cd "$(dirname "$0")/.."
DATA_MIB="${DATA_MIB:-10240}"
PARTITIONS="${PARTITIONS:-2}"
KILLS="${KILLS:-3}"
PORT="${PORT:-19388}"
WORK="${WORK:-/tmp/karst-recovery}"
if (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null; then echo "127.0.0.1:$PORT is taken" >&2; exit 1; fi
rm -rf "$WORK"
mkdir -p "$WORK"
trap 'kill -9 "$pid" 2>/dev/null || true; rm -rf "$WORK"' EXIT
go build -o "$WORK/karst" ./cmd/karst

pid=
start_broker() {
  "$WORK/karst" serve --override "listeners=PLAINTEXT://127.0.0.1:$PORT" \
    --override "log.dirs=$WORK/data" >> "$WORK/karst.log" 2>&1 &
  pid=$!
}
# time_start starts the broker and sets elapsed to the seconds until it
# accepts a connection; it gives up after 10 minutes.
elapsed=
time_start() {
  local t0 now
  t0=$(date +%s%N)
  start_broker
  while ! (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null; do
    kill -0 "$pid" 2>/dev/null || { echo "broker exited" >&2; tail -20 "$WORK/karst.log" >&2; exit 1; }
    now=$(date +%s%N)
    (( now - t0 < 600000000000 )) || { echo "broker not accepting after 10 minutes" >&2; exit 1; }
    sleep 0.01
  done
  kill -0 "$pid" 2>/dev/null || { echo "port $PORT answers but the broker exited" >&2; tail -5 "$WORK/karst.log" >&2; exit 1; }
  now=$(date +%s%N)
  elapsed=$(awk -v ns=$((now - t0)) 'BEGIN { printf "%.3f", ns / 1e9 }')
}
kill9() { kill -9 "$pid"; wait "$pid" 2>/dev/null || true; }

time_start
records=$((DATA_MIB * 64))
echo "producing $DATA_MIB MiB ($records records of 16 KiB) into $PARTITIONS partitions"
"$WORK/karst" bench produce -brokers "127.0.0.1:$PORT" -topic recovery -partitions "$PARTITIONS" \
  -record-size 16384 -records "$records" -duration 30m
du -sh "$WORK/data"
sleep "${SETTLE_SECONDS:-0}"
for i in $(seq 1 "$KILLS"); do
  kill9
  time_start
  echo "kill -9 #$i, restart accepted after $elapsed s"
  grep -E 'karst started|truncat' "$WORK/karst.log" | tail -n 1
done
kill -TERM "$pid"; wait "$pid" 2>/dev/null || true
time_start
echo "clean stop, restart accepted after $elapsed s"
kill9
echo "recovery lines in the broker log:"
grep -E 'recover|truncat|karst started' "$WORK/karst.log" | tail -n 20
