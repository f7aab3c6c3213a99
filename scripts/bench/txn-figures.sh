#!/usr/bin/env bash
# txn-figures.sh [OUTDIR] — transaction figures of Karst beside Apache Kafka $KAFKA_VERSION (4.4.0 unless set), measured on this
# machine in the same run and printed as a Markdown table:
#   committed transactions per second of one franz-go transactional producer (BeginTransaction,
#   RECORDS_PER_TXN records of RECORD_SIZE bytes, flush, EndTransaction(commit), back to back for
#   DURATION), on a topic of 1 partition and on one of 10 (records round-robin over the partitions,
#   so with 10 records each partition gets one record and one commit marker per transaction), with
#   the p50 and p99 of a transaction's time; median of REPS runs;
#   the cost of read_committed on consume throughput: a topic of 10 partitions is filled by
#   FILL_PRODUCERS transactional producers with FILL_TXNS transactions of the same shape (markers
#   interleaved with the records), then read from the start without a group with
#   isolation.level=read_uncommitted and read_committed, REPS times each, alternating the order.
# One broker at a time (Karst, then Kafka from interop/kafka/start.sh), each on a fresh data dir.
# Raw result lines go to OUTDIR/txn.txt (default: a temp dir, removed).
# Environment: BROKERS ("karst kafka"), REPS (3), DURATION (10s), RECORDS_PER_TXN (10),
# RECORD_SIZE (1024), PRODUCERS (1), FILL_TXNS (20000), FILL_PRODUCERS (4), KARST_BIN.
set -uo pipefail
source "$(dirname "$0")/lib.sh"

BROKERS="${BROKERS:-karst kafka}"
REPS="${REPS:-3}"
DURATION="${DURATION:-10s}"
RECORDS_PER_TXN="${RECORDS_PER_TXN:-10}"
RECORD_SIZE="${RECORD_SIZE:-1024}"
PRODUCERS="${PRODUCERS:-1}"
FILL_TXNS="${FILL_TXNS:-20000}"
FILL_PRODUCERS="${FILL_PRODUCERS:-4}"
WORK="$(mktemp -d /tmp/karst-txn-figures.XXXXXX)"
trap 'bench_cleanup; rm -rf "$WORK"' EXIT
OUT="${1:-$WORK}"; mkdir -p "$OUT"
RESULTS="$OUT/txn.txt"; : > "$RESULTS"
bench_build "$WORK" || exit 1
LOAD_BEFORE="$(cut -d' ' -f1-3 /proc/loadavg)"

record() { tee -a "$RESULTS" >&2; }

for broker in $BROKERS; do
  echo "== $broker" >&2
  data="$WORK/$broker"; mkdir -p "$data"; port="$(free_port)"
  if ! "start_$broker" "$data" "$port"; then echo "mode=start broker=$broker error=start_failed" | record; continue; fi
  pid="$BROKER_PID"
  common=(-brokers "127.0.0.1:$port" -pid "$pid" -tag "broker=$broker")
  shape=(-records-per-txn "$RECORDS_PER_TXN" -record-size "$RECORD_SIZE")
  for partitions in 1 10; do
    for rep in $(seq 1 "$REPS"); do
      timeout 120 "$KARST" bench txn "${common[@]}" -tag "rep=$rep" "${shape[@]}" -partitions "$partitions" \
        -producers "$PRODUCERS" -duration "$DURATION" | record
    done
  done
  # The consume figures read a topic of a fixed size, the same on both brokers.
  fill="$(timeout 300 "$KARST" bench txn "${common[@]}" -tag phase=fill "${shape[@]}" -topic karst-bench-rc \
    -partitions 10 -producers "$FILL_PRODUCERS" -txns "$FILL_TXNS" -duration 240s)"
  echo "$fill" | record
  written="$(sed -n 's/.* records=\([0-9]*\) .*/\1/p' <<<"$fill")"
  if [ -n "$written" ] && [ "$written" -gt 0 ]; then
    for rep in $(seq 1 "$REPS"); do
      order="read_uncommitted read_committed"; [ $((rep % 2)) -eq 0 ] && order="read_committed read_uncommitted"
      for iso in $order; do
        timeout 120 "$KARST" bench consume "${common[@]}" -tag "rep=$rep" -topic karst-bench-rc -records "$written" \
          -duration 60s -isolation "$iso" | record
      done
    done
  fi
  stop_broker "$broker" "$data" "$pid"
