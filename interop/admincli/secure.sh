# Sourced by run.sh after its checks: `karst user` and `karst acl` against a broker of the target's
# kind (AGAINST: karst or kafka) that this starts with PLAINTEXT and SASL_PLAINTEXT listeners (PLAIN
# for admin, a super user, from the listener's JAAS config; SCRAM-SHA-256 and SCRAM-SHA-512) and the
# StandardAuthorizer. The admin makes a SCRAM user, carol, with karst user; carol authenticates
# (karst's franz-go client with SCRAM-SHA-512, Kafka's console consumer with SCRAM-SHA-256; a wrong
# password is refused)
# and is refused the ACL APIs (CLUSTER_AUTHORIZATION_FAILED); karst acl creates, lists (by principal,
# topic, group and match) and deletes ACLs for her topic and group, through which she creates,
# produces and consumes with a group; once the user is deleted she no longer authenticates.
# That a missing ACL refuses produce or topic creation is not checked here: Karst checks only the
# ACL APIs so far (README, Security).
source "$HERE/../kafka/common.sh"
SECURE_PID=""
SECURE_DIR="$WORK/secure"
ST="admincli-secure-$SUFFIX"; SG="admincli-secure-group-$SUFFIX"
SP="$(free_port)"; SS="$(free_port)"; SB="127.0.0.1:$SS"
SECURE_CONFIG=(
  "sasl.enabled.mechanisms=PLAIN,SCRAM-SHA-256,SCRAM-SHA-512"
  'listener.name.sasl_plaintext.plain.sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username="admin" password="admin-secret" user_admin="admin-secret";'
  # Kafka wants a login module for every enabled mechanism.
  "listener.name.sasl_plaintext.scram-sha-256.sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required;"
  "listener.name.sasl_plaintext.scram-sha-512.sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required;"
  "authorizer.class.name=org.apache.kafka.metadata.authorizer.StandardAuthorizer"
  "super.users=User:ANONYMOUS;User:admin"
  "auto.create.topics.enable=false"
)

start_secure_broker() {
  mkdir -p "$SECURE_DIR"
  if [ "$AGAINST" = kafka ]; then
    local cport; cport="$(free_port)"
    KAFKA_CONTROLLER_PORT="$cport" "$HERE/../kafka/start.sh" "$SECURE_DIR" "$SP" \
      "listeners=PLAINTEXT://127.0.0.1:$SP,SASL_PLAINTEXT://$SB,CONTROLLER://127.0.0.1:$cport" \
      "advertised.listeners=PLAINTEXT://127.0.0.1:$SP,SASL_PLAINTEXT://$SB" \
      "listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT,SASL_PLAINTEXT:SASL_PLAINTEXT" \
      "${SECURE_CONFIG[@]}"
    return
  fi
  local args=() kv
  for kv in "listeners=PLAINTEXT://127.0.0.1:$SP,SASL_PLAINTEXT://$SB" "log.dirs=$SECURE_DIR/data" "${SECURE_CONFIG[@]}"; do
    args+=(--override "$kv")
  done
  "$KARST" serve "${args[@]}" > "$SECURE_DIR/karst.log" 2>&1 < /dev/null &
  SECURE_PID=$!
  local deadline=$((SECONDS + 60))
  until port_open 127.0.0.1 "$SS"; do
    kill -0 "$SECURE_PID" 2> /dev/null && [ $SECONDS -lt $deadline ] || { tail -n 20 "$SECURE_DIR/karst.log"; return 1; }
    sleep 0.2
  done
}

stop_secure_broker() {
  if [ "$AGAINST" = kafka ]; then
    [ -d "$SECURE_DIR" ] && "$HERE/../kafka/stop.sh" "$SECURE_DIR" > /dev/null 2>&1
  elif [ -n "$SECURE_PID" ]; then
    kill "$SECURE_PID" 2> /dev/null; wait "$SECURE_PID" 2> /dev/null
  fi
  SECURE_PID=""
}

client_properties() { # FILE MECHANISM USER PASSWORD
  local module=org.apache.kafka.common.security.scram.ScramLoginModule
  [ "$2" = PLAIN ] && module=org.apache.kafka.common.security.plain.PlainLoginModule
  printf 'security.protocol=SASL_PLAINTEXT\nsasl.mechanism=%s\nsasl.jaas.config=%s required username="%s" password="%s";\n' \
    "$2" "$module" "$3" "$4" > "$WORK/$1"
}
client_properties admin.properties PLAIN admin admin-secret
client_properties carol.properties SCRAM-SHA-512 carol carol-512
client_properties carol256.properties SCRAM-SHA-256 carol carol-256
client_properties carol-wrong.properties SCRAM-SHA-512 carol not-her-password
ka() { timeout 60 "$KARST" "$@" --bootstrap-server "$SB" --command-config "$WORK/admin.properties"; }
kc() { timeout 60 "$KARST" "$@" --bootstrap-server "$SB" --command-config "$WORK/carol.properties"; }
# Kafka 4.4.0's console consumer (a Java client) as carol with SCRAM-SHA-256. (kcat is not used:
# librdkafka before 2.6.1 repeats the nonce in its SCRAM client-final message, which Kafka 4.4.0
# and Karst refuse; see interop/python/test_sasl.py.)
java_consumer_carol() {
  timeout 90 "$HERE/../kafka/tool.sh" kafka-console-consumer --bootstrap-server "$SB" --command-config "$WORK/carol256.properties" "$@"
}
# rows OUTPUT: the table's rows after its header, white space squeezed, joined by ';'.
rows() { awk 'NR > 1 { $1 = $1; print }' <<< "$1" | tr '\n' ';'; }
fails_with() { # PATTERN CMD...: CMD fails and says PATTERN
  local pattern="$1" out; shift
  if out="$("$@" 2>&1)"; then echo "succeeded: $out"; return 1; fi
  echo "$out"; grep -q "$pattern" <<< "$out"
}
carol_lists_topics() { kc topic list > /dev/null; }
carol_is_refused() { fails_with "$1" "${@:2}"; }

