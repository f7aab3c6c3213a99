#!/usr/bin/env python3
"""Turns `karst bench` result lines (key=value, tagged broker= and rep=) into
CSV, a Markdown summary, the issue-2 figures table, and PNG plots.

  report.py table RESULTS.txt OUT.csv   # writes CSV, prints the Markdown summary
  report.py figures RESULTS.txt         # prints the issue-2 figures table
  report.py plots RESULTS.txt OUTDIR    # writes PNGs (needs matplotlib)

Only the standard library, except `plots`.
"""
import csv
import os
import shlex
import statistics
import sys

BROKERS = ["karst", "kafka"]


def names(rows):
    """The brokers' names for the headings. Kafka's carries the version the broker logged at start
    (the version= field compare.sh and issue2-figures.sh put on the idle line), so a report says
    which release was measured; KAFKA_VERSION only when no line records one (older results)."""
    seen = sorted({r["version"] for r in rows if r.get("broker") == "kafka" and r.get("version")})
    if seen:
        kafka = "Apache Kafka " + "/".join(seen)
    elif os.environ.get("KAFKA_VERSION"):
        kafka = "Apache Kafka " + os.environ["KAFKA_VERSION"]
    else:
        kafka = "Apache Kafka (version not recorded)"
    return {"karst": "Karst", "kafka": kafka}


CPU_PER_GB = ("broker_cpu_s_per_gb", "broker CPU s/GB", 1, False)
SYS_PER_GB = ("broker_sys_s_per_gb", "of which kernel s/GB", 1, False)

# What the summary shows for each case: (key, label, scale, higher_is_better)
METRICS = {
    "idle": [("rss_kb", "RSS idle (MiB)", 1 / 1024, False)],
    "apiversions": [("req_per_s", "requests/s", 1, True), ("p99_ms", "p99 ms", 1, False),
                    ("rss_peak_kb", "peak RSS (MiB)", 1 / 1024, False)],
    "connections": [("rss_after_kb", "RSS with them open (MiB)", 1 / 1024, False),
                    ("rss_per_conn_kb", "KiB per connection", 1, False)],
    "produce": [("records_per_s", "records/s", 1, True), ("mb_per_s", "MB/s", 1, True),
                ("p99_ms", "ack p99 ms", 1, False), CPU_PER_GB, SYS_PER_GB, ("rss_peak_kb", "peak RSS (MiB)", 1 / 1024, False)],
    "consume": [("records_per_s", "records/s", 1, True), ("mb_per_s", "MB/s", 1, True), CPU_PER_GB, SYS_PER_GB,
                ("rss_peak_kb", "peak RSS (MiB)", 1 / 1024, False)],
    "e2e": [("p50_ms", "p50 ms", 1, False), ("p99_ms", "p99 ms", 1, False), ("p999_ms", "p99.9 ms", 1, False),
            ("max_ms", "max ms", 1, False), ("lost", "lost records", 1, False),
            ("rss_peak_kb", "peak RSS (MiB)", 1 / 1024, False)],
    "startup": [("startup_ms", "start to first ApiVersions (ms)", 1, False),
                ("rss_ready_kb", "RSS when ready (MiB)", 1 / 1024, False),
                ("rss_settled_kb", "RSS 2 s later (MiB)", 1 / 1024, False)],
}


def parse_line(line):
    """key=value pairs; values may be Go-quoted (shlex handles the quotes)."""
    out = {}
    try:
        parts = shlex.split(line)
    except ValueError:
        return None
    for p in parts:
        k, sep, v = p.partition("=")
        if not sep:
            return None
        out[k] = v
    return out if "mode" in out else None


def case_of(r):
    m = r["mode"]
    if m == "apiversions":
        return "apiversions-%sconn" % r.get("conns", "?")
    if m == "connections":
        return "connections-%s" % r.get("conns", "?")
    if m == "produce" and r.get("client", "franz-go") != "franz-go":
        return "produce-%s" % r["client"]
    if m == "produce" and r.get("partitions", "6") != "6":
        return "produce-%sp" % r["partitions"]
    if m == "produce" and r.get("record_size", "1024") != "1024":
        return "produce-%sB" % r["record_size"]
    if m == "consume" and r.get("client", "franz-go") != "franz-go":
        return "consume-%s" % r["client"]
    if m == "consume" and r.get("consumers", "1") != "1":
        return "consume-%sclients" % r["consumers"]
    return m


def load(path):
    rows = []
    with open(path) as f:
        for line in f:
            r = parse_line(line.strip())
            if r:
                r["case"] = case_of(r)
                rows.append(r)
    return rows


def write_csv(rows, path):
    keys = []
    for r in rows:
        for k in r:
            if k not in keys:
                keys.append(k)
    front = [k for k in ("broker", "rep", "case", "mode") if k in keys]
    keys = front + [k for k in keys if k not in front]
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=keys)
        w.writeheader()
        for r in rows:
            w.writerow(r)


