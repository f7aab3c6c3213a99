"""kcat (librdkafka) with api.version.request=false against one broker.

python kcat_old.py BOOTSTRAP FALLBACK OWN_TOPIC FROM_44_TOPIC GROUP, FALLBACK one of 0.8.2.2,
0.9.0.1, 0.10.0.0: librdkafka then asks no ApiVersions and speaks what broker.version.fallback
names (Produce v0/v1, Fetch v0/v1, message format v0; group APIs from 0.9). With 0.10.0.0,
librdkafka 2.x sends ApiVersions all the same (seen with -d protocol) and speaks today's versions.
kcat writes the records of Corpus.java (same keys and values; kcat cannot set timestamps) with
every codec, a kcat run per partition; reads them back byte for byte; from 0.9 a balanced
consumer (-G) reads them in a group that commits and a second member resumes at the commits;
and it reads what kafka-clients 4.4 wrote transactionally with headers. Prints PASS/FAIL lines and
"generation FALLBACK: N passed, M failed".
"""
import subprocess
import sys

from kafka_python_old import CODECS, PARTITIONS, RECORDS_PER_CODEC, Checks, key, require, value

TIMEOUT_S = 30
# kcat prints partition, offset, key length (-1 for null), value length, then key and value raw.
FORMAT = r"%p %o %K %S\n%k%s\n"


def kcat(fallback, *args, stdin=None):
    cmd = ["kcat", "-b", BOOTSTRAP, "-X", "api.version.request=false", "-X", f"broker.version.fallback={fallback}", *args]
    done = subprocess.run(cmd, input=stdin, capture_output=True, timeout=TIMEOUT_S, check=False)
    require(done.returncode == 0, f"{' '.join(cmd)}: exit {done.returncode}: {done.stderr.decode(errors='replace')[-400:]}")
    return done.stdout


def parse(out):
    """Records as kcat printed them with FORMAT: {partition: [(key, value), ...]} in offset order."""
    read = {p: [] for p in range(PARTITIONS)}
    at = 0
    while at < len(out):
        eol = out.index(b"\n", at)
        p, _offset, klen, vlen = (int(x) for x in out[at:eol].split())
        at = eol + 1
        k = None if klen < 0 else out[at:at + klen]
        at += max(klen, 0)
        v = None if vlen < 0 else out[at:at + vlen]
        at += max(vlen, 0) + 1
        read[p].append((k, v))
    return read


def expected(generation, partition):
    return [(key(generation, c, i), value(generation, c, i)) for c in CODECS for i in range(RECORDS_PER_CODEC) if i % PARTITIONS == partition]


def compare(want, got, where):
    require(len(got) == len(want), f"{where}: read {len(got)} records, expected {len(want)}")
    for n, (w, g) in enumerate(zip(want, got)):
        require(w == g, f"{where}: record {n} is {g}, expected {w}")


def main():
    global BOOTSTRAP
    BOOTSTRAP, fallback, topic, from44, group = sys.argv[1:6]
    generation = "kcat-" + fallback
    checks = Checks()

    def produce(codec):
        for p in range(PARTITIONS):
            lines = b""
            for i in range(p, RECORDS_PER_CODEC, PARTITIONS):
                k = key(generation, codec, i)
                # A line without the delimiter is a record with a null key.
                lines += (b"" if k is None else k + b"\t") + value(generation, codec, i) + b"\n"
            kcat(fallback, "-P", "-t", topic, "-p", str(p), "-K", "\t", "-z", codec, "-X", "acks=all", stdin=lines)

    produced = True
    for codec in CODECS:
        produced &= checks.check(f"produce_{codec}", lambda codec=codec: produce(codec))

    def fetch(t, gen):
        # -c, not -e: magic 0 cannot carry transaction markers, and librdkafka on Fetch v0-1 never
        # reports the end of a partition whose last offsets are markers (the 4.4 topic's).
        count = RECORDS_PER_CODEC * len(CODECS)
        read = parse(kcat(fallback, "-C", "-t", t, "-o", "beginning", "-c", str(count), "-f", FORMAT))
        for p in range(PARTITIONS):
            compare(expected(gen, p), read[p], f"partition {p}")

    if produced:
        checks.check("fetch", lambda: fetch(topic, generation))
    else:
        checks.not_run("fetch", "nothing produced")

    if fallback.startswith("0.8"):
        # Before 0.9 there is no group coordination for kcat's balanced consumer to use.
        pass
    elif produced:
        def group_round_trip():
            first = parse(kcat(fallback, "-G", group, topic, "-X", "auto.offset.reset=earliest", "-e", "-f", FORMAT))
            for p in range(PARTITIONS):
                compare(expected(generation, p), first[p], f"first member, partition {p}")
            # A second member starts from the first one's commits (kcat commits what it consumed
            # when it leaves): at the end, so it reads nothing. Without commits it would read all
            # again (auto.offset.reset=earliest).
            second = parse(kcat(fallback, "-G", group, topic, "-X", "auto.offset.reset=earliest", "-e", "-f", FORMAT))
            got = [r for p in range(PARTITIONS) for r in second[p]]
            require(got == [], f"the second member read {len(got)} records, expected none after the commits")

        checks.check("group_consume_commit_resume", group_round_trip)
    else:
        checks.not_run("group_consume_commit_resume", "nothing produced")
    checks.check("read_written_by_4_4", lambda: fetch(from44, "4.4"))
    print(f"generation {fallback}: {checks.passed} passed, {checks.failed} failed", flush=True)
    sys.exit(0 if checks.failed == 0 else 1)


if __name__ == "__main__":
    main()
