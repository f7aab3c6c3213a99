#!/usr/bin/env bash
# kafka-acls (Kafka 4.4's AclCommand, via interop/kafka/tool.sh) adding, listing and removing ACLs on
# a Karst of its own: built from this checkout, on a free 127.0.0.1 port and a temporary data
# directory, with the StandardAuthorizer on and User:ANONYMOUS (its PLAINTEXT listener) a super user;
# then Kafka's console producer, as the SASL/PLAIN user alice on a second listener, writing to a topic
# its ACL allows and refused on one it does not; then the Java client (AclLive.java) and kafkajs
# (kafkajs-live.js) producers and consumer groups refused, granted ACLs and refused again while they
# run, without being re-created. Prints PASS/FAIL per check and the closing line
# "interop-acls: N passed, M failed". Then the ACL differential against Kafka 4.4.0 (../differential/run.sh --acl).
set -uo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
ROOT="$HERE/../.."
TOOL="$HERE/../kafka/tool.sh"
WORK="$(mktemp -d /tmp/interop-acls.XXXXXX)"
KARST_PID=""
trap '[ -n "$KARST_PID" ] && { kill "$KARST_PID" 2> /dev/null; wait "$KARST_PID" 2> /dev/null; }; rm -rf "$WORK"' EXIT
PASSED=0; FAILED=0

check() {
  local name="$1" fn="$2"
  if "$fn" > "$WORK/$name.log" 2>&1; then
    PASSED=$((PASSED + 1)); echo "PASS $name"
  else
    FAILED=$((FAILED + 1)); echo "FAIL $name"; sed 's/^/     /' "$WORK/$name.log" | tail -n 25
  fi
}
acls() { timeout 60 "$TOOL" kafka-acls --bootstrap-server "$B" "$@"; }

(cd "$ROOT" && go build -o "$WORK/karst" ./cmd/karst) || exit 1
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
PORT="$(free_port)"
B="127.0.0.1:$PORT"
SASL_B="127.0.0.1:$(free_port)"
PLAIN_MODULE=org.apache.kafka.common.security.plain.PlainLoginModule
"$WORK/karst" serve --override "listeners=PLAINTEXT://$B,SASL_PLAINTEXT://$SASL_B" --override "log.dirs=$WORK/data" \
  --override sasl.enabled.mechanisms=PLAIN \
  --override "listener.name.sasl_plaintext.plain.sasl.jaas.config=$PLAIN_MODULE required user_alice=\"alice-secret\";" \
  --override authorizer.class.name=org.apache.kafka.metadata.authorizer.StandardAuthorizer \
  --override super.users=User:ANONYMOUS > "$WORK/karst.log" 2>&1 &
KARST_PID=$!
if ! timeout 30 bash -c "until (: > /dev/tcp/127.0.0.1/$PORT) 2> /dev/null; do sleep 0.1; done"; then
  echo "karst did not listen on $B"; cat "$WORK/karst.log"; exit 1
fi

acls_add() {
  acls --add --allow-principal User:alice --operation Read --operation Write --topic orders &&
  acls --add --deny-principal User:mallory --deny-host 10.0.0.0/8 --operation All --resource-pattern-type prefixed --group pay- &&
  acls --add --allow-principal User:alice --operation Alter --cluster &&
  acls --add --allow-principal User:alice --operation Write --transactional-id tx-1
}

acls_list() {
  local out
  out=$(acls --list) || return 1
  echo "$out"
  grep -q "ResourcePattern(resourceType=TOPIC, name=orders, patternType=LITERAL)" <<< "$out" &&
  grep -q "(principal=User:alice, host=\*, operation=READ, permissionType=ALLOW)" <<< "$out" &&
  grep -q "(principal=User:alice, host=\*, operation=WRITE, permissionType=ALLOW)" <<< "$out" &&
  grep -q "ResourcePattern(resourceType=GROUP, name=pay-, patternType=PREFIXED)" <<< "$out" &&
  grep -q "(principal=User:mallory, host=10.0.0.0/8, operation=ALL, permissionType=DENY)" <<< "$out" &&
  grep -q "ResourcePattern(resourceType=CLUSTER, name=kafka-cluster, patternType=LITERAL)" <<< "$out" &&
  grep -q "ResourcePattern(resourceType=TRANSACTIONAL_ID, name=tx-1, patternType=LITERAL)" <<< "$out"
}

acls_list_match() {
  local out
  out=$(acls --list --group pay-42 --resource-pattern-type match) || return 1
  echo "$out"
  grep -q "name=pay-, patternType=PREFIXED" <<< "$out"
}

acls_remove() {
  local out
  acls --remove --force --allow-principal User:alice --operation Read --topic orders || return 1
  out=$(acls --list --topic orders) || return 1
  echo "$out"
  grep -q "operation=WRITE" <<< "$out" && ! grep -q "operation=READ" <<< "$out"
}

cat > "$WORK/alice.properties" << EOF
security.protocol=SASL_PLAINTEXT
sasl.mechanism=PLAIN
sasl.jaas.config=$PLAIN_MODULE required username="alice" password="alice-secret";
EOF
alice_produce() { # TOPIC VALUE: alice's console producer, on the SASL listener
  echo "$2" | timeout 60 "$TOOL" kafka-console-producer --bootstrap-server "$SASL_B" --topic "$1" \
    --producer.config "$WORK/alice.properties" --producer-property max.block.ms=15000 2>&1
}

# After acls_remove alice keeps WRITE on orders, and has no ACL on secret.
java_producer_allowed() {
  timeout 60 "$TOOL" kafka-topics --bootstrap-server "$B" --create --topic orders --partitions 1 || return 1
  local out
  out=$(alice_produce orders from-alice)
  echo "$out"
  grep -q "AuthorizationException" <<< "$out" && return 1
  out=$(timeout 60 "$TOOL" kafka-console-consumer --bootstrap-server "$B" --topic orders --from-beginning \
    --max-messages 1 --timeout-ms 20000 2>&1)
  echo "$out"
  grep -q "^from-alice$" <<< "$out"
}

