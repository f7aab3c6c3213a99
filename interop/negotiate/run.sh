#!/usr/bin/env bash
# Version negotiation and cluster discovery by non-Go clients against KARST_BOOTSTRAP:
# kcat -L (librdkafka) and Kafka's kafka-broker-api-versions tool (the Java network client).
# Prints PASS/FAIL per check and the closing line "interop-negotiate: N passed, M failed".
set -uo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
TOOL="$HERE/../kafka/tool.sh"
B="${KARST_BOOTSTRAP:-127.0.0.1:9092}"
WORK="$(mktemp -d /tmp/interop-negotiate.XXXXXX)"
trap 'rm -rf "$WORK"' EXIT
PASSED=0; FAILED=0

check() {
  local name="$1" fn="$2"
  if "$fn" > "$WORK/$name.log" 2>&1; then
    PASSED=$((PASSED + 1)); echo "PASS $name"
  else
    FAILED=$((FAILED + 1)); echo "FAIL $name"; sed 's/^/     /' "$WORK/$name.log" | tail -n 25
  fi
}

kcat_metadata() {
  local out; out=$(timeout 30 kcat -b "$B" -L -m 10) || return 1
  echo "$out"
  grep -q "1 brokers:" <<< "$out" && grep -q "broker 1 at $B" <<< "$out"
}

kcat_api_versions_negotiated() {
  # librdkafka logs the broker's ApiVersions answer with debug=protocol.
  local out; out=$(timeout 30 kcat -b "$B" -L -m 10 -X debug=protocol 2>&1) || return 1
  echo "$out" | grep -i "apiversion" | head -n 20
  grep -qi "ApiVersionRequest (v[3-9]" <<< "$out" && ! grep -qi "ApiVersionRequest failed" <<< "$out"
}

java_broker_api_versions() {
  local out; out=$(timeout 60 "$TOOL" kafka-broker-api-versions --bootstrap-server "$B") || return 1
  echo "$out"
  # ApiVersions: v4 (Karst today) or v5 (Kafka 4.4), and Kafka 4.4's client must use the newest one.
  grep -qE "ApiVersions\(18\): 0 to ([45]) \[usable: \1\]" <<< "$out" && grep -q "Metadata(3): 0 to 13 \[usable: 13\]" <<< "$out"
}

check kcat_metadata kcat_metadata
check kcat_api_versions_negotiated kcat_api_versions_negotiated
check java_broker_api_versions java_broker_api_versions
echo "interop-negotiate: $PASSED passed, $FAILED failed"
[ "$FAILED" = 0 ]
