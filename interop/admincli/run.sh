#!/usr/bin/env bash
# run.sh [karst|kafka] — Karst's admin CLI (karst topic|produce|consume|group|config|cluster) against KARST_BOOTSTRAP:
# the same commands the Go tests in internal/admincli run against a Karst test broker, here
# against whichever broker interop/run started (Karst, or Apache Kafka 4.4.0 with --against kafka),
# each checked by its output. The binary is KARST_BIN, else built from this tree into a temp dir.
# Then secure.sh: karst user and karst acl against a broker of the kind named by the argument
# (default karst) that it starts with SASL_PLAINTEXT and the StandardAuthorizer.
# Prints PASS/FAIL per check and the closing line "interop-admincli: N passed, M failed".
set -uo pipefail
AGAINST="${1:-karst}"
HERE="$(cd "$(dirname "$0")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
B="${KARST_BOOTSTRAP:-127.0.0.1:9092}"
SUFFIX="$(od -An -N4 -tx1 /dev/urandom | tr -d ' \n')"
T="admincli-$SUFFIX"          # 3 partitions, then 5: topic admin
TE="admincli-events-$SUFFIX"  # 2 partitions: produce and consume
TG="admincli-jobs-$SUFFIX"    # 2 partitions: the group's topic
G="admincli-workers-$SUFFIX"
GC="admincli-configs-$SUFFIX" # a group for group configs only
GS="admincli-share-$SUFFIX"   # a share group on TG
WORK="$(mktemp -d /tmp/interop-admincli.XXXXXX)"
trap 'stop_secure_broker 2> /dev/null; rm -rf "$WORK"' EXIT
PASSED=0; FAILED=0

KARST="${KARST_BIN:-}"
if [ -z "$KARST" ]; then
  KARST="$WORK/karst"
  (cd "$ROOT" && timeout 600 go build -o "$KARST" ./cmd/karst) || { echo "interop-admincli: 0 passed, 1 failed"; exit 1; }
fi

# check NAME FUNCTION: runs FUNCTION; its output goes to a log shown only on failure.
check() {
  local name="$1" fn="$2" start=$SECONDS
  if "$fn" > "$WORK/$name.log" 2>&1; then
    PASSED=$((PASSED + 1)); echo "PASS $name ($((SECONDS - start)) s)"
  else
    FAILED=$((FAILED + 1)); echo "FAIL $name ($((SECONDS - start)) s)"; sed 's/^/     /' "$WORK/$name.log" | tail -n 25
  fi
}
k() { timeout 60 "$KARST" "$@" --bootstrap-server "$B"; }
expect_eq() { if [ "$1" != "$2" ]; then echo "want: $(printf %q "$2")"; echo "got:  $(printf %q "$1")"; return 1; fi; }
# eventually CMD...: runs CMD until it succeeds, at most 30 times a second apart. Apache Kafka
# applies a broker config change after the controller has committed it, a moment after the
# IncrementalAlterConfigs answer.
eventually() { local i; for i in $(seq 1 30); do "$@" && return 0; sleep 1; done; return 1; }
broker_config_is() { expect_eq "$(row "$(k config get broker "$1")" "$2")" "$3"; }
# row OUTPUT FIRST: the whitespace-squeezed table row starting with FIRST.
row() { awk -v f="$2" '$1 == f { $1 = $1; print; exit }' <<< "$1"; }
# lag_row OUTPUT TOPIC PARTITION: CURRENT-OFFSET LOG-END-OFFSET LAG of a group describe row.
lag_row() { awk -v t="$2" -v p="$3" '$1 == t && $2 == p { print $3, $4, $5; exit }' <<< "$1"; }

cluster_info() {
  local out; out="$(k cluster info)" || return 1; echo "$out"
  expect_eq "$(row "$out" CONTROLLER)" "CONTROLLER 1" &&
  expect_eq "$(row "$out" 1)" "1 ${B%:*} ${B##*:} -" &&
  grep -Eq '^CLUSTER +[A-Za-z0-9_-]{22}$' <<< "$out"
}