java_producer_refused() {
  timeout 60 "$TOOL" kafka-topics --bootstrap-server "$B" --create --topic secret --partitions 1 || return 1
  local out
  out=$(alice_produce secret from-alice)
  echo "$out"
  grep -q "TopicAuthorizationException" <<< "$out" &&
    timeout 60 "$TOOL" kafka-get-offsets --bootstrap-server "$B" --topic secret | tee /dev/stderr | grep -q "^secret:0:0$"
}

# sub_checks NAME CMD...: a program that prints "PASS name: ..." / "FAIL name: ..." per check of its
# own (AclLive.java, kafkajs-live.js); each counts, and an exit without a FAIL line counts as one.
sub_checks() {
  local name="$1"; shift
  local log="$WORK/$name.log" rc
  "$@" > "$log" 2>&1; rc=$?
  grep -E '^(PASS|FAIL|NOTE) ' "$log"
  PASSED=$((PASSED + $(grep -c '^PASS ' "$log")))
  local f; f=$(grep -c '^FAIL ' "$log")
  FAILED=$((FAILED + f))
  if [ "$rc" != 0 ] && [ "$f" = 0 ]; then
    FAILED=$((FAILED + 1)); echo "FAIL $name (exit $rc)"; sed 's/^/     /' "$log" | tail -n 25
  fi
}
# The Java client (kafka-clients 4.4.0 from ../kafka's jars, java's source launcher) and kafkajs
# (../node's install) refused, granted and refused again while they run (AclLive.java, kafkajs-live.js).
java_live() {
  timeout 600 java -Xmx512m -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -Dorg.slf4j.simpleLogger.defaultLogLevel=error \
    -Dlog4j2.configurationFile="$HERE/../kafka/tools-log4j2.properties" \
    -cp "$HERE/../kafka/lib-4.4.0/*" "$HERE/AclLive.java" "$SASL_B" "$B"
}
kafkajs_live() {
  if [ ! -d "$HERE/../node/node_modules/kafkajs" ]; then echo "kafkajs is not installed (cd interop/node && npm ci)"; return 1; fi
  timeout 600 node "$HERE/kafkajs-live.js" "$SASL_B" "$B"
}

check acls_add acls_add
check acls_list acls_list
check acls_list_match acls_list_match
check acls_remove acls_remove
check java_producer_allowed java_producer_allowed
check java_producer_refused java_producer_refused
sub_checks java_live java_live
sub_checks kafkajs_live kafkajs_live
# The ACL differential against Kafka 4.4.0 (interop/differential/run.sh --acl): its scenarios count one each.
# It also runs AclLive.java against Kafka (ACL_LIVE_KAFKA_OUT), whose checks and errors must be the
# ones the Java client saw from Karst (java_live_like_kafka).
# kafkajs-live.js too (ACL_LIVE_KAFKAJS_OUT, kafkajs_live_like_kafka), when kafkajs is installed.
KAFKAJS_OUT=""; [ -d "$HERE/../node/node_modules/kafkajs" ] && KAFKAJS_OUT="$WORK/kafkajs_live_kafka.log"
ACL_LIVE_KAFKA_OUT="$WORK/java_live_kafka.log" ACL_LIVE_KAFKAJS_OUT="$KAFKAJS_OUT" \
  "$HERE/../differential/run.sh" --acl 2>&1 | tee "$WORK/acl-differential.log"
line="$(grep -E '^acl-differential: [0-9]+ passed, [0-9]+ failed' "$WORK/acl-differential.log" | tail -n 1)"
if [ -n "$line" ]; then
  PASSED=$((PASSED + $(sed -E 's/.*: ([0-9]+) passed.*/\1/' <<< "$line")))
  FAILED=$((FAILED + $(sed -E 's/.* ([0-9]+) failed.*/\1/' <<< "$line")))
else
  FAILED=$((FAILED + 1)); echo "FAIL acl_differential (no closing line)"
fi
# live_outcomes LOG: each check's name, result and the class of what ended it (the detail's first
# word). Whether a refused consumer first surfaces its topic's or its group's refusal depends on which
# of its requests (Metadata or FindCoordinator) is answered first, so for consumers only "an
# AuthorizationException" is compared.
live_outcomes() {
  grep -E '^(PASS|FAIL) ' "$1" | sed -E 's/^(PASS|FAIL) ([a-z0-9_]+): ([A-Za-z]+).*/\2 \1 \3/' |
    sed -E 's/^(java_consumer_[a-z0-9_]+ [A-Z]+) [A-Za-z]*AuthorizationException$/\1 AuthorizationException/' | sort
}
java_live_like_kafka() {
  diff <(live_outcomes "$WORK/java_live.log") <(live_outcomes "$WORK/java_live_kafka.log") &&
    echo "$(live_outcomes "$WORK/java_live.log" | wc -l) checks with the same outcome against Karst and Kafka 4.4.0"
}
check java_live_like_kafka java_live_like_kafka
kafkajs_live_like_kafka() {
  diff <(live_outcomes "$WORK/kafkajs_live.log") <(live_outcomes "$WORK/kafkajs_live_kafka.log") &&
    echo "$(live_outcomes "$WORK/kafkajs_live.log" | wc -l) checks with the same outcome against Karst and Kafka 4.4.0"
}
check kafkajs_live_like_kafka kafkajs_live_like_kafka
echo "interop-acls: $PASSED passed, $FAILED failed"
[ "$FAILED" -eq 0 ]
