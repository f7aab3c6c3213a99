#!/usr/bin/env bash
# Kafka's own CLI tools (via interop/kafka/tool.sh) and kcat against KARST_BOOTSTRAP.
# Prints PASS/FAIL per check and the closing line "interop-cli: N passed, M failed".
# Every command is bounded by `timeout`; consumers read by partition, except the consumer-group
# checks (INTEROP_GROUPS=0 skips them), which drive kafka-console-consumer --group and
# kafka-consumer-groups. kafka-configs also sets group configs, client quotas and client-metrics
# subscriptions, and kafka-client-metrics lists, describes and alters the subscriptions. The
# transaction checks (INTEROP_TXN=0 skips them) copy records with Kafka's
# TransactionalMessageCopier, hold a transaction open with TxnHold.java (a single-file Java program on
# Kafka's client jars) and inspect both with kafka-transactions list / describe / describe-producers.
# The share group checks (INTEROP_SHARE=0 skips them) read a topic with kafka-console-share-consumer
# and then run kafka-share-groups (list, describe, reset offsets, delete offsets, delete) on its group:
# released records come back with delivery count 2, accepted ones do not.
set -uo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
TOOL="$HERE/../kafka/tool.sh"
B="${KARST_BOOTSTRAP:-127.0.0.1:9092}"
SUFFIX="$(od -An -N4 -tx1 /dev/urandom | tr -d ' \n')"
T3="interop-cli-$SUFFIX"        # 3 partitions: topic admin checks
T1="interop-cli-one-$SUFFIX"    # 1 partition: console round trip, offsets
TK="interop-kcat-$SUFFIX"       # 1 partition: kcat round trip
TG="interop-cli-group-$SUFFIX"  # 2 partitions: consumer-group tools
G="interop-cli-group-$SUFFIX"
TXI="interop-cli-txn-in-$SUFFIX"      # 1 partition: copier input
TXO="interop-cli-txn-out-$SUFFIX"     # 1 partition: copier output (transactional)
TXH="interop-cli-txn-held-$SUFFIX"    # 1 partition: an open transaction's records
TXC="interop-cli-txn-copier-$SUFFIX"  # the copier's transactional id and group
TXHID="interop-cli-txn-held-$SUFFIX"  # TxnHold's transactional id
TA="interop-cli-admin-$SUFFIX"        # 2 partitions: leader election, reassignment, log dirs
TS="interop-cli-share-$SUFFIX"        # 2 partitions: kafka-console-share-consumer, share group TS
source "$HERE/../kafka/common.sh" # KAFKA_LIB: the jars of Kafka $KAFKA_VERSION (default 4.4.0)
WORK="$(mktemp -d /tmp/interop-cli.XXXXXX)"
HOLD_PID=""
trap '[ -n "$HOLD_PID" ] && kill "$HOLD_PID" 2> /dev/null; rm -rf "$WORK"' EXIT
PASSED=0; FAILED=0

# check NAME FUNCTION: runs FUNCTION; its stdout/stderr go to a log shown only on failure.
check() {
  local name="$1" fn="$2" start=$SECONDS
  if "$fn" > "$WORK/$name.log" 2>&1; then
    PASSED=$((PASSED + 1)); echo "PASS $name ($((SECONDS - start)) s)"
  else
    FAILED=$((FAILED + 1)); echo "FAIL $name ($((SECONDS - start)) s)"; sed 's/^/     /' "$WORK/$name.log" | tail -n 25; return 1
  fi
}

tool() { timeout 60 "$TOOL" "$@"; }
expect_eq() { if [ "$1" != "$2" ]; then echo "want: $(printf %q "$2")"; echo "got:  $(printf %q "$1")"; return 1; fi; }

topics_create() {
  tool kafka-topics --bootstrap-server "$B" --create --topic "$T3" --partitions 3 --replication-factor 1 \
    --config max.message.bytes=2097152 &&
  tool kafka-topics --bootstrap-server "$B" --create --topic "$T1" --partitions 1 --replication-factor 1 &&
  tool kafka-topics --bootstrap-server "$B" --create --topic "$TK" --partitions 1 --replication-factor 1
}

topics_create_duplicate_fails() {
  local out
  if out=$(tool kafka-topics --bootstrap-server "$B" --create --topic "$T3" --partitions 3 --replication-factor 1 2>&1); then
    echo "second create succeeded: $out"; return 1
  fi
  echo "$out"; grep -q "already exists" <<< "$out"
}

topics_list() {
  local out; out=$(tool kafka-topics --bootstrap-server "$B" --list) || return 1
  echo "$out"; grep -qx "$T3" <<< "$out" && grep -qx "$T1" <<< "$out"
}

topics_describe() {
  local out; out=$(tool kafka-topics --bootstrap-server "$B" --describe --topic "$T3") || return 1
  echo "$out"
  grep -q "PartitionCount: 3" <<< "$out" || return 1
  grep -q "max.message.bytes=2097152" <<< "$out" || return 1
  [ "$(grep -cE "Partition: [0-2][[:space:]]+Leader: [0-9]+" <<< "$out")" = 3 ]
}