topic_create() {
  expect_eq "$(k topic create "$T" --partitions 3 --replication-factor 1 --config retention.ms=3600000 --config cleanup.policy=compact)" \
    "created topic $T: 3 partitions, replication factor 1" &&
  expect_eq "$(k topic create "$TE" --partitions 2)" "created topic $TE: 2 partitions, replication factor 1" &&
  k topic create "$TG" --partitions 2
}

topic_create_duplicate_fails() {
  local out; out="$(k topic create "$T" --partitions 3 2>&1)"; local rc=$?
  echo "$out"; [ "$rc" = 1 ] && grep -q TOPIC_ALREADY_EXISTS <<< "$out"
}

topic_list() {
  local out; out="$(k topic list)" || return 1; echo "$out"
  expect_eq "$(row "$out" "$T")" "$T 3 1" && expect_eq "$(row "$out" __consumer_offsets)" ""
}

topic_describe() {
  local out; out="$(k topic describe "$T")" || return 1; echo "$out"
  expect_eq "$(row "$out" PARTITIONS)" "PARTITIONS 3" && expect_eq "$(row "$out" REPLICATION)" "REPLICATION 1" &&
  grep -Eq "^ID +[A-Za-z0-9_-]{22}$" <<< "$out" &&
  expect_eq "$(sed -n '/^CONFIGS$/,/^$/p' <<< "$out")" "$(printf 'CONFIGS\n  cleanup.policy=compact\n  retention.ms=3600000\n')" &&
  for p in 0 1 2; do
    # PARTITION LEADER EPOCH REPLICAS ISR LOG-START LOG-END
    awk -v p="$p" '$1 == p && $2 == 1 && $4 == 1 && $5 == 1 && $6 == 0 && $7 == 0 { ok = 1 } END { exit !ok }' <<< "$out" || return 1
  done
}

topic_alter() {
  expect_eq "$(k topic alter "$T" --partitions 5 --config retention.ms=60000 --delete-config cleanup.policy)" \
    "$(printf 'topic %s: 5 partitions\nupdated topic "%s": retention.ms=60000, cleanup.policy removed' "$T" "$T")" || return 1
  local out; out="$(k topic describe "$T")" || return 1; echo "$out"
  expect_eq "$(row "$out" PARTITIONS)" "PARTITIONS 5" &&
  expect_eq "$(sed -n '/^CONFIGS$/,/^$/p' <<< "$out")" "$(printf 'CONFIGS\n  retention.ms=60000\n')" &&
  local err; err="$(k topic alter "$T" --partitions 2 2>&1)"; echo "$err"; grep -q INVALID_PARTITIONS <<< "$err"
}

produce_consume_text() {
  local err; err="$(printf 'k1:v1\nk2:v:2\n:empty-key\n' | k produce "$TE" -K : -H src=cli -H run=1 -p 1 2>&1 >/dev/null)" || return 1
  expect_eq "$err" "produced 3 records to $TE" &&
  expect_eq "$(echo plain | k produce "$TE" --partition 0 --print-offsets 2>/dev/null)" "$TE/0@0" &&
  expect_eq "$(k consume "$TE" -p 1 -o beginning -e -K = --print-headers)" \
    "$(printf 'src:cli,run:1\tk1=v1\nsrc:cli,run:1\tk2=v:2\nsrc:cli,run:1\t=empty-key')" &&
  expect_eq "$(k consume "$TE" -p 0 --from-beginning --exit)" "plain" &&
  expect_eq "$(k consume "$TE" -o beginning -e | sort | tr '\n' ' ')" "empty-key plain v1 v:2 "
}

consume_offsets() {
  expect_eq "$(k consume "$TE" -p 1 -o 1 -e | tr '\n' ' ')" "v:2 empty-key " &&
  expect_eq "$(k consume "$TE" -p 1 -o -1 -e)" "empty-key" &&
  expect_eq "$(k consume "$TE" -p 1 -o beginning -c 2 | tr '\n' ' ')" "v1 v:2 " &&
  expect_eq "$(k consume "$TE" -e)" ""
}

