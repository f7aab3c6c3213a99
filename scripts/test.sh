#!/usr/bin/env bash
# Runs every test Karst has: tidy-tree checks, the Go unit and integration
# tests (race detector on), a bounded run of every fuzz target, and the
# interop suites with non-Go clients. This is the README's test command.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:$(go env GOPATH)/bin"
FUZZTIME="${FUZZTIME:-10s}"

echo "== gofmt, go vet, staticcheck"
unformatted="$(gofmt -l $(git ls-files '*.go' 2>/dev/null || find . -name '*.go'))"
if [ -n "$unformatted" ]; then echo "not gofmt-ed:"; echo "$unformatted"; exit 1; fi
go vet ./...
if command -v staticcheck >/dev/null; then staticcheck ./...; else echo "staticcheck not installed; skipped"; fi

echo "== fuzz targets, $FUZZTIME each"
for pkg in $(go list ./...); do
  dir="$(go list -f '{{.Dir}}' "$pkg")"
  for target in $(grep -ho '^func Fuzz[A-Za-z0-9_]*' "$dir"/*_test.go 2>/dev/null | sed 's/^func //'); do
    echo "-- $pkg $target"
    if ! go test -run='^$' -fuzz="^${target}\$" -fuzztime="$FUZZTIME" "$pkg" > /tmp/karst-fuzz.out 2>&1; then
      cat /tmp/karst-fuzz.out
      # A crash the fuzzer found leaves its input in testdata/fuzz: that
      # fails at once. A run that failed without one (a fuzz worker lost
      # at shutdown on a busy machine) is run once more.
      if [ -n "$(git status --porcelain -- "$dir/testdata/fuzz" 2>/dev/null)" ] ||
        ! go test -run='^$' -fuzz="^${target}\$" -fuzztime="$FUZZTIME" "$pkg" > /tmp/karst-fuzz.out 2>&1; then
        cat /tmp/karst-fuzz.out; exit 1
      fi
      echo "   (passed on the second run)"
    fi
  done
done

if [ -x interop/run ]; then
  echo "== interop suites"
  # Suites join this list as the broker gains what they exercise.
  # A suite's bound, not its time: datadir starts Kafka ten times.
  export INTEROP_SUITE_TIMEOUT="${INTEROP_SUITE_TIMEOUT:-900}"
  interop/run --against karst --suites "${INTEROP_SUITES:-negotiate,java,python,node,cli,admincli,datadir,generations,librdkafka,kafkajs-gen,sarama,differential,sasl,tls,kerberos,peer,oldclients,acls,streams,connect}"
fi

echo "== go test (unit and integration, race detector on)"
go test -race -count=1 -timeout 30m ./...

echo "== the release script's four targets (TestReleaseScriptBuildsEveryTarget)"
# Skipped in a plain go test: four cross builds took 29 min on the loaded
# 2-core machine, so it has a test binary and a bound of its own.
KARST_TEST_RELEASE=1 go test -count=1 -timeout 60m -run '^TestReleaseScriptBuildsEveryTarget$' ./cmd/karst

echo "== benchmark smoke run (bounded; no speed is judged)"
scripts/ci-bench-smoke.sh

if [ "${KARST_SOAK:-}" = 1 ]; then
  echo "== kill -9 soak (KARST_SOAK=1)"
  scripts/soak-kill.sh
fi