console_roundtrip() {
  local input=$'k1:hello\nk2:w\xc3\xb6rld\nk1:third line with spaces\nk3:\nk4:{"json":true}'
  printf '%s\n' "$input" | tool kafka-console-producer --bootstrap-server "$B" --topic "$T1" \
    --reader-property parse.key=true --reader-property key.separator=: --compression-codec zstd --sync || return 1
  local out
  out=$(tool kafka-console-consumer --bootstrap-server "$B" --topic "$T1" --partition 0 --offset earliest \
    --max-messages 5 --timeout-ms 30000 --formatter-property print.key=true --formatter-property key.separator=:) || return 1
  expect_eq "$out" "$input"
}

get_offsets() {
  local latest earliest
  latest=$(tool kafka-get-offsets --bootstrap-server "$B" --topic "$T1") || return 1
  earliest=$(tool kafka-get-offsets --bootstrap-server "$B" --topic "$T1" --time -2) || return 1
  expect_eq "$latest" "$T1:0:5" && expect_eq "$earliest" "$T1:0:0"
}

configs_describe() {
  local out; out=$(tool kafka-configs --bootstrap-server "$B" --entity-type topics --entity-name "$T3" --describe) || return 1
  echo "$out"; grep -q "max.message.bytes=2097152" <<< "$out"
}

configs_alter() {
  tool kafka-configs --bootstrap-server "$B" --entity-type topics --entity-name "$T3" --alter \
    --add-config retention.ms=86400000,cleanup.policy=compact || return 1
  local out; out=$(tool kafka-configs --bootstrap-server "$B" --entity-type topics --entity-name "$T3" --describe) || return 1
  echo "$out"
  grep -q "retention.ms=86400000" <<< "$out" && grep -q "cleanup.policy=compact" <<< "$out" || return 1
  tool kafka-configs --bootstrap-server "$B" --entity-type topics --entity-name "$T3" --alter \
    --delete-config cleanup.policy || return 1
  out=$(tool kafka-configs --bootstrap-server "$B" --entity-type topics --entity-name "$T3" --describe) || return 1
  echo "$out"; ! grep -q "cleanup.policy=compact" <<< "$out"
}

kcat_metadata() {
  local out; out=$(timeout 30 kcat -b "$B" -L -t "$T3") || return 1
  echo "$out"
  grep -q "topic \"$T3\" with 3 partitions" <<< "$out" || return 1
  [ "$(grep -cE "partition [0-2], leader [0-9]+" <<< "$out")" = 3 ]
}

kcat_roundtrip() {
  local want="" codec i
  for codec in none gzip snappy lz4 zstd; do
    local batch=""
    for i in 1 2 3; do batch+="key-$codec-$i:value $codec $i"$'\n'; done
    printf '%s' "$batch" | timeout 30 kcat -b "$B" -P -t "$TK" -p 0 -K: -z "$codec" -X request.required.acks=-1 || return 1
    want+="$batch"
  done
  local got
  got=$(timeout 30 kcat -b "$B" -C -t "$TK" -p 0 -o beginning -c 15 -e -f '%k:%s\n') || return 1
  expect_eq "$got" "${want%$'\n'}"
}

kcat_headers_timestamp() {
  printf 'hv\n' | timeout 30 kcat -b "$B" -P -t "$TK" -p 0 -k hk -H a=1 -H a=2 -H b= || return 1
  local got
  got=$(timeout 30 kcat -b "$B" -C -t "$TK" -p 0 -o -1 -c 1 -e -f '%k|%s|%h|%T\n') || return 1
  echo "$got"
  grep -qE '^hk\|hv\|a=1,a=2,b=\|[0-9]{13}$' <<< "$got"
}

# ---- consumer groups: 10 records consumed and committed by a console consumer in group G, then 4
# more produced, so G lags by 4 in total.
produce_values() { # FROM TO: keyed records vFROM..vTO (keys spread them over the partitions)
  seq "$1" "$2" | sed 's/.*/k&:v&/' | tool kafka-console-producer --bootstrap-server "$B" --topic "$TG" \
    --reader-property parse.key=true --reader-property key.separator=: --sync
}
group_consume() { # N: reads N records as group G from its committed offsets (earliest when none)
  tool kafka-console-consumer --bootstrap-server "$B" --topic "$TG" --group "$G" --max-messages "$1" \
    --timeout-ms 30000 --command-property auto.offset.reset=earliest
}
sorted_values() { sort -t v -k2 -n; }
# describe_rows: "PARTITION CURRENT-OFFSET LOG-END-OFFSET LAG" per partition of TG, sorted.
describe_rows() {
  local out; out=$(tool kafka-consumer-groups --bootstrap-server "$B" --describe --group "$G") || return 1
  echo "$out" >&2
  awk -v t="$TG" '$2 == t { print $3, $4, $5, $6 }' <<< "$out" | sort -n
}

groups_consume_commit() {
  tool kafka-topics --bootstrap-server "$B" --create --topic "$TG" --partitions 2 --replication-factor 1 || return 1
  produce_values 1 10 || return 1
  local got; got=$(group_consume 10) || return 1
  expect_eq "$(sorted_values <<< "$got")" "$(seq 1 10 | sed 's/^/v/')" || return 1
  produce_values 11 14
}

groups_list() {
  local out; out=$(tool kafka-consumer-groups --bootstrap-server "$B" --list) || return 1
  echo "$out"; grep -qx "$G" <<< "$out"
}

