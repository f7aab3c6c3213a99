# shellcheck shell=bash
# The client-generation matrix shared by the generations, librdkafka, kafkajs-gen and sarama
# suites (sourced by their run.sh). Each version's program prints "PASS|FAIL check (ms)[: reason]"
# lines and closes with "generation VERSION: N passed, M failed". matrix_version runs one version
# under a deadline and counts its checks into columns (produce, group_*, admin_*, anything else
# "run"; produce_CODEC counts as produce); matrix_report prints the version x produce / group consume / admin table and the
# suite's closing line "interop-SUITE: N passed, M failed".
MATRIX_PASSED=0
MATRIX_FAILED=0
MATRIX_ROWS=()
# What every suite of the matrix uses: the broker, each version's deadline, a work folder for the
# logs (removed at exit) and the run's id, which names the topics and groups.
B="${KARST_BOOTSTRAP:-127.0.0.1:9092}"
VERSION_TIMEOUT="${GENERATIONS_VERSION_TIMEOUT:-90}"
WORK="$(mktemp -d /tmp/interop-matrix.XXXXXX)"
trap 'rm -rf "$WORK"' EXIT
RUN_ID="$(date +%s)-$$"

matrix_column_of() {
  case "$1" in produce | produce_*) echo produce ;; group_*) echo group ;; admin_*) echo admin ;; *) echo run ;; esac
}

matrix_cell() { # passed failed
  if [ "$1$2" = 00 ]; then echo "none ran"; elif [ "$2" = 0 ]; then echo "pass ($1)"; else echo "FAIL ($2 of $(($1 + $2)))"; fi
}

# matrix_step PASS|FAIL message: a check outside the versions (setup, teardown, build).
matrix_step() {
  echo "$1 $2"
  if [ "$1" = PASS ]; then MATRIX_PASSED=$((MATRIX_PASSED + 1)); else MATRIX_FAILED=$((MATRIX_FAILED + 1)); fi
}

# matrix_topics setup|teardown LABEL command...: the newest version makes the topics of every
# version's produce and group checks (the group ones filled with the test records) before the
# versions run, and removes them after, so that a version whose admin calls fail still shows
# how its producer and consumer fare.
matrix_topics() {
  local step="$1" label="$2"; shift 2
  if timeout -k 5 120 "$@" > "$WORK/$step.log" 2>&1; then
    if [ "$step" = setup ]; then
      matrix_step PASS "setup: $label created the produce and group topics, the group ones holding the test records"
    else
      matrix_step PASS "teardown: $label deleted the topics"
    fi
  else
    matrix_step FAIL "$step: $label failed:"; sed 's/^/     /' "$WORK/$step.log" | head -n 20
  fi
}

# matrix_version LABEL VERSION TIMEOUT LOG command...: runs one version's program, echoes its
# check lines prefixed with the version, counts them and adds the version's row to the table.
matrix_version() {
  local label="$1" v="$2" limit="$3" log="$4"; shift 4
  local start=$SECONDS rc verdict name rest col why run_cell
  timeout -k 5 "$limit" "$@" > "$log" 2>&1
  rc=$?
  declare -A pass=([produce]=0 [group]=0 [admin]=0 [run]=0) fail=([produce]=0 [group]=0 [admin]=0 [run]=0)
  while read -r verdict name rest; do
    col="$(matrix_column_of "$name")"
    echo "$verdict $label $v $name $rest"
    if [ "$verdict" = PASS ]; then pass[$col]=$((pass[$col] + 1)); else fail[$col]=$((fail[$col] + 1)); fi
  done < <(grep -E '^(PASS|FAIL) ' "$log")
  if ! grep -qE "^generation $v: [0-9]+ passed" "$log"; then
    [ "$rc" = 124 ] && why="killed after ${limit}s" || why="exit $rc"
    echo "FAIL $label $v finished: $why before its closing line"
    fail[run]=$((fail[run] + 1))
  fi
  for col in produce group admin run; do
    MATRIX_PASSED=$((MATRIX_PASSED + pass[$col])); MATRIX_FAILED=$((MATRIX_FAILED + fail[$col]))
  done
  if [ $((fail[produce] + fail[group] + fail[admin] + fail[run])) -gt 0 ]; then
    echo "     $label $v said (other output, first 20 lines):"
    grep -vE '^(PASS|FAIL|generation) ' "$log" | head -n 20 | sed 's/^/     /'
  fi
  [ "${fail[run]}" = 0 ] && run_cell=ok || run_cell=FAIL
  MATRIX_ROWS+=("$(printf '| %-22s | %-14s | %-14s | %-14s | %-4s | %3d s |' "$label $v" "$(matrix_cell "${pass[produce]}" "${fail[produce]}")" \
    "$(matrix_cell "${pass[group]}" "${fail[group]}")" "$(matrix_cell "${pass[admin]}" "${fail[admin]}")" "$run_cell" $((SECONDS - start)))")
}

# matrix_report SUITE BOOTSTRAP: the table and the closing line; returns non-zero on any failure.
matrix_report() {
  echo
  echo "$1 generations against $2:"
  echo "| client                 | produce        | group consume  | admin          | run  | time  |"
  echo "| ---------------------- | -------------- | -------------- | -------------- | ---- | ----- |"
  local row
  for row in "${MATRIX_ROWS[@]}"; do echo "$row"; done
  echo "interop-$1: $MATRIX_PASSED passed, $MATRIX_FAILED failed"
  [ "$MATRIX_FAILED" = 0 ]
}

# matrix_versions FILE: the versions listed in FILE, one a line, without comments and blank lines.
matrix_versions() { grep -Ev '^\s*(#|$)' "$1"; }
