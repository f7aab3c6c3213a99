#!/usr/bin/env bash
# interop/streams/restart.sh — the word count suite on a Karst of its own, which the suite restarts
# (SIGTERM, then a start on the same directory and port) while the application runs and input
# arrives (INTEROP_STREAMS_RESTART_CMD). Prints the suite's PASS/FAIL lines and its
# "interop-streams: N passed, M failed". KARST_BIN=path uses that binary instead of building
# ./cmd/karst; INTEROP_KEEP_DATA=1 keeps the directory. Needs the suite built (mvn package).
set -uo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
source "$HERE/../kafka/common.sh"
WORK="$(mktemp -d /tmp/interop-streams-restart.XXXXXX)"
cleanup() {
  [ -f "$WORK/karst.pid" ] && kill -9 "$(cat "$WORK/karst.pid")" 2> /dev/null
  if [ -z "${INTEROP_KEEP_DATA:-}" ]; then rm -rf "$WORK"; else echo "data kept in $WORK" >&2; fi
}
trap cleanup EXIT
KARST="${KARST_BIN:-}"
if [ -z "$KARST" ]; then
  KARST="$WORK/karst"
  if ! (cd "$ROOT" && timeout 600 go build -o "$KARST" ./cmd/karst) > "$WORK/build.out" 2>&1; then
    cat "$WORK/build.out"; echo "interop-streams: 0 passed, 1 failed"; exit 1
  fi
fi
PORT="$(free_port)"
mkdir -p "$WORK/data"
# The restart command the suite runs: stop (SIGTERM, bounded), start again in place, wait to listen.
cat > "$WORK/broker.sh" <<SH
#!/usr/bin/env bash
source "$HERE/../kafka/common.sh"
start() {
  "$KARST" serve --override "listeners=PLAINTEXT://127.0.0.1:$PORT" --override "log.dirs=$WORK/data" \\
    --override auto.create.topics.enable=false --override group.initial.rebalance.delay.ms=0 \\
    >> "$WORK/karst.log" 2>&1 < /dev/null &
  echo \$! > "$WORK/karst.pid"
  local deadline=\$((SECONDS + 60))
  until port_open 127.0.0.1 "$PORT"; do
    kill -0 "\$(cat "$WORK/karst.pid")" 2> /dev/null && [ \$SECONDS -lt \$deadline ] || { echo "karst did not start" >&2; exit 1; }
    sleep 0.1
  done
}
stop() {
  local pid; pid="\$(cat "$WORK/karst.pid")"
  kill "\$pid"
  for _ in \$(seq 1 300); do kill -0 "\$pid" 2> /dev/null || return 0; sleep 0.1; done
  echo "karst did not stop within 30 s" >&2; exit 1
}
case "\$1" in start) start ;; restart) stop; start; echo "karst restarted" >&2 ;; esac
SH
chmod +x "$WORK/broker.sh"
if ! "$WORK/broker.sh" start; then tail -n 20 "$WORK/karst.log"; echo "interop-streams: 0 passed, 1 failed"; exit 1; fi
cd "$HERE" && KARST_BOOTSTRAP="127.0.0.1:$PORT" INTEROP_STREAMS_RESTART_CMD="$WORK/broker.sh restart" \
  java -Xmx512m -Dorg.slf4j.simpleLogger.defaultLogLevel=warn -cp 'target/classes:target/lib/*' \
  io.karst.interop.streams.WordCountSuite
