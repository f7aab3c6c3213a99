#!/usr/bin/env bash
# consume-ab.sh ROUNDS "NAME|KARST_BINARY|KARST ARGUMENTS" ... — broker CPU
# per GB read by a franz-go consumer at its defaults (plainclient), for
# several Karst builds or settings side by side: each named broker is
# started on a loopback port of its own, given RECORDS (1,000,000) records
# of 1 KiB and read once to warm it, then ROUNDS rounds read the records
# from each broker in turn, so that the load of a shared machine, which
# drifts over minutes, falls on all of them alike. Each read prints the
# broker's utime+stime per GB (/proc/PID/stat), its context switches per
# GB (all its threads), the consumer's MB/s and the consumer's own CPU.
# An empty KARST_BINARY builds one from this tree. Example:
#   scripts/bench/consume-ab.sh 5 "default||" \
#     "autotuned||--override socket.send.buffer.bytes=-1"
set -uo pipefail
source "$(dirname "$0")/lib.sh"

if [ $# -lt 2 ]; then sed -n '2,13p' "$0" >&2; exit 2; fi
rounds="$1"; shift
RECORDS="${RECORDS:-1000000}"
WORK="$(mktemp -d /tmp/karst-consume-ab.XXXXXX)"
trap 'bench_cleanup; wait; rm -rf "$WORK"' EXIT
bench_build "$WORK" || exit 1
BUILT="$KARST"
PLAIN="$WORK/plainclient"
(cd "$REPO_ROOT" && go build -o "$PLAIN" ./scripts/bench/plainclient) || exit 1

names=(); pids=(); ports=()
for spec in "$@"; do
  IFS='|' read -r name bin args <<< "$spec"
  KARST="${bin:-$BUILT}"
  export KARST_ARGS="--override group.initial.rebalance.delay.ms=0 $args"
  data="$WORK/$name"; port="$(free_port)"
  start_karst "$data" "$port" || exit 1
  names+=("$name"); pids+=("$BROKER_PID"); ports+=("$port")
  timeout 300 "$KARST" bench produce -brokers "127.0.0.1:$port" -duration 240s -records "$RECORDS" \
    -topic bench-consume > "$WORK/fill.txt" 2>&1 || { echo "filling $name failed" >&2; exit 1; }
  timeout 100 "$PLAIN" consume -brokers "127.0.0.1:$port" -topic bench-consume -records "$RECORDS" -duration 60s > /dev/null 2>&1
done

# usage PID prints utime, stime (clock ticks) and the context switches of
# all the process's threads.
usage() {
  sed 's/.*) //' "/proc/$1/stat" | awk '{printf "%s %s ", $12, $13}'
  cat /proc/"$1"/task/*/status | awk '/ctxt_switches/ {n += $2} END {print n}'
}

hz="$(getconf CLK_TCK)"
for _ in $(seq 1 "$rounds"); do
  for i in "${!names[@]}"; do
    read -r u0 s0 c0 < <(usage "${pids[$i]}")
    out="$(/usr/bin/time -f "client_cpu_s=%U+%S" -o "$WORK/time" timeout 100 "$PLAIN" consume \
      -brokers "127.0.0.1:${ports[$i]}" -topic bench-consume -records "$RECORDS" -duration 60s 2> /dev/null)"
    read -r u1 s1 c1 < <(usage "${pids[$i]}")
    awk -v name="${names[$i]}" -v u=$((u1 - u0)) -v s=$((s1 - s0)) -v c=$((c1 - c0)) -v hz="$hz" -v n="$RECORDS" \
      -v mb="$(grep -o 'mb_per_s=[0-9.]*' <<< "$out")" -v client="$(tail -n 1 "$WORK/time")" \
      -v load="$(cut -d' ' -f1 /proc/loadavg)" 'BEGIN { gb = n * 1024 / 1073741824
        printf "broker=%s broker_cpu_s_per_gb=%.3f user_s_per_gb=%.3f sys_s_per_gb=%.3f ctxsw_per_gb=%d %s %s load1=%s\n",
          name, (u + s) / hz / gb, u / hz / gb, s / hz / gb, c / gb, mb, client, load }'
  done
done