consume_json_hex() {
  expect_eq "$(k consume "$TE" -p 0 -o beginning -e --format hex -K ' ' --print-headers)" "$(printf 'NO_HEADERS\tnull 706c61696e')" || return 1
  local json; json="$(k consume "$TE" -p 1 -o beginning -c 1 --format json)" || return 1; echo "$json"
  python3 -c '
import json, sys
r = json.loads(sys.argv[1])
assert r["topic"] == sys.argv[2] and r["partition"] == 1 and r["offset"] == 0, r
assert r["key"] == "k1" and r["value"] == "v1" and r["timestamp"] > 0, r
assert r["headers"] == [{"key": "src", "value": "cli"}, {"key": "run", "value": "1"}], r
' "$json" "$TE"
}

group_consume_and_lag() {
  printf 'a\nb\nc\n' | k produce "$TG" -p 0 2>/dev/null && echo d | k produce "$TG" -p 1 2>/dev/null || return 1
  expect_eq "$(k consume "$TG" --group "$G" -o beginning -e | sort | tr '\n' ' ')" "a b c d " || return 1
  local list; list="$(k group list)" || return 1; echo "$list"
  # GROUP STATE TYPE PROTOCOL-TYPE COORDINATOR
  awk -v g="$G" '$1 == g && $2 == "Empty" && $4 == "consumer" && $5 == 1 { ok = 1 } END { exit !ok }' <<< "$list" || return 1
  # The group's commits made the offsets topic, which only --internal lists.
  [ -n "$(row "$(k topic list --internal)" __consumer_offsets)" ] || { echo "no __consumer_offsets in topic list --internal"; return 1; }
  printf 'e\nf\n' | k produce "$TG" -p 1 2>/dev/null || return 1
  local out; out="$(k group describe "$G")" || return 1; echo "$out"
  expect_eq "$(row "$out" STATE)" "STATE Empty" && expect_eq "$(row "$out" MEMBERS)" "MEMBERS 0" &&
  expect_eq "$(lag_row "$out" "$TG" 0)" "3 3 0" && expect_eq "$(lag_row "$out" "$TG" 1)" "1 3 2" &&
  expect_eq "$(k consume "$TG" -g "$G" -e | tr '\n' ' ')" "e f "
}

group_reset_offsets() {
  local dry; dry="$(k group reset-offsets "$G" --topic "$TG" --to-earliest 2>/dev/null)" || return 1; echo "$dry"
  expect_eq "$(awk 'NR > 1 { $1 = $1; print }' <<< "$dry" | tr '\n' ';')" "$G $TG 0 0;$G $TG 1 0;" &&
  expect_eq "$(lag_row "$(k group describe "$G")" "$TG" 1)" "3 3 0" &&
  k group reset-offsets "$G" --all-topics --shift-by -2 --execute &&
  expect_eq "$(k consume "$TG" -g "$G" -e | sort | tr '\n' ' ')" "b c e f " &&
  k group reset-offsets "$G" --topic "$TG" --to-offset 1 --execute &&
  expect_eq "$(lag_row "$(k group describe "$G")" "$TG" 0)" "1 3 2"
}

group_delete() {
  expect_eq "$(k group delete "$G")" "deleted group $G" || return 1
  local err; err="$(k group describe "$G" 2>&1)"; local rc=$?
  echo "$err"; [ "$rc" = 1 ] && grep -q "group $G does not exist" <<< "$err"
}

# share_row OUTPUT TOPIC PARTITION: START-OFFSET LOG-END-OFFSET LAG of a share group describe row.
share_row() { awk -v t="$2" -v p="$3" 'NF == 6 && $1 == t && $2 == p { print $3, $4, $5; exit }' <<< "$1"; }

share_group_consume_and_describe() {
  # TG holds a b c on partition 0 and d e f on partition 1 (group_consume_and_lag).
  k config set group "$GS" share.auto.offset.reset=earliest || return 1
  expect_eq "$(k consume "$TG" --share-group "$GS" --count 6 | sort | tr '\n' ' ')" "a b c d e f " || return 1
  local list; list="$(k group list)" || return 1; echo "$list"
  # GROUP STATE TYPE PROTOCOL-TYPE COORDINATOR
  awk -v g="$GS" '$1 == g && $2 == "Empty" && $3 == "share" && $4 == "share" && $5 == 1 { ok = 1 } END { exit !ok }' <<< "$list" || return 1
  local out; out="$(k group describe "$GS")" || return 1; echo "$out"
  expect_eq "$(row "$out" TYPE)" "TYPE share" && expect_eq "$(row "$out" STATE)" "STATE Empty" &&
  expect_eq "$(row "$out" MEMBERS)" "MEMBERS 0"
}

