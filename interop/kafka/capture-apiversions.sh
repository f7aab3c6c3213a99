#!/usr/bin/env bash
# capture-apiversions.sh [OUT_FILE] — starts a throwaway reference Kafka on loopback, records the
# exact ApiVersions v4 answer of its client listener (ApiVersionsDump.java), and stops it.
# KAFKA_VERSION (common.sh, default 4.4.0) picks the release; the default OUT_FILE is
# interop/testdata/kafka-MAJOR.MINOR-apiversions.tsv.
set -euo pipefail
source "$(dirname "$0")/common.sh"
OUT="${1:-$KAFKA_HOME_DIR/../testdata/kafka-${KAFKA_VERSION%.*}-apiversions.tsv}"
ensure_kafka_jars
DIR="$(mktemp -d /tmp/interop-kafka-capture.XXXXXX)"
PORT="$(free_port)"
trap '"$KAFKA_HOME_DIR/stop.sh" "$DIR" >/dev/null || true; rm -rf "$DIR"' EXIT
"$KAFKA_HOME_DIR/start.sh" "$DIR" "$PORT" >&2
{
  echo "# Apache Kafka $KAFKA_VERSION ApiVersions v4 response on its PLAINTEXT client listener"
  echo "# (single-node KRaft broker+controller, default config; see interop/kafka/start.sh)."
  echo "# Captured by interop/kafka/capture-apiversions.sh. APIs the broker does not advertise are absent."
  timeout 60 java -cp "$(kafka_classpath)" "$KAFKA_HOME_DIR/ApiVersionsDump.java" 127.0.0.1 "$PORT"
} > "$OUT.tmp"
mv "$OUT.tmp" "$OUT"
echo "wrote $OUT" >&2
