#!/usr/bin/env bash
# CI smoke run of the benchmark suite: every Go benchmark in the tree for a
# fixed, small number of iterations, then the load tool's produce, consume
# and end-to-end modes for about two seconds each against a Karst started
# on a temporary log dir and a kernel-chosen port. Nothing here judges
# speed; it fails only if something fails to build, run or stop cleanly.
# About 30 s once the build cache is warm; every step has a timeout.
#
#   scripts/ci-bench-smoke.sh            BENCHTIME=100x LOAD_TIME=2s by default
set -euo pipefail
cd "$(dirname "$0")/.."
BENCHTIME="${BENCHTIME:-100x}"
LOAD_TIME="${LOAD_TIME:-2s}"

tmp="$(mktemp -d)"
karst_pid=""
cleanup() {
  if [ -n "$karst_pid" ] && kill -0 "$karst_pid" 2>/dev/null; then
    kill -9 "$karst_pid" 2>/dev/null || true
  fi
  rm -rf "$tmp"
}
trap cleanup EXIT

fail() {
  echo "ci-bench-smoke: $*" >&2
  if [ -f "$tmp/karst.log" ]; then
    echo "-- last lines of the broker log:" >&2
    tail -n 20 "$tmp/karst.log" >&2
  fi
  exit 1
}

echo "== scripts/bench/report.py's tests"
timeout 60 python3 scripts/bench/report_test.py || fail "report_test.py failed"

echo "== Go benchmarks, -benchtime=$BENCHTIME"
# Every package with a benchmark, so new ones join without editing this.
# -short: a benchmark whose one iteration is large (loading a coordinator
# partition) runs a small case, so 100 iterations fit the bound.
mapfile -t pkgs < <(grep -rl --include='*_test.go' '^func Benchmark' internal cmd 2>/dev/null |
  xargs -r -n1 dirname | sort -u | sed 's|^|./|')
if [ ${#pkgs[@]} -eq 0 ]; then
  fail "no Go benchmarks found"
fi
echo "packages: ${pkgs[*]}"
timeout 180 go test -short -run '^$' -bench . -benchtime="$BENCHTIME" -benchmem -timeout 150s "${pkgs[@]}" ||
  fail "Go benchmarks failed"

echo "== karst bench against a fresh broker, $LOAD_TIME per mode"
bin="$tmp/karst"
timeout 180 go build -o "$bin" ./cmd/karst || fail "go build ./cmd/karst failed"
# JSON logs so the address can be read back reliably (and the format is
# exercised end to end); port 0 so parallel CI jobs never collide.
"$bin" serve --log-format json \
  --override listeners=PLAINTEXT://127.0.0.1:0 \
  --override "log.dirs=$tmp/data" \
  --override karst.metrics.listener=127.0.0.1:0 \
  --override group.initial.rebalance.delay.ms=0 \
  > "$tmp/karst.log" 2>&1 < /dev/null &
karst_pid=$!

addr_of() { # addr_of MSG: the "addr" of the first log line whose msg is MSG
  grep -m1 "\"msg\":\"$1\"" "$tmp/karst.log" 2>/dev/null | grep -o '"addr":"[^"]*"' | cut -d'"' -f4 || true
}
addr=""
for _ in $(seq 1 150); do # at most 15 s
  addr="$(addr_of listening)"
  [ -n "$addr" ] && break
  kill -0 "$karst_pid" 2>/dev/null || fail "karst exited during start"
  sleep 0.1
done
[ -n "$addr" ] || fail "karst never logged its listening address"
metrics_addr="$(addr_of "serving metrics")"
echo "broker $addr (pid $karst_pid), metrics ${metrics_addr:-none}"

run_mode() { # run_mode MODE FLAGS...: one bounded load run; its summary line is printed
  local mode="$1"
  shift
  echo "-- karst bench $mode $*"
  timeout 60 "$bin" bench "$mode" -brokers "$addr" -pid "$karst_pid" "$@" ||
    fail "karst bench $mode failed (exit $?)"
}
run_mode produce -duration "$LOAD_TIME" -records 50000 -partitions 3 -acks -1
run_mode consume -duration "$LOAD_TIME" -records 50000
run_mode consume -duration "$LOAD_TIME" -records 50000 -client raw
run_mode e2e -duration "$LOAD_TIME" -rate 2000 -partitions 3 -warmup 500ms -drain 3s

if [ -n "$metrics_addr" ]; then
  echo "-- scrape http://$metrics_addr/metrics"
  scrape="$(timeout 10 curl -fsS "http://$metrics_addr/metrics")" || fail "metrics scrape failed"
  grep -q '^kafka_server_brokertopicmetrics_messagesin_total{topic="karst-bench"}' <<<"$scrape" ||
    fail "the scrape has no messages-in counter for karst-bench"
fi

echo "-- stopping karst"
kill -TERM "$karst_pid"
status=0
timeout 20 tail --pid="$karst_pid" -f /dev/null || fail "karst did not stop within 20 s of SIGTERM"
wait "$karst_pid" || status=$?
karst_pid=""
[ "$status" -eq 0 ] || fail "karst exited with status $status after SIGTERM"
echo "ci-bench-smoke: ok"