# The share-partition start offsets and lag come from DescribeShareGroupOffsets.
share_group_start_offsets() {
  printf 'g\n' | k produce "$TG" -p 0 2>/dev/null || return 1
  local out; out="$(k group describe "$GS")" || return 1; echo "$out"
  # Every record delivered was accepted, so only g lags. The start offset is at most past them:
  # Kafka 4.4.0 answered 0 here, as its share coordinator had kept the state written with the
  # acknowledgements, whose start offset moves forward only later.
  share_start_and_lag "$(share_row "$out" "$TG" 0)" 3 "4 1" && share_start_and_lag "$(share_row "$out" "$TG" 1)" 3 "3 0"
}
# share_start_and_lag ROW MAX REST: ROW is "START END LAG" with 0 <= START <= MAX and "END LAG" = REST.
share_start_and_lag() {
  local start="${1%% *}"
  [[ "$start" =~ ^[0-9]+$ ]] && [ "$start" -le "$2" ] && expect_eq "${1#* }" "$3" || { echo "row $1: want a start offset 0..$2 and $3"; return 1; }
}

share_state_is() { expect_eq "$(row "$(k group describe "$GS")" STATE)" "STATE $1"; }
# reset-offsets of a share group alters its share-partition start offsets (AlterShareGroupOffsets), as
# kafka-share-groups --reset-offsets: a dry run moves nothing, --execute re-delivers from the new offsets,
# and a group with a member is refused even for a dry run.
share_group_reset_offsets() {
  # TG: a b c g on partition 0, d e f on partition 1; everything but g was accepted.
  local dry; dry="$(k group reset-offsets "$GS" --topic "$TG" --to-earliest 2>/dev/null)" || return 1; echo "$dry"
  expect_eq "$(awk 'NR > 1 { $1 = $1; print }' <<< "$dry" | tr '\n' ';')" "$GS $TG 0 0;$GS $TG 1 0;" &&
  expect_eq "$(k consume "$TG" --share-group "$GS" --count 1)" "g" && eventually share_state_is Empty &&
  k group reset-offsets "$GS" --all-topics --to-earliest --execute &&
  expect_eq "$(k consume "$TG" --share-group "$GS" --count 7 | sort | tr '\n' ' ')" "a b c d e f g " &&
  eventually share_state_is Empty &&
  k group reset-offsets "$GS" --topic "$TG" --to-offset 2 --execute &&
  expect_eq "$(k consume "$TG" --share-group "$GS" --count 3 | sort | tr '\n' ' ')" "c f g " &&
  eventually share_state_is Empty || return 1
  local past future latest
  past="$(k group reset-offsets "$GS" --topic "$TG" --to-datetime 2000-01-01T00:00:00.000 2>/dev/null)" &&
  future="$(k group reset-offsets "$GS" --topic "$TG" --to-datetime 2999-01-01T00:00:00.000Z 2>/dev/null)" &&
  latest="$(k group reset-offsets "$GS" --all-topics --to-latest 2>/dev/null)" || return 1
  echo "$past"; echo "$future"; echo "$latest"
  expect_eq "$(awk 'NR > 1 { print $3, $4 }' <<< "$past" | tr '\n' ';')" "0 0;1 0;" &&
  expect_eq "$(awk 'NR > 1 { print $3, $4 }' <<< "$future" | tr '\n' ';')" "0 4;1 3;" &&
  expect_eq "$(awk 'NR > 1 { print $3, $4 }' <<< "$latest" | tr '\n' ';')" "0 4;1 3;" || return 1
  # A live member: consume waits for one record, which the produce below brings.
  k consume "$TG" --share-group "$GS" --count 1 > "$WORK/share-member.out" 2>&1 & local member=$!
  eventually share_state_is Stable || { kill "$member"; return 1; }
  local err; err="$(k group reset-offsets "$GS" --all-topics --to-earliest 2>&1)"; local rc=$?; echo "$err"
  printf 'h\n' | k produce "$TG" -p 1 2>/dev/null; wait "$member"; local mrc=$?
  cat "$WORK/share-member.out"
  [ "$rc" = 1 ] && grep -q "share group $GS is not empty" <<< "$err" && [ "$mrc" = 0 ] &&
  expect_eq "$(cat "$WORK/share-member.out")" "h" && eventually share_state_is Empty
}