def ok(r):
    return not r.get("error")


def median_of(rows, broker, case, key):
    vals = []
    for r in rows:
        if r.get("broker") == broker and r["case"] == case and ok(r) and key in r:
            try:
                vals.append(float(r[key]))
            except ValueError:
                pass
    return statistics.median(vals) if vals else None


def first_error(rows, broker, case):
    for r in rows:
        if r.get("broker") == broker and r["case"] == case and not ok(r):
            return r["error"]
    return None


def fmt(v):
    if v is None:
        return "—"
    if v == int(v) and abs(v) < 1e15:
        return "{:,d}".format(int(v))
    if abs(v) >= 100:
        return "{:,.0f}".format(v)
    if abs(v) >= 10:
        return "{:.1f}".format(v)
    return "{:.2f}".format(v)


def cell(rows, broker, case, key, scale):
    v = median_of(rows, broker, case, key)
    if v is not None:
        return fmt(v * scale), v
    err = first_error(rows, broker, case)
    if err:
        return "failed: " + err[:70].replace("|", "\\|").replace("\n", " "), None
    return "absent", None


def cases(rows):
    seen = []
    order = ["idle", "apiversions", "connections", "produce", "consume", "e2e", "startup"]
    for c in sorted({r["case"] for r in rows},
                    key=lambda c: (order.index(c.split("-")[0]) if c.split("-")[0] in order else 99, c)):
        seen.append(c)
    return seen


def table(rows):
    reps = sorted({r.get("rep", "") for r in rows})
    out = ["Median of %d run(s) per broker on this machine; ratio = Karst / Kafka "
           "(for rates, above 1 is Karst faster; for times and memory, below 1 is Karst better)." % len(reps),
           "", "| case | metric | Karst | %s | Karst/Kafka | ok runs (Karst/Kafka) |" % names(rows)["kafka"],
           "| --- | --- | ---: | ---: | ---: | --- |"]
    for c in cases(rows):
        base = c.split("-")[0]
        n = {b: sum(1 for r in rows if r.get("broker") == b and r["case"] == c and ok(r)) for b in BROKERS}
        t = {b: sum(1 for r in rows if r.get("broker") == b and r["case"] == c) for b in BROKERS}
        for key, label, scale, _ in METRICS.get(base, []):
            ks, kv = cell(rows, "karst", c, key, scale)
            fs, fv = cell(rows, "kafka", c, key, scale)
            if ks == fs == "absent":  # a metric this case's client does not report (RSS from Kafka's tools)
                continue
            ratio = fmt(kv / fv) if kv is not None and fv not in (None, 0) else "—"
            out.append("| %s | %s | %s | %s | %s | %d/%d, %d/%d |" % (
                c, label, ks, fs, ratio, n["karst"], t["karst"], n["kafka"], t["kafka"]))
    return "\n".join(out)


FIGURES = [
    ("idle", "rss_kb", "RSS idle (MiB)", 1 / 1024),
    ("connections-1000", "rss_after_kb", "RSS with 1,000 idle connections (MiB)", 1 / 1024),
    ("connections-10000", "rss_after_kb", "RSS with 10,000 idle connections (MiB)", 1 / 1024),
    ("connections-10000", "rss_per_conn_kb", "memory per idle connection, 10,000 open (KiB)", 1),
    ("apiversions-1conn", "req_per_s", "ApiVersions req/s, 1 connection, 64 pipelined", 1),
    ("apiversions-1conn", "p99_ms", "ApiVersions p99 ms, 1 connection, 64 pipelined", 1),
    ("apiversions-64conn", "req_per_s", "ApiVersions req/s, 64 connections, 64 pipelined each", 1),
    ("apiversions-64conn", "p99_ms", "ApiVersions p99 ms, 64 connections", 1),
    ("startup", "startup_ms", "process start to first answered ApiVersions (ms)", 1),
]


def figures(rows):
    brokers = [b for b in BROKERS if any(r.get("broker") == b for r in rows)]
    heading = names(rows)
    out = ["| figure | " + " | ".join(heading[b] for b in brokers) + " |",
           "| --- | " + " | ".join("---:" for _ in brokers) + " |"]
    for c, key, label, scale in FIGURES:
        out.append("| %s | %s |" % (label, " | ".join(cell(rows, b, c, key, scale)[0] for b in brokers)))
    return "\n".join(out)


