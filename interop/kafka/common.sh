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

# make_pem_broker DIR SAN CA...: for each CA a self-signed P-256 certificate (DIR/CA.pem, its key
# DIR/CA.key), and DIR/broker.pem, a PEM key store (PKCS#8 key, then the broker's certificate with
# subjectAltName SAN, signed by the first CA) for ssl.keystore.type=PEM.
make_pem_broker() {
  local d="$1" san="$2"; shift 2
  mkdir -p "$d" || return 1
  local ca
  for ca in "$@"; do
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 -subj "/CN=interop-$ca" \
      -keyout "$d/$ca.key" -out "$d/$ca.pem" || return 1
  done
  openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj "/CN=broker" -keyout "$d/broker.key" -out "$d/broker.csr" &&
  printf 'subjectAltName=%s\n' "$san" > "$d/san.ext" &&
  openssl x509 -req -in "$d/broker.csr" -CA "$d/$1.pem" -CAkey "$d/$1.key" -CAcreateserial -days 2 -extfile "$d/san.ext" -out "$d/broker.crt" &&
  openssl pkcs8 -topk8 -nocrypt -in "$d/broker.key" -out "$d/broker.pk8" &&
  cat "$d/broker.pk8" "$d/broker.crt" > "$d/broker.pem"
}