groups_describe_lag() {
  local rows; rows=$(describe_rows) || return 1
  echo "$rows"
  [ "$(wc -l <<< "$rows")" = 2 ] || { echo "want 2 partition rows"; return 1; }
  # Per partition: LAG = LOG-END-OFFSET - CURRENT-OFFSET; in total 14 records, 10 consumed, lag 4.
  awk '{ if ($4 != $3 - $2) bad = 1; cur += $2; end += $3; lag += $4 }
       END { if (bad || cur != 10 || end != 14 || lag != 4) { print "bad lag columns"; exit 1 } }' <<< "$rows"
}

groups_reset_to_earliest() {
  local out; out=$(tool kafka-consumer-groups --bootstrap-server "$B" --reset-offsets --group "$G" --topic "$TG" \
    --to-earliest --execute) || return 1
  echo "$out"
  local rows; rows=$(describe_rows) || return 1
  echo "$rows"
  awk '{ if ($2 != 0) bad = 1 } END { exit bad }' <<< "$rows" || { echo "offsets not reset to 0"; return 1; }
  # Consumption restarts from offset 0: all 14 records again.
  local got; got=$(group_consume 14) || return 1
  expect_eq "$(sorted_values <<< "$got")" "$(seq 1 14 | sed 's/^/v/')"
}

groups_delete() {
  tool kafka-consumer-groups --bootstrap-server "$B" --delete --group "$G" || return 1
  local out; out=$(tool kafka-consumer-groups --bootstrap-server "$B" --list) || return 1
  echo "$out"; ! grep -qx "$G" <<< "$out"
}

# ---- share groups (KIP-932): kafka-console-share-consumer reads TS as share group TS (its
# share.auto.offset.reset=earliest set with kafka-configs) and releases the 6 records; the next run
# gets them again with delivery count 2 and accepts them; a record produced after that is the only
# one a third run reads.
share_console() { # ARGS...: prints Delivery:COUNT:KEY:VALUE per record
  tool kafka-console-share-consumer --bootstrap-server "$B" --topic "$TS" --group "$TS" --timeout-ms 30000 \
    --formatter-property print.key=true --formatter-property print.delivery=true --formatter-property key.separator=: "$@"
}
share_values() { # FROM TO COUNT: the lines share_console prints for records kFROM..kTO, sorted
  seq "$1" "$2" | sed "s/.*/Delivery:$3:k&:v&/" | sort
}
share_console_release() {
  tool kafka-topics --bootstrap-server "$B" --create --topic "$TS" --partitions 2 --replication-factor 1 || return 1
  tool kafka-configs --bootstrap-server "$B" --alter --entity-type groups --entity-name "$TS" \
    --add-config share.auto.offset.reset=earliest || return 1
  seq 1 6 | sed 's/.*/k&:v&/' | tool kafka-console-producer --bootstrap-server "$B" --topic "$TS" \
    --reader-property parse.key=true --reader-property key.separator=: --sync || return 1
  local got; got=$(share_console --max-messages 6 --release) || return 1
  expect_eq "$(sort <<< "$got")" "$(share_values 1 6 1)"
}
share_console_redelivered_accept() {
  local got; got=$(share_console --max-messages 6) || return 1
  expect_eq "$(sort <<< "$got")" "$(share_values 1 6 2)"
}
share_console_after_accept() {
  printf 'k7:v7\n' | tool kafka-console-producer --bootstrap-server "$B" --topic "$TS" \
    --reader-property parse.key=true --reader-property key.separator=: --sync || return 1
  local got; got=$(share_console --max-messages 1) || return 1
  expect_eq "$got" "Delivery:1:k7:v7"
}

# ---- kafka-share-groups (ShareGroupCommand) on share group TS once the console share consumer has
# left it: list, describe (offsets, state, members), reset offsets of the empty group, delete its
# offsets, delete it. Offsets are compared as columns, the same on Karst and Kafka.
sg() { tool kafka-share-groups --bootstrap-server "$B" "$@"; }
sg_columns() { # the PARTITION and the given column of TS's rows of `sg --describe`
  awk -v t="$TS" -v c="$1" '$1 == t && $2 == t { print $3, $c }' | sort
}
share_groups_list() {
  local got; got=$(sg --list) || return 1
  echo "$got"; grep -qx "$TS" <<< "$got"
}
share_groups_describe_offsets() {
  local got; got=$(sg --describe --group "$TS") || return 1
  echo "$got"
  # Every record is accepted: no lag. The start offsets may differ (Kafka 4.4 persists a
  # share-partition's start offset one write late, its lag subtracting the acknowledged records).
  expect_eq "$(sg_columns 5 <<< "$got")" $'0 0\n1 0' || return 1
  expect_eq "$(awk -v t="$TS" '$1 == t && $4 < 0 { print "negative start offset: " $0 }' <<< "$got")" ""
}
share_groups_describe_state() {
  local got; got=$(sg --describe --group "$TS" --state) || return 1
  echo "$got"; grep -Eq "^$TS +.* Empty +0\$" <<< "$got"
}
share_groups_describe_members() {
  local got; got=$(sg --describe --group "$TS" --members 2>&1) || return 1
  echo "$got"; grep -q "Share group '$TS' has no active members." <<< "$got"
}
share_groups_reset_to_earliest() {
  local got; got=$(sg --reset-offsets --group "$TS" --topic "$TS" --to-earliest --execute) || return 1
  echo "$got"
  expect_eq "$(sg_columns 4 <<< "$got")" $'0 0\n1 0' || return 1
  got=$(sg --describe --group "$TS") || return 1
  echo "$got"
  expect_eq "$(awk -v t="$TS" '$1 == t { s += $5 } END { print s }' <<< "$got")" 7
}
share_groups_reset_to_offset() {
  local got; got=$(sg --reset-offsets --group "$TS" --topic "$TS:0" --to-offset 1 --execute) || return 1
  echo "$got"
  expect_eq "$(sg_columns 4 <<< "$got")" "0 1" || return 1
  got=$(sg --describe --group "$TS") || return 1
  echo "$got"
  expect_eq "$(sg_columns 4 <<< "$got")" $'0 1\n1 0'
}
share_groups_reset_to_latest() {
  local got; got=$(sg --reset-offsets --group "$TS" --all-topics --to-latest --execute) || return 1
  echo "$got"
  got=$(sg --describe --group "$TS") || return 1
  echo "$got"
  expect_eq "$(sg_columns 5 <<< "$got")" $'0 0\n1 0'
}
share_groups_delete_offsets() {
  local got; got=$(sg --delete-offsets --group "$TS" --topic "$TS") || return 1
  echo "$got"; grep -Eq "^$TS +Successful" <<< "$got" || return 1
  got=$(sg --describe --group "$TS") || return 1
  echo "$got"; grep -q "Share group '$TS' has no offset information." <<< "$got"
}
share_groups_delete() {
  local got; got=$(sg --delete --group "$TS") || return 1
  echo "$got"; grep -q "Deletion of requested share groups ('$TS') was successful." <<< "$got" || return 1
  got=$(sg --list) || return 1
  ! grep -qx "$TS" <<< "$got"
}

