#!/usr/bin/env bash
# interop/peer/run.sh — the security tests of client libraries' own test suites, unmodified, against
# a Karst it starts: franz-go's kgo TestSCRAMAuth and TestSCRAMAuthBadCredentials (KGO_TEST_SCRAM,
# KGO_TEST_SCRAM_SEEDS; once with SCRAM-SHA-256, once with SCRAM-SHA-512) and TestOAuthAuth
# (KGO_TEST_OAUTH_SEEDS, Kafka's unsecured tokens), kafka-go's sasl package TestSASL (PLAIN,
# SCRAM-SHA-256, SCRAM-SHA-512: success, bad password, reuse), its SASL writer test (PLAIN) and its
# ACL and client quota tests (TestClientCreateACLs, TestClientDescribeACLs, TestClientDeleteACLs,
# TestClientAlterClientQuotas) with the StandardAuthorizer on, as kafka-go's docker set-up has it.
#
# The suites are the versions go.mod pins, copied from the Go module cache; their test binaries are
# built first, then run in a network namespace of their own (unshare -n, as root): kafka-go's tests
# dial the fixed ports localhost:9092 (PLAINTEXT) and localhost:9093 (SASL), which other brokers on
# this machine may hold. Karst serves both listeners there, on a directory formatted by Kafka 4.4.0's
# kafka-storage with --add-scram for the suites' SCRAM users. Prints PASS/FAIL per test and
# "interop-peer: N passed, M failed"; a test that skips counts as failed (it would hide a gap).
# PEER_KARST_BIN=path uses that Karst binary.
#
# Then kafkajs 2.2.4's own jest files for SSL and SASL_SSL (broker, admin, consumer and producer
# connections with PLAIN, SCRAM-SHA-256, SCRAM-SHA-512 and OAUTHBEARER, refusals, re-authentication,
# ACLs over SASL_SSL),
# when KAFKAJS_GIT names a git copy of its repository (run by hand; not in CI, see below) at tag
# v2.2.4 with its devDependencies from npm, against a second Karst in the same namespace serving the
# nine fixed localhost ports of the three brokers its testHelpers name (the namespace also gets a
# mount namespace, to resolve names from /etc/hosts only).
set -uo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
source "$HERE/../kafka/common.sh"

if [ "${PEER_IN_NETNS:-}" != 1 ]; then
  ensure_kafka_jars || exit 1
  WORK="$(mktemp -d /tmp/interop-peer.XXXXXX)"
  trap '[ "${INTEROP_KEEP_DATA:-0}" = 1 ] || rm -rf "$WORK"' EXIT
  KARST="${PEER_KARST_BIN:-$WORK/karst}"
  if [ -z "${PEER_KARST_BIN:-}" ]; then
    (cd "$ROOT" && go build -o "$KARST" ./cmd/karst) || { echo "interop-peer: building karst failed"; exit 1; }
  fi
  modcache="$(go env GOMODCACHE)"
  build() { # MODULE PACKAGE BINARY
    local version dir
    version="$(cd "$ROOT" && go list -m -f '{{.Version}}' "$1")" || return 1
    (cd "$ROOT" && go mod download "$1@$version") || return 1
    dir="$WORK/src/$(basename "$1")"; mkdir -p "$WORK/src"
    if [ ! -d "$dir" ]; then
      cp -r "$modcache/$(sed -E 's/[A-Z]/!\L&/g' <<< "$1")@$version" "$dir" && chmod -R u+w "$dir" || return 1
    fi
    echo "$1 $version" >> "$WORK/versions"
    (cd "$dir" && GOFLAGS=-mod=mod go test -c -o "$WORK/$3" "$2") || return 1
  }
  build github.com/twmb/franz-go ./pkg/kgo kgo.test &&
    build github.com/segmentio/kafka-go ./sasl kafkago-sasl.test &&
    build github.com/segmentio/kafka-go . kafkago.test || { echo "interop-peer: building the peer tests failed"; echo "interop-peer: 0 passed, 1 failed"; exit 1; }
  # kafkajs's tests are not in its npm package: they come from a git copy of its repository
  # (KAFKAJS_GIT, a git directory holding tag v2.2.4, the version interop/node pins), and their
  # devDependencies from npm, as its package.json asks.
  # CI cannot run them: it reaches package registries only, and the npm package has no tests. So
  # they run when KAFKAJS_GIT names such a copy (by hand), and the summary says when they did not.
  if [ -n "${KAFKAJS_GIT:-}" ]; then
    mkdir -p "$WORK/src/kafkajs"
    if ! git --git-dir="$KAFKAJS_GIT" archive v2.2.4 | tar -x -C "$WORK/src/kafkajs"; then
      echo "interop-peer: no kafkajs v2.2.4 in KAFKAJS_GIT=$KAFKAJS_GIT"; echo "interop-peer: 0 passed, 1 failed"; exit 1
    fi
    (cd "$WORK/src/kafkajs" && timeout 900 npm install --ignore-scripts --no-audit --no-fund --no-package-lock) > "$WORK/npm.log" 2>&1 ||
      { echo "interop-peer: npm install of kafkajs's devDependencies failed"; tail -n 20 "$WORK/npm.log"; echo "interop-peer: 0 passed, 1 failed"; exit 1; }
    echo "kafkajs v2.2.4 (git $(git --git-dir="$KAFKAJS_GIT" rev-parse --short 'v2.2.4^{commit}'))" >> "$WORK/versions"
  fi
  cat "$WORK/versions"
  PEER_IN_NETNS=1 WORK="$WORK" KARST="$KARST" unshare -n -m "$0" "$@"
  exit $?
