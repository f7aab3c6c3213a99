#!/usr/bin/env bash
# The fresh-machine test of README.md's quickstart: copies the checkout's
# tracked files (as they are in the work tree) to a new temporary directory
# and runs the quickstart blocks there exactly as written, in a private
# network namespace so that port 9092 is free whatever else runs on the
# machine, then checks what they printed: the admin CLI block, the kcat block
# when kcat is installed, and Kafka's tools block when java is (its bin/*.sh
# are shims running Kafka 4.4.0's tool classes from interop/kafka's jars). It
# prints the time from the first command (go build) to the first record
# consumed, and how long Kafka's tools block took.
#
#   scripts/readme-quickstart.sh     (QUICKSTART_TIMEOUT seconds, default 300)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work" /tmp/karst-quickstart' EXIT
rm -rf /tmp/karst-quickstart

# block NAME: the lines of README's fenced block between
# <!-- NAME:begin ... --> and <!-- NAME:end -->.
block() {
  awk -v b="<!-- $1:begin" -v e="<!-- $1:end -->" '
    index($0, b) == 1 { on = 1; next }
    index($0, e) == 1 { on = 0 }
    on && !/^```/' "$root/README.md"
}
# Kafka's tools run when java is here and interop/kafka has (or, before the
# network namespace, fetches) the 4.4.0 jars: bin/kafka-*.sh in the copy are
# then shims running the same tool classes from those jars.
kafka_tools=0
if command -v java >/dev/null && (source "$root/interop/kafka/common.sh" && ensure_kafka_jars) >/dev/null 2>&1; then
  kafka_tools=1
fi
{ block quickstart; command -v kcat >/dev/null && block quickstart-kcat; [ "$kafka_tools" = 1 ] && block quickstart-kafka; echo ': done'; } > "$work/quickstart.sh"
grep -q karst "$work/quickstart.sh" || { echo "no quickstart block in README.md" >&2; exit 1; }
(cd "$root" && git ls-files -z | tar --null -T - -c) | tar -x -C "$work/"
if [ "$kafka_tools" = 1 ]; then
  mkdir -p "$work/bin"
  for tool in kafka-topics kafka-console-producer kafka-console-consumer kafka-consumer-groups; do
    printf '#!/bin/sh\nexec "%s" %s "$@"\n' "$root/interop/kafka/tool.sh" "$tool" > "$work/bin/$tool.sh"
    chmod +x "$work/bin/$tool.sh"
  done
fi
mkdir -p "$work/.trace"

# Each command is traced with the time it started; the broker started in
# the background is stopped when the block ends.
cat > "$work/.trace/run.sh" <<'RUN'
ip link set lo up
cd "$1"
trap 'kill $(jobs -p) 2>/dev/null; wait' EXIT
PS4='+ $EPOCHREALTIME '
set -ex
source ./quickstart.sh
RUN
if unshare -rn true 2>/dev/null; then
  isolate=(unshare -rn)
elif ! (exec 3<>/dev/tcp/127.0.0.1/9092) 2>/dev/null; then
  isolate=()  # no namespaces here, but 9092 is free
else
  echo "readme-quickstart: cannot make a network namespace and port 9092 is taken" >&2; exit 1
fi
status=0
timeout "${QUICKSTART_TIMEOUT:-300}" "${isolate[@]}" bash "$work/.trace/run.sh" "$work" \
  > "$work/.trace/out" 2> "$work/.trace/err" || status=$?
out="$(cat "$work/.trace/out")"
if [ "$status" -ne 0 ]; then
  echo "readme-quickstart: the block failed (exit $status)"; cat "$work/.trace/out" "$work/.trace/err"; exit 1
fi

fail=0
expect() {
  if ! grep -qE -- "$1" <<<"$out"; then echo "readme-quickstart: no line matching '$1' in the output"; fail=1; fi
}
expect '^alice => hello$'
expect '^bob => hi$'
expect '^carol => hey$'
expect 'readers'
expect 'retention\.ms'
if command -v kcat >/dev/null; then
  expect '^dave => howdy$'
  expect 'topic "greetings" with 3 partitions'
fi
if [ "$kafka_tools" = 1 ]; then
  expect '^Created topic events\.$'
  expect '^hello$'
  expect '^readers +greetings +[0-2] '
else
  echo "readme-quickstart: Kafka's tools block not run (no java, or the Kafka 4.4.0 jars could not be fetched)"
fi
if [ "$fail" -ne 0 ]; then cat "$work/.trace/out" "$work/.trace/err"; exit 1; fi

# From the first traced command (go build), and from the broker's start,
# to the command after the first consume.
awk '/^\++ [0-9.]+ / { t[++n] = $2; if (!serve && $0 ~ /karst serve/) serve = $2
    if (!first && prev ~ /karst consume/) first = $2
    if (!kafka && $0 ~ /bin\/kafka-topics\.sh/) kafka = $2; prev = $0 }
  END { if (first) printf "readme-quickstart: ok; to the first record consumed: %.2f s from go build, %.2f s from karst serve\n", first - t[2], first - serve
        else print "readme-quickstart: ok"
        if (kafka) printf "readme-quickstart: Kafka 4.4.0 tools block: %.2f s\n", t[n] - kafka }' "$work/.trace/err"