# ---- transactions: TransactionalMessageCopier copies 10 records in transactions of 3 (consume-
# transform-produce with offsets in the transaction); TxnHold keeps a transaction open on TXH so that
# kafka-transactions has an Ongoing transaction to list and describe, then commits it.
kafka_java() { timeout 120 java -Xmx256m -XX:+UseSerialGC -XX:TieredStopAtLevel=1 \
  -Dlog4j2.configurationFile="$HERE/../kafka/tools-log4j2.properties" -cp "$KAFKA_LIB/*" "$@"; }
read_committed() { # TOPIC N: the first N values of partition 0, read_committed
  tool kafka-console-consumer --bootstrap-server "$B" --topic "$1" --partition 0 --offset earliest \
    --max-messages "$2" --timeout-ms 30000 --isolation-level read_committed
}
# txn_row TRANSACTIONAL_ID: kafka-transactions describe's data row for it (fields split by whitespace).
describe_txn() {
  local out; out=$(tool kafka-transactions --bootstrap-server "$B" describe --transactional-id "$1") || return 1
  echo "$out" >&2
  awk -v id="$1" '$2 == id' <<< "$out"
}

txn_copier() {
  local t
  for t in "$TXI" "$TXO" "$TXH"; do
    tool kafka-topics --bootstrap-server "$B" --create --topic "$t" --partitions 1 --replication-factor 1 || return 1
  done
  seq 1 10 | sed 's/^/m/' | tool kafka-console-producer --bootstrap-server "$B" --topic "$TXI" --sync || return 1
  kafka_java org.apache.kafka.tools.TransactionalMessageCopier --broker-list "$B" --input-topic "$TXI" \
    --input-partition 0 --output-topic "$TXO" --transactional-id "$TXC" --consumer-group "$TXC" \
    --max-messages 10 --transaction-size 3 --transaction-timeout 30000 || return 1
  local got; got=$(read_committed "$TXO" 10) || return 1
  expect_eq "$got" "$(seq 1 10 | sed 's/^/m/')"
}

txn_hold_open() {
  mkfifo "$WORK/hold.in" || return 1
  kafka_java "$HERE/TxnHold.java" "$B" "$TXHID" "$TXH" 3 < "$WORK/hold.in" > "$WORK/hold.out" 2>&1 &
  HOLD_PID=$!
  exec 7> "$WORK/hold.in" # TxnHold commits when this closes
  local deadline=$((SECONDS + 90))
  until grep -qx open "$WORK/hold.out"; do
    if ! kill -0 "$HOLD_PID" 2> /dev/null || [ $SECONDS -ge $deadline ]; then cat "$WORK/hold.out"; return 1; fi
    sleep 0.2
  done
}

transactions_list() {
  local out; out=$(tool kafka-transactions --bootstrap-server "$B" list) || return 1
  echo "$out"
  # Columns: TransactionalId Coordinator ProducerId TransactionState
  awk -v id="$TXHID" '$1 == id && $4 == "Ongoing" { ok = 1 } END { exit !ok }' <<< "$out" ||
    { echo "want $TXHID Ongoing"; return 1; }
  awk -v id="$TXC" '$1 == id && $4 == "CompleteCommit" { ok = 1 } END { exit !ok }' <<< "$out" ||
    { echo "want $TXC CompleteCommit"; return 1; }
  # Filters: by id pattern, and by duration (the held transaction has run for more than 1 ms, not
  # for a day; Kafka applies the duration to finished transactions too, from their last start).
  out=$(tool kafka-transactions --bootstrap-server "$B" list --transactional-id-pattern "interop-cli-txn-held-.*") || return 1
  echo "$out"
  awk 'NR > 1' <<< "$out" | awk '{ print $1 }' | grep -qx "$TXHID" || return 1
  ! grep -q "$TXC" <<< "$out" || { echo "pattern filter kept $TXC"; return 1; }
  out=$(tool kafka-transactions --bootstrap-server "$B" list --duration-filter 1) || return 1
  echo "$out"
  grep -q "$TXHID" <<< "$out" || return 1
  out=$(tool kafka-transactions --bootstrap-server "$B" list --duration-filter 86400000) || return 1
  echo "$out"
  ! grep -q "$TXHID" <<< "$out"
}