def plots(rows, outdir):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    colors = {"karst": "#2a7ab9", "kafka": "#d9822b"}
    heading = names(rows)

    def bars(ax, panels, title):
        width = 0.38
        for i, b in enumerate(BROKERS):
            xs, ys = [], []
            for j, (c, key, _, scale) in enumerate(panels):
                v = median_of(rows, b, c, key)
                xs.append(j + (i - 0.5) * width)
                ys.append(v * scale if v is not None else 0)
                ax.text(j + (i - 0.5) * width, (v * scale if v is not None else 0),
                        fmt(v * scale) if v is not None else "n/a", ha="center", va="bottom", fontsize=7)
            ax.bar(xs, ys, width, label=heading[b], color=colors[b])
        ax.set_xticks(range(len(panels)))
        ax.set_xticklabels([p[2] for p in panels], fontsize=8)
        ax.set_title(title, fontsize=10)
        ax.legend(fontsize=8)

    written = []
    fig, axes = plt.subplots(1, 3, figsize=(18, 4.5))
    bars(axes[0], [("apiversions-1conn", "req_per_s", "1 conn", 1), ("apiversions-64conn", "req_per_s", "64 conns", 1)],
         "ApiVersions requests/s")
    bars(axes[1], [("produce", "mb_per_s", "produce", 1), ("produce-franz-plain", "mb_per_s", "produce\nfranz plain", 1),
                   ("produce-perf-test", "mb_per_s", "produce\nperf-test", 1),
                   ("consume", "mb_per_s", "consume", 1), ("consume-raw", "mb_per_s", "consume (raw)", 1),
                   ("consume-franz-plain", "mb_per_s", "consume\nfranz plain", 1),
                   ("consume-perf-test", "mb_per_s", "consume\nperf-test", 1)],
         "Records MB/s (1 KiB records)")
    bars(axes[2], [("produce", "records_per_s", "produce", 1), ("produce-100B", "records_per_s", "produce 100 B", 1),
                   ("consume", "records_per_s", "consume", 1), ("consume-raw", "records_per_s", "consume (raw)", 1)],
         "Records/s")
    fig.tight_layout()
    fig.savefig(outdir + "/throughput.png", dpi=110)
    written.append("throughput.png")
    plt.close(fig)

    fig, axes = plt.subplots(1, 3, figsize=(18, 4.5))
    bars(axes[0], [("e2e", "p50_ms", "p50", 1), ("e2e", "p99_ms", "p99", 1), ("e2e", "p999_ms", "p99.9", 1),
                   ("e2e", "max_ms", "max", 1)], "End-to-end latency ms (10,000 records/s of 1 KiB)")
    # The produce tail at saturation, which e2e at a fixed rate does not reach.
    bars(axes[2], [("produce-perf-test", "p50_ms", "p50\nperf-test", 1), ("produce-perf-test", "p99_ms", "p99\nperf-test", 1),
                   ("produce-franz-plain", "p50_ms", "p50\nfranz plain", 1),
                   ("produce-franz-plain", "p99_ms", "p99\nfranz plain", 1)],
         "Produce latency ms at saturation (1 KiB, acks=all)")
    bars(axes[1], [("apiversions-1conn", "p50_ms", "p50, 1 conn", 1), ("apiversions-1conn", "p99_ms", "p99, 1 conn", 1),
                   ("apiversions-64conn", "p50_ms", "p50, 64 conns", 1), ("apiversions-64conn", "p99_ms", "p99, 64 conns", 1)],
         "ApiVersions latency ms")
    fig.tight_layout()
    fig.savefig(outdir + "/latency.png", dpi=110)
    written.append("latency.png")
    plt.close(fig)

    fig, ax = plt.subplots(figsize=(12, 4.5))
    bars(ax, [(c, "broker_cpu_s_per_gb", c.replace("-", "\n", 1), 1) for c in
              ("produce", "produce-franz-plain", "produce-perf-test", "produce-100B",
               "consume", "consume-raw", "consume-franz-plain", "consume-perf-test")],
         "Broker CPU seconds per GB of records moved (lower is better)")
    fig.tight_layout()
    fig.savefig(outdir + "/cpu.png", dpi=110)
    written.append("cpu.png")
    plt.close(fig)

    conn_cases = sorted({r["case"] for r in rows if r["case"].startswith("connections-")},
                        key=lambda c: int(c.split("-")[1]) if c.split("-")[1].isdigit() else 0)
    fig, ax = plt.subplots(figsize=(10, 4.5))
    bars(ax, [("idle", "rss_kb", "idle", 1 / 1024)] +
         [(c, "rss_after_kb", c.split("-")[1] + " conns", 1 / 1024) for c in conn_cases] +
         [("produce", "rss_peak_kb", "produce peak", 1 / 1024), ("e2e", "rss_peak_kb", "e2e peak", 1 / 1024)],
         "Broker RSS (MiB)")
    fig.tight_layout()
    fig.savefig(outdir + "/memory.png", dpi=110)
    written.append("memory.png")
    plt.close(fig)
    return written


def main(argv):
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    cmd, path = argv[1], argv[2]
    rows = load(path)
    if cmd == "table" and len(argv) == 4:
        write_csv(rows, argv[3])
        print(table(rows))
    elif cmd == "figures":
        print(figures(rows))
    elif cmd == "plots" and len(argv) == 4:
        plots(rows, argv[3])
    else:
        print(__doc__, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
