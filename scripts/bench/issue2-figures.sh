#!/usr/bin/env bash
# issue2-figures.sh [OUTDIR] — the connection-path figures of Karst, with
# Apache Kafka $KAFKA_VERSION (4.4.0 unless set) beside it, measured on this
# machine, printed as a Markdown table headed with the Kafka version that ran:
#   RSS idle; RSS with 1,000 and with 10,000 idle connections; ApiVersions
#   req/s pipelined on one connection and across 64 connections; time from
#   process start to the first answered ApiVersions.
# Raw result lines go to OUTDIR/figures.txt (default: a temp dir, removed).
# Environment: BROKERS ("karst kafka"), DURATION of each ApiVersions run (5s),
# SETTLE before reading idle RSS (2s), KARST_BIN (a karst with `bench`).
set -uo pipefail
source "$(dirname "$0")/lib.sh"

BROKERS="${BROKERS:-karst kafka}"
DURATION="${DURATION:-5s}"
SETTLE="${SETTLE:-2}"
WORK="$(mktemp -d /tmp/karst-figures.XXXXXX)"
trap 'bench_cleanup; rm -rf "$WORK"' EXIT
OUT="${1:-$WORK}"; mkdir -p "$OUT"
RESULTS="$OUT/figures.txt"; : > "$RESULTS"
bench_build "$WORK" || exit 1

record() { tee -a "$RESULTS" >&2; }

for broker in $BROKERS; do
  echo "== $broker" >&2
  data="$WORK/$broker"; mkdir -p "$data"; port="$(free_port)"
  if "start_$broker" "$data" "$port"; then
    pid="$BROKER_PID"
    sleep "$SETTLE" # idle means settled after start, not mid-start
    version=""; [ "$broker" = kafka ] && version=" version=$(kafka_version "$data")"
    echo "mode=idle rss_kb=$(rss_kb "$pid") broker=$broker$version" | record
    for n in 1000 10000; do
      timeout 120 "$KARST" bench connections -brokers "127.0.0.1:$port" -pid "$pid" -conns "$n" \
        -tag "broker=$broker" | record
    done
    timeout 120 "$KARST" bench apiversions -brokers "127.0.0.1:$port" -pid "$pid" -conns 1,64 -window 64 -requests 100000000 \
      -duration "$DURATION" -tag "broker=$broker" | record
    stop_broker "$broker" "$data" "$pid"
  else
    echo "mode=idle error=\"$broker did not start\" broker=$broker" | record
  fi

  # Start-up from a data directory that holds no topics: a fresh one for
  # Karst; for Kafka the one start.sh formatted above (Kafka needs it
  # formatted), with its listener moved to a new port.
  port="$(free_port)"
  case "$broker" in
    karst) sdata="$WORK/karst-startup"; mkdir -p "$sdata"; mapfile -t cmd < <(karst_cmd "$sdata" "$port") ;;
    kafka) sdata="$data"
      sed -i "s|PLAINTEXT://127.0.0.1:[0-9]*|PLAINTEXT://127.0.0.1:$port|g" "$sdata/server.properties"
      mapfile -t cmd < <(kafka_cmd "$sdata") ;;
  esac
  timeout 150 "$KARST" bench startup -brokers "127.0.0.1:$port" -settle "${SETTLE}s" -log "$sdata/startup.log" \
    -tag "broker=$broker" -- "${cmd[@]}" | record
done

echo >&2
python3 "$BENCH_DIR/report.py" figures "$RESULTS"
