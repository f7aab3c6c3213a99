# Sourced by the scripts in this folder: paths and the jar fetch step they share.
# KAFKA_VERSION picks the Apache Kafka release (default 4.4.0, the reference). Each version has its
# own lib-VERSION/ folder, so an older broker (the datadir suite's 4.1.2) can run beside the reference.
KAFKA_HOME_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
KAFKA_VERSION="${KAFKA_VERSION:-4.4.0}"
KAFKA_LIB="$KAFKA_HOME_DIR/lib-$KAFKA_VERSION"

# ensure_kafka_jars downloads the Kafka jars into lib-$KAFKA_VERSION/ once; later runs reuse ~/.m2.
ensure_kafka_jars() {
  if [ ! -f "$KAFKA_LIB/kafka_2.13-$KAFKA_VERSION.jar" ] || [ ! -f "$KAFKA_LIB/kafka-tools-$KAFKA_VERSION.jar" ]; then
    local log="/tmp/interop-kafka-fetch-$KAFKA_VERSION.log"
    (cd "$KAFKA_HOME_DIR" && timeout 600 mvn -q -B dependency:copy-dependencies -Dkafka.version="$KAFKA_VERSION" > "$log" 2>&1) || {
      cat "$log" >&2; echo "kafka $KAFKA_VERSION: fetching jars with maven failed" >&2; return 1; }
  fi
}

kafka_classpath() { echo "$KAFKA_LIB/*"; }

# free_port prints a TCP port on 127.0.0.1 that nobody listens on right now.
free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'
}

# port_open HOST PORT succeeds when something accepts TCP connections there.
port_open() { timeout 2 bash -c "exec 3<>/dev/tcp/$1/$2" 2>/dev/null; }
