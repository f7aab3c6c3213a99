#!/usr/bin/env bash
# tls.sh [OUTDIR] — TLS figures of Karst beside Apache Kafka 4.4.0 on this machine, one broker at a
# time, each serving a PLAINTEXT, an SSL, a SASL_SSL and a SASL_PLAINTEXT listener (TLS 1.3, an ECDSA
# P-256 certificate from a CA that openssl makes here; the client verifies the server, no client
# certificate; both brokers read the same PEM key store: ssl.keystore.type=PEM, ssl.keystore.location;
# SASL authenticates with PLAIN, PlainLoginModule's user_bench entry in
# listener.name.<listener>.plain.sasl.jaas.config, or with SCRAM-SHA-512 as user bench, whose
# credential (4096 iterations, Kafka's default) `karst user set` adds through the broker's
# AlterUserScramCredentials). For each broker and listener, with `karst bench`
# (franz-go; -tls-ca for SSL, -command-config with a Kafka client properties file for SASL_SSL):
#   produce      1 KiB records, acks=all, for DURATION: MB/s and ack p99
#   consume      the records produce wrote, read back without a group: MB/s
#   e2e          E2E_RATE records/s of 1 KiB for DURATION: send-to-receive p99
#   connections  (first, on the fresh broker) CONNS idle connections, each opened (a full TLS handshake on SSL, then
#                SaslHandshake and SaslAuthenticate on SASL_SSL) and answered one
#                ApiVersions, DIALERS at once: connections/s while opening (handshakes/s on SSL,
#                logins/s on SASL), the broker's RSS with all of them open and its growth per
#                connection; then the same logins with SCRAM-SHA-512 on SASL_SSL, and with PLAIN
#                and SCRAM-SHA-512 on SASL_PLAINTEXT (login cost without TLS). The client (franz-go)
#                salts the SCRAM password itself on every connection, on the same cores
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
SCRAM_JAAS='org.apache.kafka.common.security.scram.ScramLoginModule required;'
SASL_PROPS="$OUT/sasl-ssl.properties"
# sasl_props FILE PROTOCOL MECHANISM: a client properties file for user bench.
sasl_props() {
  local module=org.apache.kafka.common.security.plain.PlainLoginModule
  [ "$3" = PLAIN ] || module=org.apache.kafka.common.security.scram.ScramLoginModule
  { echo "security.protocol=$2"; echo "sasl.mechanism=$3"
    echo "sasl.jaas.config=$module required username=\"bench\" password=\"bench-secret\";"
    if [ "$2" = SASL_SSL ]; then echo "ssl.truststore.type=PEM"; echo "ssl.truststore.location=$CA"; fi
  } > "$1"
}
sasl_props "$SASL_PROPS" SASL_SSL PLAIN
sasl_props "$OUT/sasl-ssl-scram.properties" SASL_SSL SCRAM-SHA-512
sasl_props "$OUT/sasl-plaintext.properties" SASL_PLAINTEXT PLAIN
sasl_props "$OUT/sasl-plaintext-scram.properties" SASL_PLAINTEXT SCRAM-SHA-512

# add_scram_user PORT PID: bench's SCRAM-SHA-512 credential, through the PLAINTEXT listener; then
# waits (60 s at most) until a SCRAM login on the SASL_PLAINTEXT listener works (Kafka's broker
# learns the credential from the controller a moment after the change).
add_scram_user() {
  "$KARST" user set bench --mechanism SCRAM-SHA-512 --iterations 4096 --password bench-secret \
    --bootstrap-server "127.0.0.1:$1" || return 1
  local deadline=$((SECONDS + 60))
  until "$KARST" bench connections -brokers "127.0.0.1:$3" -command-config "$OUT/sasl-plaintext-scram.properties" \
    -conns 1 -dialers 1 -hold 0s > /dev/null 2>&1; do
    kill -0 "$2" 2> /dev/null && [ $SECONDS -lt $deadline ] || { echo "bench-tls: no SCRAM login for bench" >&2; return 1; }
    sleep 0.5
  done
}

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

