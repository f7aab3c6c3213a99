#!/usr/bin/env bash
# tls.sh [OUTDIR] — TLS figures of Karst beside Apache Kafka 4.4.0 on this machine, one broker at a
# time, each serving a PLAINTEXT, an SSL and a SASL_SSL listener (TLS 1.3, an ECDSA P-256 certificate
# from a CA that openssl makes here; the client verifies the server, no client certificate; both
# brokers read the same PEM key store: ssl.keystore.type=PEM, ssl.keystore.location; SASL_SSL
# authenticates with PLAIN, PlainLoginModule's user_bench entry in
# listener.name.sasl_ssl.plain.sasl.jaas.config). For each broker and listener, with `karst bench`
# (franz-go; -tls-ca for SSL, -command-config with a Kafka client properties file for SASL_SSL):
#   produce      1 KiB records, acks=all, for DURATION: MB/s and ack p99
#   consume      the records produce wrote, read back without a group: MB/s
#   e2e          E2E_RATE records/s of 1 KiB for DURATION: send-to-receive p99
#   connections  (first, on the fresh broker) CONNS idle connections, each opened (a full TLS handshake on SSL, then
#                SaslHandshake and SaslAuthenticate on SASL_SSL) and answered one
#                ApiVersions, DIALERS at once: connections/s while opening (handshakes/s on SSL),
#                and the broker's RSS growth per connection
# Every mode adds the broker's CPU seconds (utime+stime from /proc/PID/stat) and, where it moved
# records, CPU s per GB, and the 1-minute load average. About 90 s per broker at the defaults.
# Prints a Markdown table; OUTDIR (default a temp dir) keeps results.txt and the brokers' logs.
# KARST_BIN=path uses that karst instead of building one. DURATION (8s), E2E_RATE (5000), CONNS
# (1000), DIALERS (32), BROKERS ("karst kafka") adjust the run.
set -uo pipefail
source "$(dirname "$0")/lib.sh"

OUT="${1:-$(mktemp -d /tmp/bench-tls.XXXXXX)}"
mkdir -p "$OUT"
OUT="$(cd "$OUT" && pwd)"
DURATION="${DURATION:-8s}"
E2E_RATE="${E2E_RATE:-5000}"
CONNS="${CONNS:-1000}"
DIALERS="${DIALERS:-32}"
BROKERS="${BROKERS:-karst kafka}"
RESULTS="$OUT/results.txt"
: > "$RESULTS"
trap bench_cleanup EXIT

bench_build "$OUT" || exit 1
ensure_kafka_jars || exit 1

# The CA and the broker's PEM key store (unencrypted PKCS#8 key, then its certificate), valid for
# 127.0.0.1.
make_certs() {
  local d="$OUT/certs"
  mkdir -p "$d"
  openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 -subj "/CN=bench-tls-ca" \
    -keyout "$d/ca.key" -out "$d/ca.pem" &&
  openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj "/CN=broker" \
    -keyout "$d/broker.key" -out "$d/broker.csr" &&
  printf 'subjectAltName=IP:127.0.0.1,DNS:localhost\n' > "$d/san.ext" &&
  openssl x509 -req -in "$d/broker.csr" -CA "$d/ca.pem" -CAkey "$d/ca.key" -CAcreateserial -days 2 \
    -extfile "$d/san.ext" -out "$d/broker.crt" &&
  openssl pkcs8 -topk8 -nocrypt -in "$d/broker.key" -out "$d/broker.pk8" &&
  cat "$d/broker.pk8" "$d/broker.crt" > "$d/broker.pem"
} > "$OUT/certs.log" 2>&1
make_certs || { cat "$OUT/certs.log" >&2; exit 1; }
CA="$OUT/certs/ca.pem"
KEYSTORE="$OUT/certs/broker.pem"
# SASL PLAIN on the SASL_SSL listener: the broker's JAAS entry and the client's properties.
SASL_JAAS='org.apache.kafka.common.security.plain.PlainLoginModule required user_bench="bench-secret";'
SASL_PROPS="$OUT/sasl-ssl.properties"
cat > "$SASL_PROPS" <<PROPS
security.protocol=SASL_SSL
sasl.mechanism=PLAIN
sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username="bench" password="bench-secret";
ssl.truststore.type=PEM
ssl.truststore.location=$CA
PROPS