transactions_describe() {
  local row; row=$(describe_txn "$TXHID") || return 1
  echo "$row"
  # Columns: CoordinatorId TransactionalId ProducerId ProducerEpoch TransactionState
  # TransactionTimeoutMs CurrentTransactionStartTimeMs TransactionDurationMs TopicPartitions
  awk -v tp="$TXH-0" '$5 == "Ongoing" && $6 == 120000 && $7 ~ /^[0-9]+$/ && $NF ~ tp { ok = 1 } END { exit !ok }' <<< "$row"
}

transactions_describe_producers() {
  local out; out=$(tool kafka-transactions --bootstrap-server "$B" describe-producers --topic "$TXH" --partition 0) || return 1
  echo "$out"
  # Columns: ProducerId ProducerEpoch LatestCoordinatorEpoch LastSequence LastTimestamp
  # CurrentTransactionStartOffset; one producer, its transaction open from offset 0, 3 records.
  local rows; rows=$(awk 'NR > 1 && NF > 0' <<< "$out")
  [ "$(wc -l <<< "$rows")" = 1 ] || { echo "want one producer row"; return 1; }
  awk '$4 == 2 && $6 == 0 { ok = 1 } END { exit !ok }' <<< "$rows"
}

txn_hold_commit() {
  exec 7>&- # end of input: TxnHold commits
  local deadline=$((SECONDS + 60))
  while kill -0 "$HOLD_PID" 2> /dev/null; do
    [ $SECONDS -lt $deadline ] || { echo "TxnHold did not finish"; return 1; }
    sleep 0.2
  done
  wait "$HOLD_PID" || { cat "$WORK/hold.out"; return 1; }
  HOLD_PID=""
  grep -qx committed "$WORK/hold.out" || { cat "$WORK/hold.out"; return 1; }
  local row; row=$(describe_txn "$TXHID") || return 1
  echo "$row"
  awk '$5 == "CompleteCommit" { ok = 1 } END { exit !ok }' <<< "$row" || return 1
  local out; out=$(tool kafka-transactions --bootstrap-server "$B" describe-producers --topic "$TXH" --partition 0) || return 1
  echo "$out"
  awk 'NR > 1 && NF > 0 && $6 == "None" { ok = 1 } END { exit !ok }' <<< "$out" || return 1
  local got; got=$(read_committed "$TXH" 3) || return 1
  expect_eq "$got" $'held-0\nheld-1\nheld-2'
}

# ---- kafka-features: levels read from the cluster metadata, changed with UpdateFeatures.
feature_level() { # FEATURE: its FinalizedVersionLevel in `kafka-features describe`
  tool kafka-features --bootstrap-server "$B" describe |
    awk -v f="$1" '$1 == "Feature:" && $2 == f { for (i = 3; i < NF; i++) if ($i == "FinalizedVersionLevel:") print $(i + 1) }'
}
features_describe() {
  local out; out=$(tool kafka-features --bootstrap-server "$B" describe) || return 1
  echo "$out"
  # Kafka 4.4.0 at its defaults; share.version and streams.version may be listed too (Kafka) or not (Karst).
  grep -Eq '^Feature: metadata.version +SupportedMinVersion: 3.3-IV3 +SupportedMaxVersion: 4.4-IV2 +FinalizedVersionLevel: 4.4-IV2 +Epoch: [0-9]+' <<< "$out" &&
    grep -Eq '^Feature: transaction.version +SupportedMinVersion: 0 +SupportedMaxVersion: 2 +FinalizedVersionLevel: 2 ' <<< "$out" &&
    grep -Eq '^Feature: group.version +SupportedMinVersion: 0 +SupportedMaxVersion: 1 +FinalizedVersionLevel: 1 ' <<< "$out" &&
    grep -Eq '^Feature: eligible.leader.replicas.version +SupportedMinVersion: 0 +SupportedMaxVersion: 1 +FinalizedVersionLevel: 1 ' <<< "$out" &&
    grep -Eq '^Feature: kraft.version +SupportedMinVersion: 0 +SupportedMaxVersion: 1 ' <<< "$out"
}
features_upgrade_dry_run() {
  local out; out=$(tool kafka-features --bootstrap-server "$B" upgrade --feature transaction.version=2 --dry-run) || return 1
  expect_eq "$out" "transaction.version can be upgraded to 2." || return 1
  out=$(tool kafka-features --bootstrap-server "$B" downgrade --feature transaction.version=1 --dry-run) || return 1
  expect_eq "$out" "transaction.version can be downgraded to 1." || return 1
  expect_eq "$(feature_level transaction.version)" 2
}
features_upgrade_out_of_range_fails() {
  local out; if out=$(tool kafka-features --bootstrap-server "$B" upgrade --feature transaction.version=3 --dry-run 2>&1); then
    echo "$out"; echo "an upgrade to transaction.version 3 was accepted"; return 1; fi
  echo "$out"
  grep -q "Can not upgrade transaction.version to 3. The update failed for all features since the following feature had an error: Invalid update version 3 for feature transaction.version. Local controller 1 only supports versions 0-2" <<< "$out" || return 1
  if out=$(tool kafka-features --bootstrap-server "$B" downgrade --metadata 4.3-IV0 2>&1); then
    echo "$out"; echo "a metadata.version downgrade across changed records was accepted"; return 1; fi
  echo "$out"
  grep -q "Unsupported metadata.version downgrade from 33 to 30. Refusing to perform the requested downgrade because it might delete metadata information." <<< "$out"
}
features_downgrade_upgrade() {
  local out; out=$(tool kafka-features --bootstrap-server "$B" downgrade --feature transaction.version=1) || return 1
  expect_eq "$out" "transaction.version was downgraded to 1." || return 1
  expect_eq "$(feature_level transaction.version)" 1 || return 1
  out=$(tool kafka-features --bootstrap-server "$B" upgrade --feature transaction.version=2) || return 1
  expect_eq "$out" "transaction.version was upgraded to 2." || return 1
  expect_eq "$(feature_level transaction.version)" 2
}

