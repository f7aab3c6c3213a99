#!/usr/bin/env bash
# share.sh [OUTDIR] — share-group figures of Karst beside Apache Kafka $KAFKA_VERSION (4.4.0 unless
# set), measured on this machine in the same run and printed as a Markdown table:
#   records/s through a share group with 1, 3 and 10 consumers (CONSUMERS) over a topic of 10
#   partitions holding RECORDS records of 1 KiB, read by Kafka's own share consumer perf tool
#   (kafka-share-consumer-perf-test, org.apache.kafka.tools.ShareConsumerPerformance, --threads N;
#   it acknowledges implicitly: each poll accepts the previous one's records) and by franz-go's
#   share consumer with explicit acknowledgement (sharedriver consume: AckAccept per record, then
#   FlushAcks before the next poll; timed from its first record, while the perf tool's time holds
#   the group's join); the p50/p99 of that FlushAcks (acknowledgement latency: until
#   the broker answered); broker CPU seconds per GB read for each;
#   redelivery delay: a consumer process acquires records, then is SIGKILLed (the broker releases
#   a closed connection's records at once) or SIGSTOPped (they come back when their acquisition
#   locks, LOCK_MS, expire), and another member times their return (sharedriver redeliver).
# Each share group starts at the earliest offset (share.auto.offset.reset=earliest, a group config)
# and is used by one run only. One broker at a time, each on a fresh data dir.
# Raw result lines go to OUTDIR/share.txt (default: a temp dir, removed).
# Environment: BROKERS ("karst kafka"), RECORDS (200000), CONSUMERS ("1 3 10"), LOCK_MS (15000,
# the least group.share.min.record.lock.duration.ms allows by default), CASE_TIMEOUT (60 s), KARST_BIN.
set -uo pipefail
source "$(dirname "$0")/lib.sh"

BROKERS="${BROKERS:-karst kafka}"
RECORDS="${RECORDS:-200000}"
CONSUMERS="${CONSUMERS:-1 3 10}"
LOCK_MS="${LOCK_MS:-15000}"
CASE_TIMEOUT="${CASE_TIMEOUT:-60}"
WORK="$(mktemp -d /tmp/karst-share-figures.XXXXXX)"
trap 'bench_cleanup; rm -rf "$WORK"' EXIT
OUT="${1:-$WORK}"; mkdir -p "$OUT"
RESULTS="$OUT/share.txt"; : > "$RESULTS"
bench_build "$WORK" || exit 1
DRIVER="$WORK/sharedriver"
(cd "$REPO_ROOT" && go build -o "$DRIVER" ./scripts/bench/sharedriver) || { echo "share: building sharedriver failed" >&2; exit 1; }
ensure_kafka_jars || exit 1
LOAD_BEFORE="$(cut -d' ' -f1-3 /proc/loadavg)"

record() { tee -a "$RESULTS" >&2; }
cpu_ticks() { sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | awk '{print $12 + $13}'; }
# cpu_field BEFORE AFTER prints broker_cpu_s and its s/GB of RECORDS records of 1 KiB.
cpu_field() {
  awk -v b="$1" -v a="$2" -v hz="$(getconf CLK_TCK)" -v n="$RECORDS" \
    'BEGIN { s = (a - b) / hz; printf "broker_cpu_s=%.2f broker_cpu_s_per_gb=%.3f", s, s / (n * 1024 / 1073741824) }'
}

# perf_tool BROKER PORT GROUP THREADS runs Kafka's share consumer perf tool and prints a result line.
perf_tool() {
  local out line
  out="$(timeout $((CASE_TIMEOUT + 30)) java -Xmx512m -cp "$(kafka_classpath)" -Dkafka.logs.dir="$WORK/perf-tool-logs" -Dlog4j2.configurationFile="$KAFKA_DIR/log4j2.properties" \
    org.apache.kafka.tools.ShareConsumerPerformance --bootstrap-server "127.0.0.1:$2" --topic karst-bench-share \
    --group "$3" --threads "$4" --num-records "$RECORDS" --timeout $((CASE_TIMEOUT * 1000)) 2>&1)"
  # start.time, end.time, data.consumed.in.MB, MB.sec, nMsg.sec, data.consumed.in.nMsg
  line="$(grep -E '^[0-9]{4}-.*, [0-9.]+, [0-9.]+, [0-9.]+, [0-9]+$' <<<"$out" | tail -n 1)"
  if [ -z "$line" ]; then echo "mode=perf-share broker=$1 consumers=$4 error=no_result"; echo "$out" | tail -n 5 >&2; return; fi
  awk -F', ' -v b="$1" -v c="$4" '{ printf "mode=perf-share broker=%s consumers=%s records=%d mb_per_s=%s records_per_s=%s", b, c, $6, $4, $5 }' <<<"$line"
  grep -q 'WARNING: Exiting before' <<<"$out" && printf ' error=timeout'
  echo
}