cpu_ticks() { sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | awk '{print $12 + $13}'; }

# run BROKER PID LISTENER MODE ARGS...: one karst bench run, its line with the broker's CPU added.
run() {
  local broker="$1" pid="$2" listener="$3" mode="$4"; shift 4
  local before after out
  before="$(cpu_ticks "$pid")"
  out="$(timeout 120 "$KARST" bench "$mode" -pid "$pid" -tag broker="$broker" -tag listener="$listener" "$@" 2>&1 | tail -n 1)"
  after="$(cpu_ticks "$pid")"
  out="$out $(awk -v b="$before" -v a="$after" -v hz="$(getconf CLK_TCK)" \
    -v bytes="$(grep -o ' bytes=[0-9]*' <<< " $out" | head -n 1 | cut -d= -f2)" \
    -v load="$(cut -d' ' -f1 /proc/loadavg)" 'BEGIN {
      cpu = (a - b) / hz; printf "broker_cpu_s=%.2f", cpu
      if (bytes > 0) printf " broker_cpu_s_per_gb=%.2f", cpu / (bytes / 1073741824)
      printf " load1=%s", load }')"
  echo "$out" | tee -a "$RESULTS"
}

# measure BROKER PID PLAIN_PORT SSL_PORT SASL_SSL_PORT: every mode over the three listeners, the
# idle connections of all three first, while the broker's heap holds no garbage of the record modes that a collection could
# hand back during the count (a negative RSS per connection in one trial run).
measure() {
  local broker="$1" pid="$2" listener addr tls
  run "$broker" "$pid" PLAINTEXT connections -brokers "127.0.0.1:$3" -conns "$CONNS" -dialers "$DIALERS" -hold 1s
  run "$broker" "$pid" SSL connections -brokers "127.0.0.1:$4" -tls-ca "$CA" -conns "$CONNS" -dialers "$DIALERS" -hold 1s
  run "$broker" "$pid" SASL_SSL connections -brokers "127.0.0.1:$5" -command-config "$SASL_PROPS" -conns "$CONNS" -dialers "$DIALERS" -hold 1s
  for listener in PLAINTEXT SSL SASL_SSL; do
    case "$listener" in
      SSL) addr="127.0.0.1:$4"; tls=(-tls-ca "$CA") ;;
      SASL_SSL) addr="127.0.0.1:$5"; tls=(-command-config "$SASL_PROPS") ;;
      *) addr="127.0.0.1:$3"; tls=() ;;
    esac
    local topic="bench-tls-$(tr A-Z a-z <<< "$listener" | tr _ -)"
    run "$broker" "$pid" "$listener" produce -brokers "$addr" "${tls[@]}" -topic "$topic" -partitions 6 \
      -record-size 1024 -acks -1 -records 100000000 -duration "$DURATION"
    local produced
    produced="$(grep "broker=$broker" "$RESULTS" | grep "listener=$listener" | grep 'mode=produce' | tail -n 1 | grep -o ' records=[0-9]*' | cut -d= -f2)"
    run "$broker" "$pid" "$listener" consume -brokers "$addr" "${tls[@]}" -topic "$topic" \
      -records "${produced:-100000}" -duration 30s
    run "$broker" "$pid" "$listener" e2e -brokers "$addr" "${tls[@]}" -topic "$topic-e2e" -partitions 1 \
      -record-size 1024 -rate "$E2E_RATE" -duration "$DURATION"
  done
}

