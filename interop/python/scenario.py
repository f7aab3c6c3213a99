"""The records every client suite sends (same shapes as interop/java's Scenario).

Per compression type 12 records over 3 partitions: null/empty/non-empty keys and values,
duplicate, null-valued and empty headers, non-monotonic explicit timestamps; plus one
1 MiB incompressible record.
"""
import os
import random
import uuid

COMPRESSIONS = ["none", "gzip", "snappy", "lz4", "zstd"]
PARTITIONS = 3
RECORDS_PER_COMPRESSION = 12
BIG_RECORD_BYTES = 1 << 20
BASE_TIMESTAMP = 1_700_000_000_000
TOPIC_MAX_MESSAGE_BYTES = "2097152"


class Rec:
    """One record as produced; compared byte for byte with what is consumed."""

    def __init__(self, partition, key, value, timestamp, headers, label):
        self.partition = partition
        self.key = key
        self.value = value
        self.timestamp = timestamp
        self.headers = headers  # list of (str, bytes or None), order matters
        self.label = label

    def diff(self, key, value, timestamp, headers):
        """None when equal, else the first difference."""
        if self.key != key:
            return f"{self.label}: key want {_d(self.key)} got {_d(key)}"
        if self.value != value:
            return f"{self.label}: value want {_d(self.value)} got {_d(value)}"
        if self.timestamp != timestamp:
            return f"{self.label}: timestamp want {self.timestamp} got {timestamp}"
        if list(self.headers) != list(headers):
            return f"{self.label}: headers want {self.headers!r} got {headers!r}"
        return None


def _d(b):
    return "None" if b is None else f"{len(b)} bytes {bytes(b[:16])!r}"


def records_for(compression, seed, null_headers=True):
    rnd = random.Random(f"{seed}-{compression}")
    out = []
    for i in range(RECORDS_PER_COMPRESSION):
        key = None if i == 0 else b"" if i == 1 else f"key-{compression}-{i}".encode()
        if i == 2:
            value = None
        elif i == 3:
            value = b""
        elif i % 2 == 0:
            value = (f"compressible value {compression} " * (20 + i * 10)).encode()
        else:
            value = rnd.randbytes(1 + rnd.randrange(4000))
        headers = []
        if i % 5 != 0:
            headers += [("h-index", str(i).encode()), ("h-dup", b"first"), ("h-dup", b"second")]
            if i % 4 == 0 and null_headers:
                headers.append(("h-null", None))
            if i % 3 == 0:
                headers.append(("h-empty", b""))
        timestamp = BASE_TIMESTAMP + ((i * 7919) % 13) * 1000
        out.append(Rec(i % PARTITIONS, key, value, timestamp, headers, f"{compression}#{i}"))
    return out


def big_record(seed):
    value = random.Random(f"{seed}-big").randbytes(BIG_RECORD_BYTES)
    return Rec(1, b"big", value, BASE_TIMESTAMP + 99_000, [("size", b"1MiB")], "big#0")


def topic_name(prefix):
    return f"{prefix}-{uuid.uuid4().hex[:8]}"


def bootstrap():
    return os.environ.get("KARST_BOOTSTRAP", "127.0.0.1:9092")


def autocreate_off():
    return os.environ.get("INTEROP_AUTOCREATE_OFF") == "1"
