#!/usr/bin/env bash
# The web console's figures for README "Web console": one `karst serve`
# with the console on, 1,000 records in a 3-partition topic and a group
# that consumed them; the broker's RSS (VmRSS, VmHWM) before any traffic,
# after the traffic, and after loading every console page in headless
# Chromium N times; each page's server time (curl time_total) and
# its load in headless Chromium (navigation timing: see
# TestConsoleInHeadlessChromium's log).
#
#   scripts/bench/console-figures.sh [N]    (N rounds of page loads, default 5)
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
rounds="${1:-5}"
work="$(mktemp -d)"
pid=""
cleanup() { [ -n "$pid" ] && kill "$pid" 2>/dev/null; wait 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT
chromium="$(command -v chromium || command -v chromium-browser || true)"
[ -n "$chromium" ] || { echo "no chromium on PATH" >&2; exit 1; }

(cd "$root" && go build -o "$work/karst" ./cmd/karst)
"$work/karst" serve --override log.dirs="$work/data" --override listeners=PLAINTEXT://127.0.0.1:0 \
  --override karst.console.listener=127.0.0.1:0 --override group.initial.rebalance.delay.ms=0 2>"$work/broker.log" &
pid=$!
for _ in $(seq 600); do grep -q "serving the web console" "$work/broker.log" && break; sleep 0.1; done
console="$(grep -o 'url=http://[0-9.:]*/' "$work/broker.log" | head -1 | sed 's/url=//; s,/$,,')"
kafka="$(grep -o 'reads=[0-9.:]*' "$work/broker.log" | head -1 | sed 's/reads=//')"
[ -n "$console" ] && [ -n "$kafka" ] || { cat "$work/broker.log" >&2; exit 1; }
rss() { awk '/^VmRSS|^VmHWM/ { printf "%s %.1f MB  ", $1, $2/1024 }' "/proc/$pid/status"; echo; }
echo "console $console, Kafka listener $kafka, load: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "idle:           $(rss)"

k() { "$work/karst" "$@" --bootstrap-server "$kafka"; }
k topic create orders --partitions 3 >/dev/null
seq 1000 | awk '{ printf "order-%04d {\"n\":%d,\"item\":\"widget\"}\n", $1, $1 }' | k produce orders -K ' ' >/dev/null
k consume orders --group readers --offset beginning --count 1000 >/dev/null
echo "after traffic:  $(rss)"

pages=(/ /topics /topics/orders "/topics/orders/messages?partition=0" "/topics/orders/messages?partition=0&key=order-0500&format=json" /groups /groups/readers)
for p in "${pages[@]}"; do
  times=""
  for _ in $(seq "$rounds"); do times+="$(curl -s -o /dev/null -w '%{time_total}' "$console$p") "; done
  echo "server $p: $times s"
done
# The pages in a real browser too (a new headless Chromium per load; its
# timings are TestConsoleInHeadlessChromium's), for the RSS after them.
loaded=0
for p in "${pages[@]}"; do
  for _ in $(seq "$rounds"); do
    "$chromium" --headless --no-sandbox --disable-gpu --dump-dom "$console$p" 2>/dev/null | grep -q '<h1>' && loaded=$((loaded + 1))
  done
done
echo "chromium: $loaded of $((rounds * ${#pages[@]})) loads showed the page"
echo "after $((rounds * ${#pages[@]} * 2)) page loads: $(rss)"