# Group configs (GROUP resources, KIP-848): set, described with their source, range-checked.
configs_groups() {
  local g="interop-cli-cfg-group-$SUFFIX" out
  tool kafka-configs --bootstrap-server "$B" --alter --entity-type groups --entity-name "$g" \
    --add-config consumer.session.timeout.ms=50000,consumer.heartbeat.interval.ms=6000 || return 1
  out=$(tool kafka-configs --bootstrap-server "$B" --describe --entity-type groups --entity-name "$g") || return 1
  echo "$out"
  grep -q "consumer.session.timeout.ms=50000 sensitive=false synonyms={DYNAMIC_GROUP_CONFIG:consumer.session.timeout.ms=50000, DEFAULT_CONFIG:group.consumer.session.timeout.ms=45000}" <<< "$out" || return 1
  grep -q "consumer.heartbeat.interval.ms=6000 " <<< "$out" || return 1
  if out=$(tool kafka-configs --bootstrap-server "$B" --alter --entity-type groups --entity-name "$g" \
      --add-config consumer.session.timeout.ms=99999 2>&1); then
    echo "an out-of-range session timeout was accepted"; return 1
  fi
  grep -q "consumer.session.timeout.ms must be in the range 45000 to 60000 inclusive." <<< "$out"
}

# Client quotas (users / clients entities): stored, described, one key deleted; unknown keys refused.
configs_quotas() {
  local u="alice-$SUFFIX" c="app-$SUFFIX" out
  tool kafka-configs --bootstrap-server "$B" --alter --entity-type users --entity-name "$u" --entity-type clients \
    --entity-name "$c" --add-config producer_byte_rate=1024,consumer_byte_rate=2048 || return 1
  out=$(tool kafka-configs --bootstrap-server "$B" --describe --entity-type users --entity-name "$u" --entity-type clients --entity-name "$c") || return 1
  echo "$out"
  expect_eq "$out" "Quota configs for user-principal '$u', client-id '$c' are consumer_byte_rate=2048.0, producer_byte_rate=1024.0" || return 1
  tool kafka-configs --bootstrap-server "$B" --alter --entity-type users --entity-name "$u" --entity-type clients \
    --entity-name "$c" --delete-config consumer_byte_rate || return 1
  out=$(tool kafka-configs --bootstrap-server "$B" --describe --entity-type users --entity-name "$u" --entity-type clients --entity-name "$c") || return 1
  expect_eq "$out" "Quota configs for user-principal '$u', client-id '$c' are producer_byte_rate=1024.0" || return 1
  if out=$(tool kafka-configs --bootstrap-server "$B" --alter --entity-type users --entity-name "$u" --add-config bogus=1 2>&1); then
    echo "an unknown quota key was accepted"; return 1
  fi
  echo "$out"; grep -q "Unexpected config names: bogus" <<< "$out"
}

# Client-metrics subscriptions (KIP-714) through kafka-configs and kafka-client-metrics.
client_metrics() {
  local cm="interop-cli-cm-$SUFFIX" cm2="interop-cli-cm2-$SUFFIX" out
  tool kafka-client-metrics --bootstrap-server "$B" --alter --name "$cm" --metrics org.apache.kafka.producer.,org.apache.kafka.consumer. \
    --interval 5000 --match client_id=app,client_software_name=apache-kafka-java || return 1
  tool kafka-configs --bootstrap-server "$B" --alter --entity-type client-metrics --entity-name "$cm2" --add-config 'interval.ms=1000,metrics=*' || return 1
  out=$(tool kafka-client-metrics --bootstrap-server "$B" --list) || return 1
  echo "$out"
  grep -qx "$cm" <<< "$out" && grep -qx "$cm2" <<< "$out" || return 1
  out=$(tool kafka-client-metrics --bootstrap-server "$B" --describe --name "$cm") || return 1
  echo "$out"
  expect_eq "$out" "Client metrics configs for $cm are:
  interval.ms=5000
  match=client_id=app,client_software_name=apache-kafka-java
  metrics=org.apache.kafka.producer.,org.apache.kafka.consumer." || return 1
  out=$(tool kafka-configs --bootstrap-server "$B" --describe --entity-type client-metrics --entity-name "$cm2") || return 1
  echo "$out"
  grep -q "interval.ms=1000 sensitive=false synonyms={DYNAMIC_CLIENT_METRICS_CONFIG:interval.ms=1000}" <<< "$out" || return 1
  out=$(tool kafka-client-metrics --bootstrap-server "$B" --alter --name "$cm" --interval 50 2>&1)
  echo "$out"
  grep -q "Invalid value 50 for interval.ms, interval must be between 100 and 3600000 (1 hour)" <<< "$out"
}