done

LOAD_AFTER="$(cut -d' ' -f1-3 /proc/loadavg)"
python3 - "$RESULTS" "$BROKERS" "$LOAD_BEFORE" "$LOAD_AFTER" "$RECORDS_PER_TXN" "$RECORD_SIZE" "$PRODUCERS" "$DURATION" "$REPS" <<'PY'
import shlex, statistics, sys
path, brokers, load_before, load_after = sys.argv[1], sys.argv[2].split(), sys.argv[3], sys.argv[4]
per_txn, size, producers, duration, reps = sys.argv[5:10]
rows = [dict(kv.split("=", 1) for kv in shlex.split(l) if "=" in kv) for l in open(path) if l.strip()]
pair = brokers == ["karst", "kafka"]

def fig(broker, mode, key, **match):
    sel = [r for r in rows if r.get("broker") == broker and r.get("mode") == mode and "phase" not in r
           and all(r.get(k) == v for k, v in match.items())]
    vals = [float(r[key]) for r in sel if key in r and "error" not in r]
    return (statistics.median(vals) if vals else None), [r["error"] for r in sel if "error" in r]

names = {"karst": "Karst", "kafka": "Kafka"}
lines = ["| figure | " + " | ".join(names.get(b, b) for b in brokers) + (" | ratio |" if pair else " |"),
         "| --- |" + " --- |" * (len(brokers) + (1 if pair else 0))]
def cells_row(label, vals, errs, fmt):
    cells = [(fmt % v if v is not None else "failed") + (f" ({e} failed)" if e and v is not None else "")
             for v, e in zip(vals, errs)]
    if pair:
        cells.append("%.2f" % (vals[0] / vals[1]) if None not in vals and vals[1] else "")
    lines.append(f"| {label} | " + " | ".join(cells) + " |")
def row(label, mode, key, fmt="%.1f", **match):
    got = [fig(b, mode, key, **match) for b in brokers]
    cells_row(label, [v for v, _ in got], [len(e) for _, e in got], fmt)
    return [v for v, _ in got]

shape = f"{per_txn} records of {size} B, {producers} producer{'s' if producers != '1' else ''}"
for p in ("1", "10"):
    row(f"transactions/s, {p} partition{'s' if p != '1' else ''} ({shape})", "txn", "txn_per_s", partitions=p)
    row(f"transaction time p50 (ms), {p} partition{'s' if p != '1' else ''}", "txn", "p50_ms", "%.2f", partitions=p)
    row(f"transaction time p99 (ms), {p} partition{'s' if p != '1' else ''}", "txn", "p99_ms", "%.2f", partitions=p)
ru = row("consume MB/s, read_uncommitted (transactional topic, 10 partitions)", "consume", "mb_per_s", isolation="read_uncommitted")
rc = row("consume MB/s, read_committed (same topic)", "consume", "mb_per_s", isolation="read_committed")
cost = [(1 - c / u) * 100 if u and c is not None else None for u, c in zip(ru, rc)]
lines.append("| read_committed cost (% of read_uncommitted MB/s) | " + " | ".join(
    "%.1f %%" % c if c is not None else "" for c in cost) + (" | |" if pair else " |"))
print("\n".join(lines))
fills = [r for r in rows if r.get("phase") == "fill"]
for r in fills:
    print(f"\n{names.get(r.get('broker'), r.get('broker'))} fill: {r.get('txns', '?')} transactions, {r.get('records', '?')} records"
          f" by {r.get('producers', '?')} producers at {r.get('txn_per_s', '?')} txn/s" + (f", error: {r['error']}" if "error" in r else ""))
print(f"\nmedians of {reps} runs; txn runs of {duration} each")
print(f"load average (1, 5, 15 min): {load_before} before, {load_after} after")
for r in rows:
    if r.get("mode") == "consume" and r.get("short") == "1":
        print(f"\nshort read: {r.get('broker')} {r.get('isolation')} read {r.get('records')} records, fewer than the fill wrote")
    if "error" in r:
        print(f"\nfailed: {r.get('broker')} {r.get('mode')} partitions={r.get('partitions', '')} isolation={r.get('isolation', '')}: {r['error']}")
PY
