#!/usr/bin/env bash
# Client generations against KARST_BOOTSTRAP: the Java client of every version in ./versions
# (2.8 through 4.4) produces (acks=all, idempotent), consumes in a classic group with commits that
# a fresh member resumes from, and makes AdminClient calls; one small program (src/), compiled
# once, runs with each version's jars. Prints "PASS|FAIL VERSION check" per check, a
# version x produce / group / admin table, and "interop-generations: N passed, M failed".
set -uo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
cd "$HERE"
B="${KARST_BOOTSTRAP:-127.0.0.1:9092}"
VERSION_TIMEOUT="${GENERATIONS_VERSION_TIMEOUT:-60}"
WORK="$(mktemp -d /tmp/interop-generations.XXXXXX)"
trap 'rm -rf "$WORK"' EXIT

if ! ./build.sh > "$WORK/build.log" 2>&1; then
  cat "$WORK/build.log"
  echo "FAIL build"
  echo "interop-generations: 0 passed, 1 failed"
  exit 1
fi
mapfile -t VERSIONS < <(grep -Ev '^\s*(#|$)' versions)
NEWEST="${VERSIONS[-1]}"
RUN_ID="$(date +%s)-$$"
# The produce and group checks of every version use topics made beforehand by the newest client,
# so that a version whose AdminClient fails still shows how its producer and consumer fare.
data_topics() { # create|delete
  timeout -k 5 60 java -Xmx128m -XX:TieredStopAtLevel=1 -XX:+UseSerialGC \
    -Dorg.slf4j.simpleLogger.defaultLogLevel=error -Dorg.slf4j.simpleLogger.logFile=System.out \
    -cp "target/classes:target/lib/$NEWEST/*" io.karst.interop.generations.DataTopics "$1" "$B" "$RUN_ID" "${VERSIONS[@]}" \
    > "$WORK/topics-$1.log" 2>&1
}

PASSED=0; FAILED=0
if data_topics create; then
  PASSED=$((PASSED + 1)); echo "PASS setup: kafka-clients $NEWEST created the produce and group topics, the group ones holding the test records"
else
  FAILED=$((FAILED + 1)); echo "FAIL setup: kafka-clients $NEWEST could not create the topics:"; sed 's/^/     /' "$WORK/topics-create.log" | head -n 20
fi
ROWS=()
# The table's column of a check: what it exercises.
column_of() {
  case "$1" in produce) echo produce ;; group_*) echo group ;; admin_*) echo admin ;; *) echo run ;; esac
}
cell() { # passed failed
  if [ "$1$2" = 00 ]; then echo "none ran"; elif [ "$2" = 0 ]; then echo "pass ($1)"; else echo "FAIL ($2 of $(($1 + $2)))"; fi
}

for v in "${VERSIONS[@]}"; do
  start=$SECONDS
  timeout -k 5 "$VERSION_TIMEOUT" java -Xmx256m -XX:TieredStopAtLevel=1 -XX:+UseSerialGC \
    -Dorg.slf4j.simpleLogger.defaultLogLevel=error -Dorg.slf4j.simpleLogger.logFile=System.out \
    -cp "target/classes:target/lib/$v/*" io.karst.interop.generations.Main "$B" "$v" "$RUN_ID" > "$WORK/$v.log" 2>&1
  rc=$?
  declare -A pass=([produce]=0 [group]=0 [admin]=0 [run]=0) fail=([produce]=0 [group]=0 [admin]=0 [run]=0)
  while read -r verdict name rest; do
    col="$(column_of "$name")"
    echo "$verdict $v $name $rest"
    if [ "$verdict" = PASS ]; then pass[$col]=$((pass[$col] + 1)); else fail[$col]=$((fail[$col] + 1)); fi
  done < <(grep -E '^(PASS|FAIL) ' "$WORK/$v.log")
  if ! grep -qE "^generation $v: [0-9]+ passed" "$WORK/$v.log"; then
    [ "$rc" = 124 ] && why="killed after ${VERSION_TIMEOUT}s" || why="exit $rc"
    echo "FAIL $v finished: $why before its closing line"
    fail[run]=$((fail[run] + 1))
  fi
  for col in produce group admin run; do PASSED=$((PASSED + pass[$col])); FAILED=$((FAILED + fail[$col])); done
  if [ $((fail[produce] + fail[group] + fail[admin] + fail[run])) -gt 0 ]; then
    echo "     kafka-clients $v said (errors, first 20 lines):"
    grep -vE '^(PASS|FAIL|generation) ' "$WORK/$v.log" | head -n 20 | sed 's/^/     /'
  fi
  # run: the client version on the classpath and the JVM reaching its closing line.
  [ "${fail[run]}" = 0 ] && run_cell=ok || run_cell=FAIL
  ROWS+=("$(printf '| %-7s | %-14s | %-14s | %-14s | %-4s | %3d s |' "$v" "$(cell "${pass[produce]}" "${fail[produce]}")" \
    "$(cell "${pass[group]}" "${fail[group]}")" "$(cell "${pass[admin]}" "${fail[admin]}")" "$run_cell" $((SECONDS - start)))")
  unset pass fail
done

if data_topics delete; then
  PASSED=$((PASSED + 1)); echo "PASS teardown: kafka-clients $NEWEST deleted the topics"
else
  FAILED=$((FAILED + 1)); echo "FAIL teardown:"; sed 's/^/     /' "$WORK/topics-delete.log" | head -n 20
fi

echo
echo "kafka-clients generations against $B:"
echo "| client  | produce        | group consume  | admin          | run  | time  |"
echo "| ------- | -------------- | -------------- | -------------- | ---- | ----- |"
for row in "${ROWS[@]}"; do echo "$row"; done
echo "interop-generations: $PASSED passed, $FAILED failed"
[ "$FAILED" = 0 ]