fi

# ---- inside the network namespace: only loopback, and it is ours
ip link set lo up || { echo "interop-peer: no loopback in the namespace"; exit 1; }
# The namespace has no DNS server: resolve from /etc/hosts only, so that a name not there fails at
# once as unknown (ENOTFOUND, which kafkajs's connection tests expect) rather than as a timeout.
echo "hosts: files" > "$WORK/nsswitch.conf"
mount --bind "$WORK/nsswitch.conf" /etc/nsswitch.conf || { echo "interop-peer: cannot bind nsswitch.conf in the namespace"; exit 1; }
KARST_PID=""
trap '[ -n "$KARST_PID" ] && kill "$KARST_PID" 2> /dev/null' EXIT
PASSED=0; FAILED=0
pass() { PASSED=$((PASSED + 1)); echo "PASS $1"; }
fail() { FAILED=$((FAILED + 1)); echo "FAIL $1"; [ -n "${2:-}" ] && sed 's/^/     /' "$2" | tail -n 30; }

cat > "$WORK/server.properties" <<CONF
process.roles=broker,controller
node.id=1
controller.quorum.voters=1@127.0.0.1:9095
listeners=PLAINTEXT://127.0.0.1:9092,SASL_PLAINTEXT://127.0.0.1:9093,CONTROLLER://127.0.0.1:9095
advertised.listeners=PLAINTEXT://localhost:9092,SASL_PLAINTEXT://localhost:9093
controller.listener.names=CONTROLLER
inter.broker.listener.name=PLAINTEXT
listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT,SASL_PLAINTEXT:SASL_PLAINTEXT
sasl.enabled.mechanisms=PLAIN,SCRAM-SHA-256,SCRAM-SHA-512,OAUTHBEARER
listener.name.sasl_plaintext.plain.sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username="adminplain" password="admin-secret" user_adminplain="admin-secret";
log.dirs=$WORK/data
offsets.topic.replication.factor=1
auto.create.topics.enable=true
authorizer.class.name=org.apache.kafka.metadata.authorizer.StandardAuthorizer
allow.everyone.if.no.acl.found=true
super.users=User:adminscram256;User:adminscram512;User:adminplain
CONF
# The authorizer settings are kafka-go's docker set-up for Kafka 4 (docker_compose_versions), which
# its ACL tests need; with allow.everyone.if.no.acl.found the other suites see no difference.
# kafka-go's users (its docker set-up for Kafka 4) and one of each SCRAM mechanism for kgo.
"$HERE/../kafka/tool.sh" kafka-storage format -t MkU3OEVBNTcwNTJENDM2Qk -c "$WORK/server.properties" \
  --add-scram 'SCRAM-SHA-256=[name=adminscram256,password=admin-secret-256]' \
  --add-scram 'SCRAM-SHA-512=[name=adminscram512,password=admin-secret-512]' > "$WORK/format.log" 2>&1 ||
  { fail format "$WORK/format.log"; echo "interop-peer: $PASSED passed, $FAILED failed"; exit 1; }