# ---- cluster admin: leader elections, partition reassignments, the metadata quorum, the cluster id
# and broker registrations, log levels (broker-loggers) and log dirs, on a single-node cluster. Each
# tool run starts a JVM, so the node and cluster ids are looked up once (NODE, CLUSTER).
NODE=""; CLUSTER=""

leader_election() {
  tool kafka-topics --bootstrap-server "$B" --create --topic "$TA" --partitions 2 --replication-factor 1 || return 1
  NODE=$(tool kafka-topics --bootstrap-server "$B" --describe --topic "$TA" |
    awk '$1 == "Topic:" && $3 == "Partition:" && $4 == 0 { print $6 }')
  [ -n "$NODE" ] || { echo "no leader for $TA-0"; return 1; }
  local out
  out=$(tool kafka-leader-election --bootstrap-server "$B" --election-type preferred --all-topic-partitions 2>&1) ||
    { echo "$out"; return 1; }
  echo "$out"
  ! grep -qiE "fail|error|exception" <<< "$out" || return 1
  # A named partition whose preferred replica leads already: "Valid replica already elected".
  out=$(tool kafka-leader-election --bootstrap-server "$B" --election-type preferred --topic "$TA" --partition 0 2>&1) ||
    { echo "$out"; return 1; }
  echo "$out"
  grep -q "Valid replica already elected for partitions $TA-0" <<< "$out"
}

reassign_partitions() {
  local out
  # A trivial plan: every partition to the replicas it has, which completes at once.
  printf '{"version":1,"partitions":[{"topic":"%s","partition":0,"replicas":[%s]},{"topic":"%s","partition":1,"replicas":[%s]}]}\n' \
    "$TA" "$NODE" "$TA" "$NODE" > "$WORK/reassign.json"
  out=$(tool kafka-reassign-partitions --bootstrap-server "$B" --reassignment-json-file "$WORK/reassign.json" --execute 2>&1) ||
    { echo "$out"; return 1; }
  echo "$out"
  grep -q "Successfully started partition reassignments for $TA-0,$TA-1" <<< "$out" || return 1
  out=$(tool kafka-reassign-partitions --bootstrap-server "$B" --reassignment-json-file "$WORK/reassign.json" --verify 2>&1) ||
    { echo "$out"; return 1; }
  echo "$out"
  [ "$(grep -cE "Reassignment of partition $TA-[01] is completed." <<< "$out")" = 2 ] || return 1
  out=$(tool kafka-reassign-partitions --bootstrap-server "$B" --list 2>&1) || { echo "$out"; return 1; }
  echo "$out"
  grep -q "No partition reassignments found." <<< "$out"
}

metadata_quorum_status() {
  local out
  CLUSTER=$(tool kafka-cluster cluster-id --bootstrap-server "$B" | sed -n 's/^Cluster ID: //p')
  echo "kafka-cluster cluster-id: $CLUSTER"
  [[ "$CLUSTER" =~ ^[A-Za-z0-9_-]{22}$ ]] || return 1
  out=$(tool kafka-metadata-quorum --bootstrap-server "$B" describe --status) || return 1
  echo "$out"
  grep -qE "^ClusterId:[[:space:]]+$CLUSTER\$" <<< "$out" || { echo "want ClusterId $CLUSTER"; return 1; }
  grep -qE "^LeaderId:[[:space:]]+$NODE\$" <<< "$out" || { echo "want LeaderId $NODE"; return 1; }
  grep -qE "^LeaderEpoch:[[:space:]]+[1-9][0-9]*\$" <<< "$out" || return 1
  grep -qE "^HighWatermark:[[:space:]]+[1-9][0-9]*\$" <<< "$out" || return 1
  grep -qE "^MaxFollowerLag:[[:space:]]+0\$" <<< "$out" || return 1
  grep -qE "^CurrentVoters:[[:space:]]+\[\{\"id\": $NODE, " <<< "$out" || return 1
  grep -qE "^CurrentObservers:[[:space:]]+\[\]\$" <<< "$out"
}

metadata_quorum_replication() {
  local out
  out=$(tool kafka-metadata-quorum --bootstrap-server "$B" describe --replication) || return 1
  echo "$out"
  # Columns: NodeId DirectoryId LogEndOffset Lag LastFetchTimestamp LastCaughtUpTimestamp Status
  # (no {13} in the patterns: mawk has no interval expressions)
  awk -v n="$NODE" 'function millis(s) { return s ~ /^[0-9]+$/ && length(s) == 13 }
    NR > 1 && $1 == n && $3 ~ /^[0-9]+$/ && $4 == 0 && millis($5) && millis($6) && $7 == "Leader" { ok = 1 }
    END { exit !ok }' <<< "$out" || return 1
  [ "$(awk 'NR > 1 && NF > 0' <<< "$out" | wc -l)" = 1 ] || { echo "want the single voter only"; return 1; }
}

