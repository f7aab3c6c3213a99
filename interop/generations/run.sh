#!/usr/bin/env bash
# Client generations against KARST_BOOTSTRAP: the Java client of every version in ./versions
# (2.8 through 4.4) produces (acks=all, idempotent), consumes in a classic group with commits that
# a fresh member resumes from, and makes AdminClient calls; one small program (src/), compiled
# once, runs with each version's jars. Prints "PASS|FAIL kafka-clients VERSION check" per check,
# a version x produce / group / admin table (../lib/matrix.sh), and
# "interop-generations: N passed, M failed".
set -uo pipefail
cd "$(dirname "$0")"
# shellcheck source=../lib/matrix.sh
. ../lib/matrix.sh
VERSION_TIMEOUT="${GENERATIONS_VERSION_TIMEOUT:-60}"

if ! ./build.sh > "$WORK/build.log" 2>&1; then
  cat "$WORK/build.log"
  matrix_step FAIL build
  matrix_report generations "$B"
  exit 1
fi
mapfile -t VERSIONS < <(matrix_versions versions)
NEWEST="${VERSIONS[-1]}"
# The JVMs start for speed, with the client's logs on stdout.
JAVA=(java -XX:TieredStopAtLevel=1 -XX:+UseSerialGC -Dorg.slf4j.simpleLogger.defaultLogLevel=error
  -Dorg.slf4j.simpleLogger.logFile=System.out)

matrix_topics setup "kafka-clients $NEWEST" "${JAVA[@]}" -Xmx128m -cp "target/classes:target/lib/$NEWEST/*" \
  io.karst.interop.generations.DataTopics create "$B" "$RUN_ID" "${VERSIONS[@]}"
for v in "${VERSIONS[@]}"; do
  matrix_version kafka-clients "$v" "$VERSION_TIMEOUT" "$WORK/$v.log" "${JAVA[@]}" -Xmx256m -cp "target/classes:target/lib/$v/*" \
    io.karst.interop.generations.Main "$B" "$v" "$RUN_ID"
done
matrix_topics teardown "kafka-clients $NEWEST" "${JAVA[@]}" -Xmx128m -cp "target/classes:target/lib/$NEWEST/*" \
  io.karst.interop.generations.DataTopics delete "$B" "$RUN_ID" "${VERSIONS[@]}"
matrix_report generations "$B"