for broker in $BROKERS; do
  echo "== $broker" >&2
  data="$WORK/$broker"; mkdir -p "$data"; port="$(free_port)"
  if ! "start_$broker" "$data" "$port"; then echo "mode=start broker=$broker error=start_failed" | record; continue; fi
  pid="$BROKER_PID"
  groups=""; for n in $CONSUMERS; do groups+="perf-$n,go-$n,"; done
  timeout 300 "$DRIVER" prepare -brokers "127.0.0.1:$port" -topic karst-bench-share -partitions 10 -records "$RECORDS" \
    -record-size 1024 -groups "$groups" -timeout 280s | sed "s/\$/ broker=$broker/" | record
  for n in $CONSUMERS; do
    before="$(cpu_ticks "$pid")"; line="$(perf_tool "$broker" "$port" "perf-$n" "$n")"
    echo "$line $(cpu_field "$before" "$(cpu_ticks "$pid")")" | record
    before="$(cpu_ticks "$pid")"
    line="$(timeout $((CASE_TIMEOUT + 30)) "$DRIVER" consume -brokers "127.0.0.1:$port" -topic karst-bench-share -group "go-$n" \
      -consumers "$n" -records "$RECORDS" -timeout "${CASE_TIMEOUT}s")"
    echo "${line:-mode=share-consume consumers=$n error=no_result} broker=$broker $(cpu_field "$before" "$(cpu_ticks "$pid")")" | record
  done
  timeout 60 "$DRIVER" prepare -brokers "127.0.0.1:$port" -topic karst-bench-redeliver -partitions 1 -records 200 \
    -record-size 1024 -groups redeliver-KILL,redeliver-STOP -lock-ms "$LOCK_MS" -timeout 50s | sed "s/\$/ broker=$broker/" | record
  for sig in KILL STOP; do
    line="$(timeout $((CASE_TIMEOUT + 30)) "$DRIVER" redeliver -brokers "127.0.0.1:$port" -topic karst-bench-redeliver \
      -group "redeliver-$sig" -signal "$sig" -lock-ms "$LOCK_MS" -timeout "${CASE_TIMEOUT}s")"
    echo "${line:-mode=share-redeliver signal=$sig error=no_result} broker=$broker" | record
  done
  stop_broker "$broker" "$data" "$pid"
done

LOAD_AFTER="$(cut -d' ' -f1-3 /proc/loadavg)"
python3 - "$RESULTS" "$BROKERS" "$LOAD_BEFORE" "$LOAD_AFTER" "$RECORDS" "$CONSUMERS" "$LOCK_MS" <<'PY'
import shlex, sys
path, brokers, load_before, load_after, records, consumers, lock_ms = sys.argv[1:8]
brokers, consumers = brokers.split(), consumers.split()
rows = [dict(kv.split("=", 1) for kv in shlex.split(l) if "=" in kv) for l in open(path) if l.strip()]
pair = brokers == ["karst", "kafka"]

def fig(broker, mode, key, **match):
    for r in rows:
        if r.get("broker") == broker and r.get("mode") == mode and all(r.get(k) == v for k, v in match.items()):
            if "error" in r:
                return None, r["error"]
            return (float(r[key]) if key in r else None), None
    return None, "missing"

names = {"karst": "Karst", "kafka": "Kafka 4.4.0"}
lines = ["| figure | " + " | ".join(names.get(b, b) for b in brokers) + (" | Karst/Kafka |" if pair else " |"),
         "| --- |" + " --- |" * (len(brokers) + (1 if pair else 0))]
def row(label, mode, key, fmt="%.0f", **match):
    got = [fig(b, mode, key, **match) for b in brokers]
    cells = [fmt % v if v is not None else f"failed: {e}" for v, e in got]
    if pair:
        a, b = got[0][0], got[1][0]
        cells.append("%.2f" % (a / b) if a is not None and b else "")
    lines.append(f"| {label} | " + " | ".join(cells) + " |")

for n in consumers:
    s = "s" if n != "1" else ""
    row(f"records/s, {n} consumer{s}, Kafka's perf tool (implicit ack)", "perf-share", "records_per_s", consumers=n)
    row(f"broker CPU s/GB, {n} consumer{s}, perf tool", "perf-share", "broker_cpu_s_per_gb", "%.2f", consumers=n)
    row(f"records/s, {n} consumer{s}, franz-go explicit ack", "share-consume", "records_per_s", consumers=n)
    row(f"ack latency p50 (ms), {n} consumer{s}", "share-consume", "ack_p50_ms", "%.2f", consumers=n)
    row(f"ack latency p99 (ms), {n} consumer{s}", "share-consume", "ack_p99_ms", "%.2f", consumers=n)
    row(f"broker CPU s/GB, {n} consumer{s}, franz-go", "share-consume", "broker_cpu_s_per_gb", "%.2f", consumers=n)
row("redelivery after SIGKILL of the holder (ms from the kill)", "share-redeliver", "after_signal_ms", "%.0f", signal="KILL")
row(f"redelivery after SIGSTOP of the holder (ms from acquisition; lock {lock_ms} ms)", "share-redeliver", "after_acquired_ms", "%.0f", signal="STOP")
print("\n".join(lines))
print(f"\n{records} records of 1 KiB in 10 partitions per run; a fresh share group per run")
print(f"load average (1, 5, 15 min): {load_before} before, {load_after} after")
for r in rows:
    if "error" in r:
        print(f"\nfailed: {r.get('broker')} {r.get('mode')} consumers={r.get('consumers', '')} signal={r.get('signal', '')}: {r['error']}")
    if r.get("mode") == "share-consume" and r.get("ack_errors", "0") != "0":
        print(f"\n{r.get('broker')} {r.get('consumers')} consumers: {r['ack_errors']} acknowledgement errors")
PY
