package io.karst.interop.oldclients;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The records one client generation writes to its topic, so that any other generation can tell
 * what it should read there. Per codec (in CODECS order) RECORDS_PER_CODEC records, record i to
 * partition i % PARTITIONS; every fourth key is null and every sixth value empty; timestamps go
 * backwards within a codec (CreateTime is the producer's, not monotonic). Compiled into every
 * generation's program, so it uses the JDK only.
 */
public final class Corpus {
    public static final int PARTITIONS = 3;
    public static final int RECORDS_PER_CODEC = 12;
    /** The codecs every generation since 0.8.2 can write and every Fetch version can return. */
    public static final String[] CODECS = {"none", "gzip", "snappy", "lz4"};

    private Corpus() {}

    /** One record as read: key and value byte for byte, and the timestamp (-1 for none). */
    public static final class Entry {
        public final byte[] key;
        public final byte[] value;
        public final long timestamp;

        public Entry(byte[] key, byte[] value, long timestamp) {
            this.key = key;
            this.value = value;
            this.timestamp = timestamp;
        }

        /** Key, value and timestamp, printable: what a failure shows. */
        public String describe(boolean withTimestamp) {
            return text(key) + "=" + text(value) + (withTimestamp ? "@" + timestamp : "");
        }

        private static String text(byte[] b) { return b == null ? "null" : "'" + new String(b, StandardCharsets.UTF_8) + "'"; }
    }

    public static int partitionOf(int i) { return i % PARTITIONS; }

    public static byte[] key(String generation, String codec, int i) {
        return i % 4 == 0 ? null : bytes(generation + "/" + codec + "/k" + i);
    }

    public static byte[] value(String generation, String codec, int i) {
        return i % 6 == 5 ? new byte[0] : bytes(generation + "/" + codec + "/v" + i + "/\u00e9\u0000\u00ff");
    }

    public static long timestamp(int codecIndex, int i) { return 1_500_000_000_000L + codecIndex * 100_000L - i * 1_000L; }

    /** What partition p holds after a generation wrote every codec's records, in offset order. */
    public static List<Entry> expected(String generation, int partition, boolean withTimestamps) {
        List<Entry> out = new ArrayList<>();
        for (int c = 0; c < CODECS.length; c++) {
            for (int i = 0; i < RECORDS_PER_CODEC; i++) {
                if (partitionOf(i) != partition) continue;
                out.add(new Entry(key(generation, CODECS[c], i), value(generation, CODECS[c], i), withTimestamps ? timestamp(c, i) : -1));
            }
        }
        return out;
    }

    /** The offset record i of codec c gets in a topic that started empty and took the codecs in order. */
    public static long offsetOf(int codecIndex, int i) {
        return (long) codecIndex * (RECORDS_PER_CODEC / PARTITIONS) + i / PARTITIONS;
    }

    /** Null when read equals expected (byte for byte, timestamps too where asked), else what differs. */
    public static String difference(List<Entry> expected, List<Entry> read, boolean withTimestamps) {
        if (read.size() != expected.size()) {
            return "read " + read.size() + " records, expected " + expected.size();
        }
        for (int n = 0; n < expected.size(); n++) {
            Entry e = expected.get(n);
            Entry r = read.get(n);
            boolean same = java.util.Arrays.equals(e.key, r.key) && java.util.Arrays.equals(e.value, r.value)
                && (!withTimestamps || e.timestamp == r.timestamp);
            if (!same) {
                return "record " + n + " is " + r.describe(withTimestamps) + ", expected " + e.describe(withTimestamps);
            }
        }
        return null;
    }

    private static byte[] bytes(String s) { return s.getBytes(StandardCharsets.UTF_8); }
}
