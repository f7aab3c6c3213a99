#!/usr/bin/env bash
# tool.sh TOOL ARGS... — runs one of Kafka's CLI tools (KAFKA_VERSION, default 4.4.0) from the jars in
# lib-VERSION/, like bin/TOOL.sh.
set -euo pipefail
source "$(dirname "$0")/common.sh"
if [ $# -lt 1 ]; then echo "usage: $0 TOOL [ARGS...]" >&2; exit 2; fi
TOOL="$1"; shift
case "$TOOL" in
  kafka-topics)              MAIN=org.apache.kafka.tools.TopicCommand ;;
  kafka-console-producer)    MAIN=org.apache.kafka.tools.ConsoleProducer ;;
  kafka-console-consumer)    MAIN=org.apache.kafka.tools.consumer.ConsoleConsumer ;;
  kafka-console-share-consumer) MAIN=org.apache.kafka.tools.consumer.ConsoleShareConsumer ;;
  kafka-configs) # moved from the Scala core to kafka-tools after 4.1
    case "$KAFKA_VERSION" in 3.* | 4.0.* | 4.1.*) MAIN=kafka.admin.ConfigCommand ;; *) MAIN=org.apache.kafka.tools.ConfigCommand ;; esac ;;
  kafka-get-offsets)         MAIN=org.apache.kafka.tools.GetOffsetShell ;;
  kafka-consumer-groups)     MAIN=org.apache.kafka.tools.consumer.group.ConsumerGroupCommand ;;
  kafka-share-groups)        MAIN=org.apache.kafka.tools.consumer.group.ShareGroupCommand ;;
  kafka-transactions)        MAIN=org.apache.kafka.tools.TransactionsCommand ;;
  kafka-broker-api-versions) MAIN=org.apache.kafka.tools.BrokerApiVersionsCommand ;;
  kafka-client-metrics)      MAIN=org.apache.kafka.tools.ClientMetricsCommand ;;
  kafka-storage)             MAIN=kafka.tools.StorageTool ;;
  kafka-features)            MAIN=org.apache.kafka.tools.FeatureCommand ;;
  kafka-leader-election)     MAIN=org.apache.kafka.tools.LeaderElectionCommand ;;
  kafka-reassign-partitions) MAIN=org.apache.kafka.tools.reassign.ReassignPartitionsCommand ;;
  kafka-metadata-quorum)     MAIN=org.apache.kafka.tools.MetadataQuorumCommand ;;
  kafka-cluster)             MAIN=org.apache.kafka.tools.ClusterTool ;;
  kafka-log-dirs)            MAIN=org.apache.kafka.tools.LogDirsCommand ;;
  kafka-acls)                MAIN=org.apache.kafka.tools.AclCommand ;;
  *) echo "tool.sh: unknown tool $TOOL" >&2; exit 2 ;;
esac
ensure_kafka_jars
# KAFKA_OPTS: extra JVM options, as bin/kafka-run-class.sh reads them (java.security.krb5.conf).
# shellcheck disable=SC2086
exec java -Xmx512m -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -Djava.awt.headless=true ${KAFKA_OPTS:-} \
  -Dlog4j2.configurationFile="$KAFKA_HOME_DIR/tools-log4j2.properties" \
  -cp "$(kafka_classpath)" "$MAIN" "$@"
