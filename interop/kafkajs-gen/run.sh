#!/usr/bin/env bash
# kafkajs generations against KARST_BOOTSTRAP: every kafkajs version in ./versions (installed
# side by side under aliases, package.json) runs check.js: produce (acks=all, idempotent), a
# consumer group that commits and a fresh member that resumes there, and admin calls. Prints
# "PASS|FAIL kafkajs VERSION check", the table and "interop-kafkajs-gen: N passed, M failed".
set -uo pipefail
cd "$(dirname "$0")"
# shellcheck source=../lib/matrix.sh
. ../lib/matrix.sh

if [ ! -d node_modules ] && ! timeout 300 npm ci --no-audit --no-fund --silent > "$WORK/install.log" 2>&1; then
  matrix_step FAIL "install (npm ci):"; sed 's/^/     /' "$WORK/install.log" | tail -n 20
fi
declare -A PACKAGE
VERSIONS=()
while read -r v pkg; do VERSIONS+=("$v"); PACKAGE[$v]="$pkg"; done < <(matrix_versions versions)
NEWEST="${VERSIONS[-1]}"

matrix_topics setup "kafkajs $NEWEST" node check.js setup "$B" "$RUN_ID" "${PACKAGE[$NEWEST]}" "${VERSIONS[@]}"
for v in "${VERSIONS[@]}"; do
  matrix_version kafkajs "$v" "$VERSION_TIMEOUT" "$WORK/$v.log" node check.js check "$B" "$v" "${PACKAGE[$v]}" "$RUN_ID"
done
matrix_topics teardown "kafkajs $NEWEST" node check.js teardown "$B" "$RUN_ID" "${PACKAGE[$NEWEST]}" "${VERSIONS[@]}"
matrix_report kafkajs-gen "$B"
