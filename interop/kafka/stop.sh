#!/usr/bin/env bash
# stop.sh DATA_DIR — stops the broker that start.sh started there (SIGTERM, then SIGKILL after 30s).
set -euo pipefail
if [ $# -lt 1 ]; then echo "usage: $0 DATA_DIR" >&2; exit 2; fi
PID_FILE="$1/kafka.pid"
if [ ! -f "$PID_FILE" ]; then echo "no kafka pid file in $1" >&2; exit 0; fi
PID="$(cat "$PID_FILE")"
if kill -0 "$PID" 2>/dev/null; then
  kill "$PID" 2>/dev/null || true
  for _ in $(seq 1 60); do kill -0 "$PID" 2>/dev/null || break; sleep 0.5; done
  if kill -0 "$PID" 2>/dev/null; then echo "kafka pid $PID ignored SIGTERM; killing" >&2; kill -9 "$PID" 2>/dev/null || true; fi
fi
rm -f "$PID_FILE"
echo "kafka stopped (pid $PID)"