# start_karst CONFIG PORT: serves CONFIG until PORT (its last listener) accepts connections.
start_karst() {
  "$KARST" serve "$1" >> "$WORK/karst.log" 2>&1 < /dev/null &
  KARST_PID=$!
  local deadline=$((SECONDS + 60))
  until port_open 127.0.0.1 "$2"; do
    if ! kill -0 "$KARST_PID" 2> /dev/null || [ $SECONDS -ge $deadline ]; then
      fail karst_start "$WORK/karst.log"; echo "interop-peer: $PASSED passed, $FAILED failed"; exit 1
    fi
    sleep 0.2
  done
}
start_karst "$WORK/server.properties" 9093
"$KARST" topic create test-writer-0 --partitions 1 --bootstrap-server 127.0.0.1:9092 > "$WORK/topic.log" 2>&1 ||
  { fail create_test_writer_topic "$WORK/topic.log"; }

# run_go_tests NAME DIR BINARY RUN-PATTERN [VAR=VALUE...]: one PASS/FAIL per top-level test and subtest
# that go test -v reports; a skip is a failure.
run_go_tests() {
  local name="$1" dir="$2" bin="$3" pattern="$4"; shift 4
  local out="$WORK/$name.log"
  (cd "$dir" && env "$@" timeout 240 "$WORK/$bin" -test.run "$pattern" -test.v -test.count=1) > "$out" 2>&1
  local rc=$? line
  while read -r line; do
    local test; test="$(awk '{print $3}' <<< "$line")"
    case "$line" in
      *"--- PASS"*) pass "$name $test" ;;
      *) fail "$name $test" "$out" ;;
    esac
  done < <(grep -E -- '^\s*--- (PASS|FAIL|SKIP)' "$out")
  if [ "$rc" != 0 ] || ! grep -qE -- '--- PASS' "$out"; then fail "$name (exit $rc)" "$out"; fi
}

KGO="$WORK/src/franz-go/pkg/kgo"
for alg in 256 512; do
  run_go_tests "kgo-scram-$alg" "$KGO" kgo.test '^(TestSCRAMAuth|TestSCRAMAuthBadCredentials|TestOAuthAuth)$' \
    KGO_SEEDS=127.0.0.1:9092 KGO_TEST_SCRAM_SEEDS=127.0.0.1:9093 KGO_TEST_OAUTH_SEEDS=127.0.0.1:9093 \
    KGO_TEST_SCRAM="adminscram$alg:admin-secret-$alg:$alg"
done
# kgo's share-group tests (KIP-932 through ShareFetch and ShareAcknowledge v2): one broker, so
# replication factor 1; 50,000 records keep the ETL chain to seconds. TestShareGroupOffsetsAdmin
# needs AlterShareGroupOffsets, which Karst does not serve yet, and is left out.
run_go_tests kgo-share "$KGO" kgo.test '^(TestShareGroupETL|TestShareGroupAckOnClose)$' \
  KGO_SEEDS=127.0.0.1:9092 KGO_TEST_RF=1 KGO_TEST_RECORDS=50000
run_go_tests kafka-go-sasl "$WORK/src/kafka-go/sasl" kafkago-sasl.test '^TestSASL$' KAFKA_VERSION=4.4.0
run_go_tests kafka-go-writer "$WORK/src/kafka-go" kafkago.test '^TestWriter$/^writing_a_message_with_SASL_Plain_authentication$' KAFKA_VERSION=4.4.0
# kafka-go's ACL and client quota tests (as PLAINTEXT's User:ANONYMOUS, allowed by
# allow.everyone.if.no.acl.found: the cluster has no ACLs), last: their ACLs name User:alice and User:bob only.
run_go_tests kafka-go-acls "$WORK/src/kafka-go" kafkago.test \
  '^(TestClientCreateACLs|TestClientDescribeACLs|TestClientDeleteACLs|TestClientAlterClientQuotas)$' KAFKA_VERSION=4.4.0

