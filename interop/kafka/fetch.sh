#!/usr/bin/env bash
# fetch.sh [VERSION...] — downloads Apache Kafka and its runtime dependencies into
# interop/kafka/lib-VERSION, for each VERSION given (default: $KAFKA_VERSION, else 4.4.0).
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
for version in "${@:-${KAFKA_VERSION:-4.4.0}}"; do
  KAFKA_VERSION="$version" bash -c 'set -euo pipefail; source "$1/common.sh"; ensure_kafka_jars
    echo "kafka $KAFKA_VERSION jars in $KAFKA_LIB ($(ls "$KAFKA_LIB" | wc -l) files)"' _ "$HERE"
done