user_set_list_describe() {
  expect_eq "$(ka user set carol --mechanism SCRAM-SHA-512 --password carol-512)" \
    "set SCRAM-SHA-512 credential of user carol (4096 iterations)" &&
  expect_eq "$(echo carol-256 | ka user set carol --iterations 8192)" "set SCRAM-SHA-256 credential of user carol (8192 iterations)" &&
  expect_eq "$(rows "$(ka user describe carol)")" "carol SCRAM-SHA-256 8192;carol SCRAM-SHA-512 4096;" &&
  expect_eq "$(row "$(ka user list)" carol)" "carol SCRAM-SHA-256 8192" &&
  fails_with "describing user nobody-$SUFFIX: RESOURCE_NOT_FOUND" ka user describe "nobody-$SUFFIX"
}

scram_user_authenticates() {
  # Kafka applies the credential once its controller has committed it.
  eventually carol_lists_topics &&
  fails_with CLUSTER_AUTHORIZATION_FAILED kc acl list &&
  fails_with "invalid credentials" timeout 60 "$KARST" topic list --bootstrap-server "$SB" --timeout 10s --command-config "$WORK/carol-wrong.properties"
}

acl_create() {
  expect_eq "$(rows "$(ka acl create --producer --allow-principal User:carol --topic "$ST")")" \
    "TOPIC $ST LITERAL User:carol * WRITE ALLOW;TOPIC $ST LITERAL User:carol * CREATE ALLOW;TOPIC $ST LITERAL User:carol * DESCRIBE ALLOW;" &&
  ka acl create --consumer --allow-principal User:carol --topic "$ST" --group "$SG" > /dev/null &&
  ka acl create --deny-principal User:carol --deny-host 10.0.0.9 --operation Write --topic admincli-secure- --resource-pattern-type prefixed > /dev/null &&
  fails_with "INVALID_REQUEST" ka acl create --allow-principal carol --topic "$ST"
}

acl_list_is() { expect_eq "$(rows "$(ka acl list "${@:2}")")" "$1"; }
acl_list() {
  local deny="TOPIC admincli-secure- PREFIXED User:carol 10.0.0.9 WRITE DENY;" group="GROUP $SG LITERAL User:carol * READ ALLOW;"
  local topic="TOPIC $ST LITERAL User:carol * READ ALLOW;TOPIC $ST LITERAL User:carol * WRITE ALLOW;TOPIC $ST LITERAL User:carol * CREATE ALLOW;TOPIC $ST LITERAL User:carol * DESCRIBE ALLOW;"
  eventually acl_list_is "$deny$topic$group" --principal User:carol &&
  acl_list_is "$topic" --topic "$ST" &&
  acl_list_is "$deny" --topic "$ST-x" --resource-pattern-type match &&
  acl_list_is "$group" --group "$SG"
}

scram_user_works_with_acls() {
  eventually kc topic create "$ST" --partitions 1 > /dev/null &&
  printf 'one\ntwo\n' | kc produce "$ST" 2> /dev/null &&
  expect_eq "$(kc consume "$ST" --group "$SG" -o beginning -e | tr '\n' ' ')" "one two " &&
  expect_eq "$(java_consumer_carol --topic "$ST" --partition 0 --offset earliest --max-messages 2 --timeout-ms 60000 2> /dev/null | tr '\n' ' ')" "one two "
}

acl_delete() {
  expect_eq "$(rows "$(ka acl delete --force --group "$SG")")" "GROUP $SG LITERAL User:carol * READ ALLOW;" &&
  expect_eq "$(rows "$(echo y | ka acl delete --allow-principal User:carol --operation Write --topic "$ST")")" \
    "TOPIC $ST LITERAL User:carol * WRITE ALLOW;" &&
  fails_with "not confirmed" ka acl delete --topic "$ST" < /dev/null &&
  expect_eq "$(rows "$(ka acl delete --force --topic "$ST" --topic admincli-secure- --resource-pattern-type any)" | tr ';' '\n' | wc -l)" 4 &&
  eventually acl_list_is "" --principal User:carol
}

user_delete() {
  expect_eq "$(ka user delete carol --mechanism SCRAM-SHA-512)" "deleted SCRAM-SHA-512 credential of user carol" &&
  expect_eq "$(ka user delete carol)" "deleted SCRAM-SHA-256 credential of user carol" &&
  expect_eq "$(row "$(ka user list)" carol)" "" &&
  eventually carol_is_refused "invalid credentials\|Authentication failed" kc topic list --timeout 10s
}

if check secure_broker_start start_secure_broker; then
  check user_set_list_describe user_set_list_describe
  check scram_user_authenticates scram_user_authenticates
  check acl_create acl_create
  check acl_list acl_list
  check scram_user_works_with_acls scram_user_works_with_acls
  check acl_delete acl_delete
  check user_delete user_delete
fi
stop_secure_broker
