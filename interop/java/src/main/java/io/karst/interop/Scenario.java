package io.karst.interop;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * The records every client suite sends: per compression type, 12 records spread over 3 partitions
 * with null/empty/non-empty keys and values, duplicate and null-valued headers and non-monotonic
 * explicit timestamps; plus one 1 MiB incompressible record.
 */
final class Scenario {
    static final String[] COMPRESSIONS = {"none", "gzip", "snappy", "lz4", "zstd"};
    static final int PARTITIONS = 3;
    static final int RECORDS_PER_COMPRESSION = 12;
    static final int BIG_RECORD_BYTES = 1 << 20;
    static final long BASE_TIMESTAMP = 1_700_000_000_000L;

    private Scenario() {}

    static List<ExpectedRecord> recordsFor(String compression, long seed) {
        Random rnd = new Random(seed ^ compression.hashCode());
        List<ExpectedRecord> out = new ArrayList<>();
        for (int i = 0; i < RECORDS_PER_COMPRESSION; i++) {
            byte[] key = switch (i) {
                case 0 -> null;
                case 1 -> new byte[0];
                default -> ("key-" + compression + "-" + i).getBytes(StandardCharsets.UTF_8);
            };
            byte[] value;
            if (i == 2) value = null;
            else if (i == 3) value = new byte[0];
            else if (i % 2 == 0) value = ("compressible value " + compression + " ").repeat(20 + i * 10).getBytes(StandardCharsets.UTF_8);
            else { value = new byte[1 + rnd.nextInt(4000)]; rnd.nextBytes(value); }
            List<ExpectedRecord.Header> headers = new ArrayList<>();
            if (i % 5 != 0) {
                headers.add(new ExpectedRecord.Header("h-index", Integer.toString(i).getBytes(StandardCharsets.UTF_8)));
                headers.add(new ExpectedRecord.Header("h-dup", "first".getBytes(StandardCharsets.UTF_8)));
                headers.add(new ExpectedRecord.Header("h-dup", "second".getBytes(StandardCharsets.UTF_8)));
                if (i % 4 == 0) headers.add(new ExpectedRecord.Header("h-null", null));
                if (i % 3 == 0) headers.add(new ExpectedRecord.Header("h-empty", new byte[0]));
            }
            long timestamp = BASE_TIMESTAMP + (long) ((i * 7919) % 13) * 1000L;
            out.add(new ExpectedRecord(i % PARTITIONS, key, value, timestamp, headers, compression + "#" + i));
        }
        return out;
    }

    static ExpectedRecord bigRecord(long seed) {
        byte[] value = new byte[BIG_RECORD_BYTES];
        new Random(seed).nextBytes(value);
        List<ExpectedRecord.Header> headers = List.of(new ExpectedRecord.Header("size", "1MiB".getBytes(StandardCharsets.UTF_8)));
        return new ExpectedRecord(1, "big".getBytes(StandardCharsets.UTF_8), value, BASE_TIMESTAMP + 99_000L, headers, "big#0");
    }
}