cluster_unregister_unknown() {
  local out
  if out=$(tool kafka-cluster unregister --bootstrap-server "$B" --id 9999 2>&1); then
    echo "unregistering broker 9999 succeeded: $out"; return 1
  fi
  echo "$out"
  grep -q "BrokerIdNotRegisteredException: Broker ID 9999 is not currently registered" <<< "$out"
}

broker_loggers() {
  local out logger root
  logs() { tool kafka-configs --bootstrap-server "$B" --entity-type broker-loggers --entity-name "$NODE" "$@"; }
  out=$(logs --describe) || return 1
  echo "$out" | head -n 20
  root=$(sed -n 's/^  root=\([A-Z]*\) .*/\1/p' <<< "$out")
  [[ "$root" =~ ^(TRACE|DEBUG|INFO|WARN|ERROR|FATAL)$ ]] || { echo "root level: $root"; return 1; }
  # A logger of the broker's own (Kafka's "kafka", Karst's "karst"), taken from the list.
  logger=$(awk -F'[ =]+' '$2 == "kafka" || $2 == "karst" { print $2; exit }' <<< "$out")
  [ -n "$logger" ] || { echo "no kafka or karst logger"; return 1; }
  logs --alter --add-config "$logger=WARN" || return 1
  out=$(logs --describe) || return 1
  grep -q "^  $logger=WARN " <<< "$out" || { grep "^  $logger=" <<< "$out"; echo "want $logger=WARN"; return 1; }
  logs --alter --delete-config "$logger" || return 1
  out=$(logs --describe) || return 1
  grep -q "^  $logger=$root " <<< "$out" || { grep "^  $logger=" <<< "$out"; echo "want $logger back at root's $root"; return 1; }
  if out=$(logs --alter --add-config "$logger=LOUD" 2>&1); then echo "LOUD accepted"; return 1; fi
  grep -q "Cannot set the log level of $logger to LOUD as it is not a supported log level" <<< "$out" || { echo "$out"; return 1; }
}

log_dirs_describe() {
  local out
  out=$(tool kafka-log-dirs --bootstrap-server "$B" --describe --topic-list "$TA") || return 1
  echo "$out"
  grep -q "\"partition\":\"$TA-0\"" <<< "$out" && grep -q "\"partition\":\"$TA-1\"" <<< "$out" &&
    grep -q '"error":null' <<< "$out"
}

check topics_create topics_create
check topics_create_duplicate_fails topics_create_duplicate_fails
check topics_list topics_list
check topics_describe topics_describe
check console_producer_consumer_roundtrip console_roundtrip
check get_offsets get_offsets
check configs_describe configs_describe
check configs_alter configs_alter
check configs_groups configs_groups
check configs_quotas configs_quotas
check client_metrics client_metrics
if check leader_election leader_election; then
  check reassign_partitions reassign_partitions
  check metadata_quorum_status metadata_quorum_status
  check metadata_quorum_replication metadata_quorum_replication
  check cluster_unregister_unknown cluster_unregister_unknown
  check broker_loggers broker_loggers
  check log_dirs_describe log_dirs_describe
fi
if [ "${INTEROP_GROUPS:-1}" != 0 ]; then
  if check groups_console_consume_commit groups_consume_commit; then
    check groups_list groups_list
    check groups_describe_lag groups_describe_lag
    check groups_reset_to_earliest groups_reset_to_earliest
    check groups_delete groups_delete
  fi
else
  echo "SKIP groups_* (INTEROP_GROUPS=0)"
fi
if [ "${INTEROP_SHARE:-1}" != 0 ]; then
  if check share_console_release share_console_release; then
    if check share_console_redelivered_accept share_console_redelivered_accept &&
      check share_console_after_accept share_console_after_accept; then
      for c in list describe_offsets describe_state describe_members reset_to_earliest reset_to_offset \
        reset_to_latest delete_offsets delete; do
        check "share_groups_$c" "share_groups_$c"
      done
    fi
  fi
else
  echo "SKIP share_* (INTEROP_SHARE=0)"
fi
if [ "${INTEROP_TXN:-1}" != 0 ]; then
  if check txn_copier_read_committed txn_copier && check txn_hold_open txn_hold_open; then
    check transactions_list transactions_list
    check transactions_describe transactions_describe
    check transactions_describe_producers transactions_describe_producers
    check txn_hold_commit_then_describe txn_hold_commit
  fi
else
  echo "SKIP txn_* (INTEROP_TXN=0)"
fi
if command -v kcat > /dev/null; then
  check kcat_metadata kcat_metadata
  check kcat_produce_consume_all_codecs kcat_roundtrip
  check kcat_headers_timestamp kcat_headers_timestamp
else
  FAILED=$((FAILED + 1)); echo "FAIL kcat: not installed (apt-get install -y kcat)"
fi
# Last: the downgrade changes transaction.version for a moment (it is upgraded back).
check features_describe features_describe
check features_upgrade_dry_run features_upgrade_dry_run
check features_upgrade_out_of_range_fails features_upgrade_out_of_range_fails
check features_downgrade_upgrade features_downgrade_upgrade
echo "interop-cli: $PASSED passed, $FAILED failed"
[ "$FAILED" = 0 ]