# ---- kafkajs's SSL and SASL_SSL tests. Its testHelpers expect three brokers, each with PLAINTEXT,
# SSL and SASL_SSL on localhost: 9092/9093/9094, 9095/9096/9097, 9098/9099/9100. One Karst serves all
# nine ports (three listeners of each protocol), so every seed broker a test picks answers, and
# each listener advertises its own port. The key store and the users are the suite's own
# (testHelpers/certs, testHelpers/kafka/server-jaas.conf and its SCRAM users); OAUTHBEARER takes
# Kafka's unsecured tokens, as its docker-compose.2_4_oauthbearer.yml broker does.
if [ ! -d "$WORK/src/kafkajs/src" ]; then
  echo "interop-peer: kafkajs's own tests not run (KAFKAJS_GIT names no git copy of kafkajs; its npm package has no tests)"
  echo "interop-peer: $PASSED passed, $FAILED failed"
  [ "$FAILED" = 0 ]; exit $?
fi
kill "$KARST_PID"; wait "$KARST_PID" 2> /dev/null; KARST_PID=""
KJS="$WORK/src/kafkajs"
PLAIN_JAAS='org.apache.kafka.common.security.plain.PlainLoginModule required username="test" password="testtest" user_test="testtest" user_bob="bobbob" user_alice="alicealice";'
{
  echo "process.roles=broker,controller"
  echo "node.id=0"
  echo "controller.quorum.voters=0@127.0.0.1:9190"
  listeners="CONTROLLER://127.0.0.1:9190"; advertised=""; map="CONTROLLER:PLAINTEXT"
  port=9092
  for b in 1 2 3; do
    for proto in PLAINTEXT SSL SASL_SSL; do
      listeners="$listeners,${proto}_$b://127.0.0.1:$port"
      advertised="${advertised:+$advertised,}${proto}_$b://localhost:$port"
      map="$map,${proto}_$b:$proto"
      if [ "$proto" = SASL_SSL ]; then
        echo "listener.name.sasl_ssl_$b.plain.sasl.jaas.config=$PLAIN_JAAS"
        # The session length of the suite's OAUTHBEARER brokers, which its re-authentication tests count on.
        echo "listener.name.sasl_ssl_$b.oauthbearer.connections.max.reauth.ms=15000"
      fi
      port=$((port + 1))
    done
  done
  echo "listeners=$listeners"
  echo "advertised.listeners=$advertised"
  echo "listener.security.protocol.map=$map"
  echo "controller.listener.names=CONTROLLER"
  echo "inter.broker.listener.name=PLAINTEXT_1"
  echo "sasl.enabled.mechanisms=PLAIN,SCRAM-SHA-256,SCRAM-SHA-512,OAUTHBEARER"
  echo "ssl.keystore.type=JKS"
  echo "ssl.keystore.location=$KJS/testHelpers/certs/kafka.server.keystore.jks"
  echo "ssl.keystore.password=$(cat "$KJS/testHelpers/certs/keystore_creds")"
  echo "ssl.key.password=$(cat "$KJS/testHelpers/certs/sslkey_creds")"
  echo "log.dirs=$WORK/data-kafkajs"
  echo "offsets.topic.replication.factor=1"
  echo "auto.create.topics.enable=true"
  echo "num.partitions=2"
  echo "group.initial.rebalance.delay.ms=0"
  # As the suite's brokers: ACLs enforced, a resource without any open to all.
  echo "authorizer.class.name=org.apache.kafka.metadata.authorizer.StandardAuthorizer"
  echo "allow.everyone.if.no.acl.found=true"
} > "$WORK/kafkajs.properties"
"$HERE/../kafka/tool.sh" kafka-storage format -t MkU3OEVBNTcwNTJENDM2Qk -c "$WORK/kafkajs.properties" \
  --add-scram 'SCRAM-SHA-256=[name=testscram,password="testtestscram=256"]' \
  --add-scram 'SCRAM-SHA-512=[name=testscram,password="testtestscram=512"]' > "$WORK/format-kafkajs.log" 2>&1 ||
  { fail format-kafkajs "$WORK/format-kafkajs.log"; echo "interop-peer: $PASSED passed, $FAILED failed"; exit 1; }
