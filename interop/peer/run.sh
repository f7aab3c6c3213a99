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
  cat "$WORK/versions"
  PEER_IN_NETNS=1 WORK="$WORK" KARST="$KARST" unshare -n "$0" "$@"
  exit $?
fi

# ---- inside the network namespace: only loopback, and it is ours
ip link set lo up || { echo "interop-peer: no loopback in the namespace"; exit 1; }
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
"$KARST" serve "$WORK/server.properties" >> "$WORK/karst.log" 2>&1 < /dev/null &
KARST_PID=$!
deadline=$((SECONDS + 60))
until port_open 127.0.0.1 9093; do
  if ! kill -0 "$KARST_PID" 2> /dev/null || [ $SECONDS -ge $deadline ]; then
    fail karst_start "$WORK/karst.log"; echo "interop-peer: $PASSED passed, $FAILED failed"; exit 1
  fi
  sleep 0.2
done
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
run_go_tests kafka-go-sasl "$WORK/src/kafka-go/sasl" kafkago-sasl.test '^TestSASL$' KAFKA_VERSION=4.4.0
run_go_tests kafka-go-writer "$WORK/src/kafka-go" kafkago.test '^TestWriter$/^writing_a_message_with_SASL_Plain_authentication$' KAFKA_VERSION=4.4.0
# kafka-go's ACL and client quota tests (as PLAINTEXT's User:ANONYMOUS, allowed by
# allow.everyone.if.no.acl.found: the cluster has no ACLs), last: their ACLs name User:alice and User:bob only.
run_go_tests kafka-go-acls "$WORK/src/kafka-go" kafkago.test \
  '^(TestClientCreateACLs|TestClientDescribeACLs|TestClientDeleteACLs|TestClientAlterClientQuotas)$' KAFKA_VERSION=4.4.0

echo "interop-peer: $PASSED passed, $FAILED failed"
[ "$FAILED" = 0 ]
