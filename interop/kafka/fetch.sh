#!/usr/bin/env bash
# Downloads Apache Kafka 4.1.2 and its runtime dependencies into interop/kafka/lib.
set -euo pipefail
source "$(dirname "$0")/common.sh"
ensure_kafka_jars
echo "kafka jars in $KAFKA_LIB ($(ls "$KAFKA_LIB" | wc -l) files)"
