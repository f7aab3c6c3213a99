#!/usr/bin/env bash
# sarama generations against KARST_BOOTSTRAP: every release in ./versions, with config.Version at
# sarama.MaxVersion (the newest protocol that release knows), produces (acks=all, idempotent),
# consumes in a group with commits that a fresh member resumes from, and makes ClusterAdmin calls.
# Each version's module (./VERSION, its own go.mod) builds ./check against its sarama; the
# binaries are cached in ./bin. Prints "PASS|FAIL sarama VERSION check", the table and
# "interop-sarama: N passed, M failed".
set -uo pipefail
cd "$(dirname "$0")"
# shellcheck source=../lib/matrix.sh
. ../lib/matrix.sh
mapfile -t VERSIONS < <(matrix_versions versions)
NEWEST="${VERSIONS[-1]}"

mkdir -p bin
for v in "${VERSIONS[@]}"; do
  # GOFLAGS and GOWORK from outside must not change which sarama a module builds with.
  if (cd "$v" && GOFLAGS=-mod=readonly GOWORK=off timeout 300 go build -o "../bin/sarama-$v" .) > "$WORK/build-$v.log" 2>&1; then
    matrix_step PASS "build: sarama $v"
  else
    matrix_step FAIL "build: sarama $v:"; sed 's/^/     /' "$WORK/build-$v.log" | head -n 20
  fi
done

matrix_topics setup "sarama $NEWEST" "bin/sarama-$NEWEST" setup "$B" "$RUN_ID" "${VERSIONS[@]}"
for v in "${VERSIONS[@]}"; do
  matrix_version sarama "$v" "$VERSION_TIMEOUT" "$WORK/$v.log" "bin/sarama-$v" check "$B" "$v" "$RUN_ID"
done
matrix_topics teardown "sarama $NEWEST" "bin/sarama-$NEWEST" teardown "$B" "$RUN_ID" "${VERSIONS[@]}"
matrix_report sarama "$B"
