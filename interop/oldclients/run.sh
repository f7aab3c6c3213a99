#!/usr/bin/env bash
# Clients from before Kafka 2.1, the oldest Kafka 4 supports (KIP-896), against KARST_BOOTSTRAP,
# each speaking its own generation's protocol:
#   - kafka_2.10 0.8.2.2: its kafka-clients producer and the Scala SimpleConsumer (src/old08);
#   - kafka-clients 0.10.2.2, 0.11.0.3, 1.1.1, 2.0.1: producer and group consumer (src/old);
#   - kafka-python with api_version (0, 8, 2), (0, 9), (0, 10) (kafka_python_old.py);
#   - kcat with api.version.request=false and broker.version.fallback 0.8.2.2, 0.9.0.1, 0.10.0.0
#     (kcat_old.py; with 0.10.0.0 librdkafka asks ApiVersions all the same).
# Each writes the same records (Corpus.java) with every codec to a topic of its own and reads them
# back, commits and resumes, and reads a topic kafka-clients 4.4 wrote with transactions and
# headers; 4.4 then reads every old generation's topic (src/modern). Prints PASS|FAIL lines, a
# client x produce / group / other table (../lib/matrix.sh) and
# "interop-oldclients: N passed, M failed".
set -uo pipefail
cd "$(dirname "$0")"
# shellcheck source=../lib/matrix.sh
. ../lib/matrix.sh
VERSION_TIMEOUT="${OLDCLIENTS_VERSION_TIMEOUT:-120}"
# datadir.sh names the run, to read its topics again on Kafka 4.4 (OLDCLIENTS_VERIFY_FILE gets the
# verify arguments).
RUN_ID="${OLDCLIENTS_RUN_ID:-$RUN_ID}"

if ! ./build.sh > "$WORK/build.log" 2>&1; then
  cat "$WORK/build.log"
  matrix_step FAIL build
  matrix_report oldclients "$B"
  exit 1
fi
JAVA=(java -XX:TieredStopAtLevel=1 -XX:+UseSerialGC -Xmx256m -Dorg.slf4j.simpleLogger.defaultLogLevel=error
  -Dorg.slf4j.simpleLogger.logFile=System.out -Dlog4j.configuration=none)
MODERN=(-cp "target/modern:target/lib/4.4.0/*" io.karst.interop.oldclients.Modern)
topic() { echo "oldclients-$RUN_ID-${1//[^A-Za-z0-9]/_}"; }
FROM_44="$(topic from-4.4)"
KAFKA_PYTHON=(0.8.2 0.9 0.10)
KCAT=(0.8.2.2 0.9.0.1 0.10.0.0)
mapfile -t JAVA_CLIENTS < <(matrix_versions versions)

TOPICS=("$FROM_44")
for c in "${JAVA_CLIENTS[@]}"; do TOPICS+=("$(topic "${c#* }")"); done
for a in "${KAFKA_PYTHON[@]}"; do TOPICS+=("$(topic "kafka-python-$a")"); done
for f in "${KCAT[@]}"; do TOPICS+=("$(topic "kcat-$f")"); done
matrix_version "kafka-clients 4.4.0" setup "$VERSION_TIMEOUT" "$WORK/setup.log" "${JAVA[@]}" "${MODERN[@]}" setup "$B" "${TOPICS[@]}"

# What 4.4 reads back from each: magic 1 writers' CreateTime exactly, magic 0 writers' -1; kcat
# sets no timestamp of its own (librdkafka stamps the send time), so its are not compared.
VERIFY=()
for c in "${JAVA_CLIENTS[@]}"; do
  artifact="${c% *}" v="${c#* }"
  if [ "$artifact" = kafka_2.10 ]; then
    matrix_version "$artifact" "$v" "$VERSION_TIMEOUT" "$WORK/$v.log" "${JAVA[@]}" -cp "target/old08:target/lib/$v/*" \
      io.karst.interop.oldclients.Old08 "${B%:*}" "${B##*:}" "$(topic "$v")" "$FROM_44" "oldclients-$RUN_ID-$v"
    VERIFY+=("$v:$(topic "$v"):none")
  else
    matrix_version "$artifact" "$v" "$VERSION_TIMEOUT" "$WORK/$v.log" "${JAVA[@]}" -cp "target/old:target/lib/$v/*" \
      io.karst.interop.oldclients.OldClient "$B" "$v" "$(topic "$v")" "$FROM_44" "oldclients-$RUN_ID-$v"
    VERIFY+=("$v:$(topic "$v"):create")
  fi
done
for a in "${KAFKA_PYTHON[@]}"; do
  matrix_version "kafka-python api_version" "$a" "$VERSION_TIMEOUT" "$WORK/kafka-python-$a.log" .venv/bin/python kafka_python_old.py \
    "$B" "$a" "$(topic "kafka-python-$a")" "$FROM_44" "oldclients-$RUN_ID-kafka-python-$a"
  [ "$a" = 0.10 ] && ts=create || ts=none
  VERIFY+=("kafka-python-$a:$(topic "kafka-python-$a"):$ts")
done
for f in "${KCAT[@]}"; do
  matrix_version "kcat fallback" "$f" "$VERSION_TIMEOUT" "$WORK/kcat-$f.log" .venv/bin/python kcat_old.py \
    "$B" "$f" "$(topic "kcat-$f")" "$FROM_44" "oldclients-$RUN_ID-kcat-$f"
  [ "$f" = 0.10.0.0 ] && ts=any || ts=none
  VERIFY+=("kcat-$f:$(topic "kcat-$f"):$ts")
done
[ -n "${OLDCLIENTS_VERIFY_FILE:-}" ] && printf '%s\n' "${VERIFY[@]}" > "$OLDCLIENTS_VERIFY_FILE"
matrix_version "kafka-clients 4.4.0" verify "$VERSION_TIMEOUT" "$WORK/verify.log" "${JAVA[@]}" "${MODERN[@]}" verify "$B" "${VERIFY[@]}"
matrix_report oldclients "$B"
