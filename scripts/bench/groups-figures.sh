#!/usr/bin/env bash
# groups-figures.sh [OUTDIR] — consumer-group figures of Karst beside Apache Kafka $KAFKA_VERSION (4.4.0 unless set), measured
# on this machine and printed as a Markdown table:
#   rebalance_ms for groups of 2, 10 and 50 members on one topic of PARTITIONS partitions, with each
#   protocol of PROTOCOLS: classic (franz-go, cooperative-sticky; JoinGroup/SyncGroup) and consumer
#   (KIP-848, franz-go, ConsumerGroupHeartbeat with the server-side range assignor): from the
#   members starting until every partition has exactly one owner and the coordinator says Stable
#   (DescribeGroups resp. ConsumerGroupDescribe), median of REPS runs, a fresh group each;
#   synchronous offset commits per second (and p99) of one member for DURATION.
# Both brokers run with group.initial.rebalance.delay.ms=0 (interop/kafka/start.sh sets it for
# Kafka; this script adds it to Karst's command line) so the figures time the protocol, not the
# configured delay. The KIP-848 settings stay at their defaults on both brokers: in particular
# group.consumer.heartbeat.interval.ms=5000, which bounds how fast a member learns of a new target
# assignment, so a consumer-protocol rebalance takes about one or more heartbeat intervals.
# Raw result lines go to OUTDIR/groups.txt (default: a temp dir, removed).
# Environment: BROKERS ("karst kafka"), MEMBERS ("2 10 50"), PARTITIONS (500), REPS (3),
# DURATION of the commit run (5s), PROTOCOLS ("classic consumer"; PROTOCOL, if set, is the one
# protocol to run), KARST_BIN (a karst with `bench`).
set -uo pipefail
source "$(dirname "$0")/lib.sh"

BROKERS="${BROKERS:-karst kafka}"
MEMBERS="${MEMBERS:-2 10 50}"
PARTITIONS="${PARTITIONS:-500}"
REPS="${REPS:-3}"
DURATION="${DURATION:-5s}"
PROTOCOLS="${PROTOCOL:-${PROTOCOLS:-classic consumer}}"
WORK="$(mktemp -d /tmp/karst-groups-figures.XXXXXX)"
trap 'bench_cleanup; rm -rf "$WORK"' EXIT
OUT="${1:-$WORK}"; mkdir -p "$OUT"
RESULTS="$OUT/groups.txt"; : > "$RESULTS"
bench_build "$WORK" || exit 1
LOAD_BEFORE="$(cut -d' ' -f1-3 /proc/loadavg)"

# lib.sh's Karst command line, plus the rebalance delay Kafka's start.sh also sets to 0.
karst_cmd() {
  printf '%s\n' "$KARST" serve --override "listeners=PLAINTEXT://127.0.0.1:$2" --override "log.dirs=$1/data" \
    --override group.initial.rebalance.delay.ms=0
}

record() { tee -a "$RESULTS" >&2; }

for broker in $BROKERS; do
  echo "== $broker" >&2
  data="$WORK/$broker"; mkdir -p "$data"; port="$(free_port)"
  if ! "start_$broker" "$data" "$port"; then echo "mode=start broker=$broker error=start_failed" | record; continue; fi
  pid="$BROKER_PID"
  common=(-brokers "127.0.0.1:$port" -pid "$pid" -tag "broker=$broker")
  for protocol in $PROTOCOLS; do
    for n in $MEMBERS; do
      for rep in $(seq 1 "$REPS"); do
        timeout 150 "$KARST" bench rebalance "${common[@]}" -tag "rep=$rep" -members "$n" -partitions "$PARTITIONS" \
          -protocol "$protocol" -timeout 120s | record
      done
    done
  done
  timeout 120 "$KARST" bench commits "${common[@]}" -duration "$DURATION" | record
  stop_broker "$broker" "$data" "$pid"
done

LOAD_AFTER="$(cut -d' ' -f1-3 /proc/loadavg)"
python3 - "$RESULTS" "$BROKERS" "$MEMBERS" "$PARTITIONS" "$PROTOCOLS" "$LOAD_BEFORE" "$LOAD_AFTER" <<'PY'
import shlex, statistics, sys
path, brokers, members, partitions, protocols = sys.argv[1], sys.argv[2].split(), sys.argv[3].split(), sys.argv[4], sys.argv[5].split()
load_before, load_after = sys.argv[6], sys.argv[7]
rows = [dict(kv.split("=", 1) for kv in shlex.split(l) if "=" in kv) for l in open(path) if l.strip()]

def fig(broker, mode, key, **match):
    vals = [float(r[key]) for r in rows if r.get("broker") == broker and r.get("mode") == mode
            and key in r and "error" not in r and all(r.get(k) == v for k, v in match.items())]
    errs = [r["error"] for r in rows if r.get("broker") == broker and r.get("mode") == mode
            and "error" in r and all(r.get(k) == v for k, v in match.items())]
    return (statistics.median(vals) if vals else None), errs

lines = [("| figure | " + " | ".join(brokers) + (" | Karst/Kafka |" if brokers == ["karst", "kafka"] else " |")),
         "| --- |" + " --- |" * (len(brokers) + (1 if brokers == ["karst", "kafka"] else 0))]
def row(label, mode, key, **match):
    cells, vals = [], []
    for b in brokers:
        v, errs = fig(b, mode, key, **match)
        vals.append(v)
        cells.append(("%.1f" % v if v is not None else "failed") + (f" ({len(errs)} failed)" if errs and v is not None else ""))
    if brokers == ["karst", "kafka"]:
        cells.append("%.2f" % (vals[0] / vals[1]) if None not in vals and vals[1] else "")
    lines.append(f"| {label} | " + " | ".join(cells) + " |")
for protocol in protocols:
    for n in members:
        row(f"{protocol} rebalance, {n} members, {partitions} partitions (ms, median)", "rebalance", "rebalance_ms",
            members=n, protocol=protocol)
row("offset commits/s (one member, sync)", "commits", "commits_per_s")
row("offset commit p99 (ms)", "commits", "p99_ms")
print("\n".join(lines))
print(f"\nload average (1, 5, 15 min): {load_before} before, {load_after} after")
if "consumer" in protocols:
    print("consumer (KIP-848): broker defaults on both, group.consumer.heartbeat.interval.ms=5000")
errors = [r for r in rows if "error" in r]
for r in errors:
    print(f"\nfailed: {r.get('broker')} {r.get('mode')} {r.get('protocol', '')} members={r.get('members', '')}: {r['error']}")
PY