for broker in $BROKERS; do
  data="$OUT/$broker"
  rm -rf "$data"; mkdir -p "$data"
  plain_port="$(free_port)"; ssl_port="$(free_port)"; sasl_ssl_port="$(free_port)"
  tls_keys=(ssl.keystore.type=PEM "ssl.keystore.location=$KEYSTORE" ssl.enabled.protocols=TLSv1.3,TLSv1.2
    sasl.enabled.mechanisms=PLAIN "listener.name.sasl_ssl.plain.sasl.jaas.config=$SASL_JAAS")
  case "$broker" in
    karst)
      KARST_ARGV=(--override "listeners=PLAINTEXT://127.0.0.1:$plain_port,SSL://127.0.0.1:$ssl_port,SASL_SSL://127.0.0.1:$sasl_ssl_port"
        --override group.initial.rebalance.delay.ms=0)
      for kv in "${tls_keys[@]}"; do KARST_ARGV+=(--override "$kv"); done
      start_karst "$data" "$plain_port" || { echo "bench-tls: karst did not start" >&2; exit 1; }
      KARST_ARGV=() ;;
    kafka)
      controller_port="$(free_port)"
      KAFKA_ARGV=("listeners=PLAINTEXT://127.0.0.1:$plain_port,SSL://127.0.0.1:$ssl_port,SASL_SSL://127.0.0.1:$sasl_ssl_port,CONTROLLER://127.0.0.1:$controller_port"
        "advertised.listeners=PLAINTEXT://127.0.0.1:$plain_port,SSL://127.0.0.1:$ssl_port,SASL_SSL://127.0.0.1:$sasl_ssl_port"
        listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT,SSL:SSL,SASL_SSL:SASL_SSL "${tls_keys[@]}")
      KAFKA_CONTROLLER_PORT="$controller_port" start_kafka "$data" "$plain_port" || { echo "bench-tls: kafka did not start" >&2; exit 1; }
      KAFKA_ARGV=() ;;
    *) echo "bench-tls: unknown broker $broker" >&2; exit 2 ;;
  esac
  pid="$BROKER_PID"
  start=$SECONDS
  measure "$broker" "$pid" "$plain_port" "$ssl_port" "$sasl_ssl_port"
  echo "bench-tls: $broker measured in $((SECONDS - start)) s" >&2
  stop_broker "$broker" "$data" "$pid"
done

# The table: one row per broker and listener.
python3 - "$RESULTS" "$CONNS" <<'PY'
import sys
rows = {}
for line in open(sys.argv[1]):
    f = dict(kv.split("=", 1) for kv in line.split() if "=" in kv)
    if "broker" in f and "mode" in f:
        rows.setdefault((f["broker"], f["listener"]), {})[f["mode"]] = f
def g(r, mode, key, fmt="{:.1f}"):
    v = r.get(mode, {}).get(key)
    if v is None:
        return "failed: " + r.get(mode, {}).get("error", "no result")[:40] if mode in r else "-"
    try:
        return fmt.format(float(v))
    except ValueError:
        return v
print("| broker | listener | produce MB/s | ack p99 ms | produce CPU s/GB | consume MB/s | consume CPU s/GB | e2e p99 ms | conns/s opening | RSS KiB per idle conn | load1 |")
print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
conns = int(sys.argv[2])
for (broker, listener), r in rows.items():
    c = r.get("connections", {})
    per_s = rss = "-"
    if "open_secs" in c and float(c["open_secs"]) > 0:
        per_s = "{:.0f}".format(conns / float(c["open_secs"]))
    if "rss_per_conn_kb" in c:
        rss = "{:.1f}".format(float(c["rss_per_conn_kb"]))
    print("| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |".format(broker, listener,
        g(r, "produce", "mb_per_s"), g(r, "produce", "p99_ms"), g(r, "produce", "broker_cpu_s_per_gb", "{:.2f}"),
        g(r, "consume", "mb_per_s"), g(r, "consume", "broker_cpu_s_per_gb", "{:.2f}"),
        g(r, "e2e", "p99_ms"), per_s, rss, r.get("connections", {}).get("load1", "-")))
PY
echo
echo "uptime: $(uptime)"
echo "results: $RESULTS"