# measure BROKER PID PLAIN_PORT SSL_PORT SASL_SSL_PORT SASL_PLAINTEXT_PORT: every mode over the first
# three listeners, logins only on SASL_PLAINTEXT, the
# idle connections of all three first, while the broker's heap holds no garbage of the record modes that a collection could
# hand back during the count (a negative RSS per connection in one trial run).
measure() {
  local broker="$1" pid="$2" listener addr tls
  run "$broker" "$pid" PLAINTEXT connections -brokers "127.0.0.1:$3" -conns "$CONNS" -dialers "$DIALERS" -hold 1s
  run "$broker" "$pid" SSL connections -brokers "127.0.0.1:$4" -tls-ca "$CA" -conns "$CONNS" -dialers "$DIALERS" -hold 1s
  run "$broker" "$pid" SASL_SSL connections -brokers "127.0.0.1:$5" -command-config "$SASL_PROPS" -conns "$CONNS" -dialers "$DIALERS" -hold 1s
  run "$broker" "$pid" SASL_SSL/SCRAM-SHA-512 connections -brokers "127.0.0.1:$5" -command-config "$OUT/sasl-ssl-scram.properties" -conns "$CONNS" -dialers "$DIALERS" -hold 1s
  run "$broker" "$pid" SASL_PLAINTEXT/PLAIN connections -brokers "127.0.0.1:$6" -command-config "$OUT/sasl-plaintext.properties" -conns "$CONNS" -dialers "$DIALERS" -hold 1s
  run "$broker" "$pid" SASL_PLAINTEXT/SCRAM-SHA-512 connections -brokers "127.0.0.1:$6" -command-config "$OUT/sasl-plaintext-scram.properties" -conns "$CONNS" -dialers "$DIALERS" -hold 1s
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
  plain_port="$(free_port)"; ssl_port="$(free_port)"; sasl_ssl_port="$(free_port)"; sasl_port="$(free_port)"
  tls_keys=(ssl.keystore.type=PEM "ssl.keystore.location=$KEYSTORE" ssl.enabled.protocols=TLSv1.3,TLSv1.2
    sasl.enabled.mechanisms=PLAIN,SCRAM-SHA-512 "listener.name.sasl_ssl.plain.sasl.jaas.config=$SASL_JAAS"
    "listener.name.sasl_plaintext.plain.sasl.jaas.config=$SASL_JAAS"
    # Kafka will not start a listener enabling SCRAM without a JAAS entry for it (Karst does).
    "listener.name.sasl_ssl.scram-sha-512.sasl.jaas.config=$SCRAM_JAAS"
    "listener.name.sasl_plaintext.scram-sha-512.sasl.jaas.config=$SCRAM_JAAS")
  listeners="PLAINTEXT://127.0.0.1:$plain_port,SSL://127.0.0.1:$ssl_port,SASL_SSL://127.0.0.1:$sasl_ssl_port,SASL_PLAINTEXT://127.0.0.1:$sasl_port"
  case "$broker" in
    karst)
      KARST_ARGV=(--override "listeners=$listeners"
        --override group.initial.rebalance.delay.ms=0)
      for kv in "${tls_keys[@]}"; do KARST_ARGV+=(--override "$kv"); done
      start_karst "$data" "$plain_port" || { echo "bench-tls: karst did not start" >&2; exit 1; }
      KARST_ARGV=() ;;
    kafka)
      controller_port="$(free_port)"
      KAFKA_ARGV=("listeners=$listeners,CONTROLLER://127.0.0.1:$controller_port" "advertised.listeners=$listeners"
        listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT,SSL:SSL,SASL_SSL:SASL_SSL,SASL_PLAINTEXT:SASL_PLAINTEXT "${tls_keys[@]}")
      KAFKA_CONTROLLER_PORT="$controller_port" start_kafka "$data" "$plain_port" || { echo "bench-tls: kafka did not start" >&2; exit 1; }
      KAFKA_ARGV=() ;;
    *) echo "bench-tls: unknown broker $broker" >&2; exit 2 ;;
  esac
  pid="$BROKER_PID"
  add_scram_user "$plain_port" "$pid" "$sasl_port" || exit 1
  start=$SECONDS
  measure "$broker" "$pid" "$plain_port" "$ssl_port" "$sasl_ssl_port" "$sasl_port"
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
print("| broker | listener | produce MB/s | ack p99 ms | produce CPU s/GB | consume MB/s | consume CPU s/GB | e2e p99 ms | conns/s opening | broker CPU ms per conn | RSS MiB, %d open | RSS KiB per idle conn | load1 |" % int(sys.argv[2]))
print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
conns = int(sys.argv[2])
for (broker, listener), r in rows.items():
    c = r.get("connections", {})
    per_s = rss = rss_open = cpu_ms = "-"
    if "open_secs" in c and float(c["open_secs"]) > 0:
        per_s = "{:.0f}".format(conns / float(c["open_secs"]))
    if "broker_cpu_s" in c:
        # the connections mode's broker CPU covers opening, holding and closing them
        cpu_ms = "{:.2f}".format(float(c["broker_cpu_s"]) * 1000 / conns)
    if "rss_after_kb" in c:
        rss_open = "{:.1f}".format(float(c["rss_after_kb"]) / 1024)
    if "rss_per_conn_kb" in c:
        rss = "{:.1f}".format(float(c["rss_per_conn_kb"]))
    print("| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |".format(broker, listener,
        g(r, "produce", "mb_per_s"), g(r, "produce", "p99_ms"), g(r, "produce", "broker_cpu_s_per_gb", "{:.2f}"),
        g(r, "consume", "mb_per_s"), g(r, "consume", "broker_cpu_s_per_gb", "{:.2f}"),
        g(r, "e2e", "p99_ms"), per_s, cpu_ms, rss_open, rss, r.get("connections", {}).get("load1", "-")))
PY
echo
echo "uptime: $(uptime)"
echo "results: $RESULTS"