start_karst "$WORK/kafkajs.properties" 9100

# run_jest NAME NAME-PATTERN [VAR=VALUE...] -- FILES...: the tests of FILES whose full name matches
# NAME-PATTERN (jest -t), one PASS/FAIL each; a selected test jest skips (pending) is a failure, so
# the files must suit the OAUTHBEARER_ENABLED setting.
run_jest() {
  local name="$1" pattern="$2"; shift 2
  local vars=(); while [ "$1" != -- ]; do vars+=("$1"); shift; done; shift
  local out="$WORK/$name.log" json="$WORK/$name.json"
  (cd "$KJS" && env KAFKA_VERSION=4.4 NODE_ENV=test "${vars[@]}" JEST_JUNIT_OUTPUT_DIR="$WORK" \
    timeout 600 node_modules/.bin/jest --ci --runInBand --forceExit --no-watchman -t "$pattern" \
    --json --outputFile="$json" "$@") > "$out" 2>&1
  local rc=$? line
  while IFS=$'\t' read -r status test; do
    case "$status" in
      passed) pass "$name $test" ;;
      *) fail "$name $test ($status)" "$out" ;;
    esac
  done < <(node -e '
    const [json, pattern] = process.argv.slice(1), selected = new RegExp(pattern)
    for (const f of require(json).testResults) for (const a of f.assertionResults)
      if (selected.test(a.fullName)) console.log(a.status + "\t" + a.fullName.replace(/\s+/g, "_"))' "$json" "$pattern" 2> /dev/null)
  if [ "$rc" != 0 ] || ! grep -q '"numPassedTests":[1-9]' "$json" 2> /dev/null; then fail "$name (exit $rc)" "$out"; fi
}

run_jest kafkajs . -- src/broker/__tests__/connect.spec.js src/broker/__tests__/disconnect.spec.js \
  src/admin/__tests__/connection.spec.js src/consumer/__tests__/connection.spec.js
# The ACL tests log in with PLAIN over SASL_SSL as test, bob and alice. Three of them create their
# topic with replicationFactor 2, which one broker refuses (INVALID_REPLICATION_FACTOR, as Kafka's
# would); they need two brokers and are left out.
run_jest kafkajs-acl '^(?!.*(checks topic access|applies and deletes acl|creates and queries acl))' -- \
  src/admin/__tests__/createAcls.spec.js src/admin/__tests__/describeAcls.spec.js src/admin/__tests__/deleteAcls.spec.js
# Of the connection tests, those of #connect (PLAINTEXT and SSL). The #send ones are PLAINTEXT tests of
# kafkajs's own request queue timing (a 50 ms request timeout against a 100 ms sleep), which a loaded
# machine can flip whatever the broker does.
run_jest kafkajs-connection '#connect' -- src/network/connection.spec.js
run_jest kafkajs-producer 'SSL|SASL' -- src/producer/index.spec.js
# The suite's OAUTHBEARER group (package.json test:group:oauthbearer): its saslEntries become
# OAUTHBEARER alone and the PLAIN/SCRAM-only tests are skipped, so only the OAUTHBEARER ones are taken.
run_jest kafkajs-oauthbearer OAUTHBEARER OAUTHBEARER_ENABLED=1 -- src/producer/index.spec.js \
  src/broker/__tests__/connect.spec.js src/consumer/__tests__/connection.spec.js \
  src/broker/__tests__/disconnect.spec.js src/admin/__tests__/connection.spec.js src/broker/__tests__/reauthenticate.spec.js

echo "interop-peer: $PASSED passed, $FAILED failed"
[ "$FAILED" = 0 ]
