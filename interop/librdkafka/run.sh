#!/usr/bin/env bash
# librdkafka generations against KARST_BOOTSTRAP: every confluent-kafka version in ./versions
# (its wheel carries its librdkafka), each in its own venv (install.sh; under $INTEROP_CACHE),
# runs check.py: produce (acks=all, idempotent), a consumer group that commits and a fresh
# member that resumes there, and AdminClient calls. Prints "PASS|FAIL confluent-kafka VERSION
# check", the table and "interop-librdkafka: N passed, M failed".
set -uo pipefail
cd "$(dirname "$0")"
# shellcheck source=../lib/matrix.sh
. ../lib/matrix.sh
VENVS="${INTEROP_CACHE:-$HOME/.cache/karst-interop}/librdkafka"

if ./install.sh > "$WORK/install.log" 2>&1; then
  matrix_step PASS "install: a venv per confluent-kafka version"
else
  matrix_step FAIL "install:"; sed 's/^/     /' "$WORK/install.log" | tail -n 20
fi
mapfile -t VERSIONS < <(matrix_versions versions | awk '{print $1}')
NEWEST="${VERSIONS[-1]}"

matrix_topics setup "confluent-kafka $NEWEST" "$VENVS/$NEWEST/bin/python" check.py setup "$B" "$RUN_ID" "${VERSIONS[@]}"
for v in "${VERSIONS[@]}"; do
  matrix_version confluent-kafka "$v" "$VERSION_TIMEOUT" "$WORK/$v.log" "$VENVS/$v/bin/python" check.py check "$B" "$v" "$RUN_ID"
  grep '^info: ' "$WORK/$v.log" | sed "s/^/     $v /"
done
matrix_topics teardown "confluent-kafka $NEWEST" "$VENVS/$NEWEST/bin/python" check.py teardown "$B" "$RUN_ID" "${VERSIONS[@]}"
matrix_report librdkafka "$B"