share_group_delete() {
  expect_eq "$(k group delete "$GS")" "deleted group $GS" || return 1
  local err; err="$(k group describe "$GS" 2>&1)"; local rc=$?
  echo "$err"; [ "$rc" = 1 ] && grep -q "group $GS does not exist" <<< "$err"
}

config_topic() {
  expect_eq "$(k config get topic "$T" | awk '{ $1 = $1; print }')" "$(printf 'KEY VALUE SOURCE\nretention.ms 60000 DYNAMIC_TOPIC_CONFIG')" &&
  expect_eq "$(k config set topic "$T" max.message.bytes=1048576 --delete retention.ms)" \
    "updated topic \"$T\": max.message.bytes=1048576, retention.ms removed" || return 1
  local all; all="$(k config get topic "$T" --all)" || return 1; echo "$all"
  expect_eq "$(row "$all" max.message.bytes)" "max.message.bytes 1048576 DYNAMIC_TOPIC_CONFIG" &&
  expect_eq "$(row "$all" cleanup.policy)" "cleanup.policy delete DEFAULT_CONFIG" &&
  local err; err="$(k config set topic "$T" no.such.config=1 2>&1)"; echo "$err"; grep -q INVALID_CONFIG <<< "$err"
}

config_broker() {
  # Set and then removed, so the broker the other suites share is left as it was.
  k config set broker 1 log.cleaner.threads=2 &&
  eventually broker_config_is 1 log.cleaner.threads "log.cleaner.threads 2 DYNAMIC_BROKER_CONFIG" &&
  k config set broker 1 --delete log.cleaner.threads && eventually broker_config_is 1 log.cleaner.threads "" &&
  k config set broker "" log.cleaner.threads=2 &&
  eventually broker_config_is "" log.cleaner.threads "log.cleaner.threads 2 DYNAMIC_DEFAULT_BROKER_CONFIG" &&
  k config set broker "" --delete log.cleaner.threads
}

group_config_is() { expect_eq "$(row "$(k config get group "$GC")" consumer.session.timeout.ms)" "consumer.session.timeout.ms 50000 GROUP_CONFIG"; }
config_group() {
  # Kafka, as for broker configs, answers with the change once its controller has committed it.
  expect_eq "$(k config set group "$GC" consumer.session.timeout.ms=50000)" "updated group_config \"$GC\": consumer.session.timeout.ms=50000" &&
  eventually group_config_is
}

command_config() {
  printf 'bootstrap.servers=%s\nclient.id=ops\n' "$B" > "$WORK/client.properties"
  expect_eq "$(row "$(timeout 60 "$KARST" cluster info --command-config "$WORK/client.properties")" CONTROLLER)" "CONTROLLER 1"
}

topic_delete() {
  expect_eq "$(k topic delete "$T" "$TE" "$TG" | sort)" "$(printf 'deleted topic %s\ndeleted topic %s\ndeleted topic %s' "$T" "$TG" "$TE" | sort)" &&
  expect_eq "$(row "$(k topic list)" "$T")" ""
}

check cluster_info cluster_info
check topic_create topic_create
check topic_create_duplicate_fails topic_create_duplicate_fails
check topic_list topic_list
check topic_describe topic_describe
check topic_alter topic_alter
check produce_consume_text produce_consume_text
check consume_offsets consume_offsets
check consume_json_hex consume_json_hex
check group_consume_and_lag group_consume_and_lag
check group_reset_offsets group_reset_offsets
check group_delete group_delete
check share_group_consume_and_describe share_group_consume_and_describe
check share_group_start_offsets share_group_start_offsets
check share_group_reset_offsets share_group_reset_offsets
check share_group_delete share_group_delete
check config_topic config_topic
check config_broker config_broker
check config_group config_group
check command_config command_config
check topic_delete topic_delete
source "$HERE/secure.sh"
echo "interop-admincli: $PASSED passed, $FAILED failed"
[ "$FAILED" = 0 ]
