#!/usr/bin/env bash
# Soak run of the kill -9 test: KARST_KILL_CYCLES (default 1,000) SIGKILLs
# of one broker on one growing data directory, every acknowledged record
# checked after each restart (see TestKillCyclesLoseNoAcknowledgedRecord in
# integration/kill_cycles_test.go). It stops by itself: after
# KARST_KILL_MAX_SECONDS (default 3600) it ends with a full check and its
# totals, and the go test timeout (SOAK_TIMEOUT, default 90m) bounds that. The broker's log is kept at
# SOAK_LOG (default /tmp/karst-soak-kill.log) and the test's output at
# SOAK_OUT (default /tmp/karst-soak-kill.out).
set -euo pipefail
cd "$(dirname "$0")/.."
export KARST_KILL_CYCLES="${KARST_KILL_CYCLES:-1000}"
export KARST_KILL_MAX_SECONDS="${KARST_KILL_MAX_SECONDS:-3600}"
export KARST_KILL_FULL_CHECK_EVERY="${KARST_KILL_FULL_CHECK_EVERY:-50}"
export KARST_KILL_LOG="${SOAK_LOG:-/tmp/karst-soak-kill.log}"
out="${SOAK_OUT:-/tmp/karst-soak-kill.out}"
echo "soak: $KARST_KILL_CYCLES kill -9 cycles; output in $out, broker log in $KARST_KILL_LOG"
status=0
go test -count=1 -run '^TestKillCyclesLoseNoAcknowledgedRecord$' -timeout "${SOAK_TIMEOUT:-90m}" -v ./integration/ > "$out" 2>&1 || status=$?
grep -E 'KARST_KILL_SEED|MAX_SECONDS|kill cycles:|segments:|restart to|LOST|problems|--- (PASS|FAIL)|^(ok|FAIL)' "$out" || true
echo "broker log lines on truncation: $(grep -c truncat "$KARST_KILL_LOG" || true)"
exit "$status"
